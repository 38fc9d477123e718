/* augur-dds-listener — a DDS peer of augur-bridge written only against the types idlc generates from
 * idl/augur/msg/augur.idl and Cyclone DDS's C API: no augur header. It shows (and its test proves) that a
 * program on another ECU needs nothing but the IDL.
 *
 *   augur-dds-listener predictions COUNT TIMEOUT_S [MIN_VEHICLES] [PREFIX]
 *       takes COUNT motion predictions from PREFIX/prediction (default rt/augur), each with at least
 *       MIN_VEHICLES vehicles, and checks every vehicle's corridors and points; exit 0 when all arrived in
 *       TIMEOUT_S seconds, 1 otherwise.
 *   augur-dds-listener publish-objects RATE_HZ [PREFIX]
 *       publishes object lists of one car on PREFIX/objects at RATE_HZ with a 100 ms liveliness lease until
 *       killed (the remote perception whose loss the bridge must notice).
 */
#include <dds/dds.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur.h"

static int takePredictions(long count, double timeout_s, unsigned minVehicles, const char* prefix) {
    char name[256];
    snprintf(name, sizeof name, "%s/prediction", prefix);
    const dds_entity_t participant = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
    const dds_entity_t topic = dds_create_topic(participant, &augur_msg_dds__MotionPrediction__desc, name, NULL, NULL);
    dds_qos_t* qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
    dds_qset_history(qos, DDS_HISTORY_KEEP_ALL, 0);
    const dds_entity_t reader = dds_create_reader(participant, topic, qos, NULL);
    dds_delete_qos(qos);
    if (participant < 0 || topic < 0 || reader < 0) {
        fprintf(stderr, "augur-dds-listener: DDS setup failed\n");
        return 1;
    }
    const dds_time_t end = dds_time() + (dds_time_t)(timeout_s * 1e9);
    /* Discovery first: say when a writer (the bridge) is matched, so that a caller can start publishing. */
    dds_subscription_matched_status_t matched;
    memset(&matched, 0, sizeof matched);
    while (matched.current_count == 0 && dds_time() < end) {
        if (dds_get_subscription_matched_status(reader, &matched) != DDS_RETCODE_OK || matched.current_count == 0) {
            dds_sleepfor(DDS_MSECS(10));
        }
    }
    printf("augur-dds-listener: matched %u writer(s) of %s\n", (unsigned)matched.current_count, name);
    fflush(stdout);
    long received = 0;
    long bad = 0;
    unsigned long long lastSequence = 0;
    unsigned vehicles = 0;
    while (received < count && dds_time() < end) {
        void* samples[1] = {NULL};
        dds_sample_info_t info;
        const dds_return_t n = dds_take(reader, samples, &info, 1, 1);
        if (n <= 0) {
            dds_sleepfor(DDS_MSECS(1));
            continue;
        }
        const augur_msg_dds__MotionPrediction_* p = (const augur_msg_dds__MotionPrediction_*)samples[0];
        if (info.valid_data) {
            int ok = p->header.schema_version == augur_msg_dds__SCHEMA_VERSION && p->vehicles._length >= minVehicles &&
                     p->header.sequence_number > lastSequence;
            for (uint32_t v = 0; ok && v < p->vehicles._length; ++v) {
                const augur_msg_dds__VehiclePrediction_* vehicle = &p->vehicles._buffer[v];
                for (uint32_t c = 0; c < vehicle->corridors._length; ++c) {
                    const augur_msg_dds__CorridorPrediction_* corridor = &vehicle->corridors._buffer[c];
                    ok = ok && corridor->s_mean_m._length == p->horizon_steps &&
                         corridor->s_std_m._length == p->horizon_steps && corridor->x_m._length == p->horizon_steps &&
                         corridor->y_m._length == p->horizon_steps;
                }
            }
            if (ok) {
                ++received;
                vehicles = p->vehicles._length;
                lastSequence = p->header.sequence_number;
            } else {
                ++bad;
            }
        }
        dds_return_loan(reader, samples, n);
    }
    printf("augur-dds-listener: %ld predictions received (last with %u vehicles), %ld malformed\n", received, vehicles,
           bad);
    dds_delete(participant);
    return received >= count && bad == 0 ? 0 : 1;
}

static int publishObjects(double rate_hz, const char* prefix) {
    char name[256];
    snprintf(name, sizeof name, "%s/objects", prefix);
    const dds_entity_t participant = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
    const dds_entity_t topic = dds_create_topic(participant, &augur_msg_dds__ObjectList__desc, name, NULL, NULL);
    dds_qos_t* qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_MSECS(10));
    dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 4);
    dds_qset_deadline(qos, DDS_MSECS(200));
    dds_qset_liveliness(qos, DDS_LIVELINESS_AUTOMATIC, DDS_MSECS(100));
    const dds_entity_t writer = dds_create_writer(participant, topic, qos, NULL);
    dds_delete_qos(qos);
    if (participant < 0 || topic < 0 || writer < 0) {
        fprintf(stderr, "augur-dds-listener: DDS setup failed\n");
        return 1;
    }
    augur_msg_dds__PerceivedObject_ car;
    memset(&car, 0, sizeof car);
    car.id = 1;
    car.object_class = 1;
    car.length_m = 4.5f;
    car.width_m = 1.8f;
    car.speed_mps = 10.0f;
    car.std_x_m = car.std_y_m = 0.2f;
    car.std_heading_rad = 0.05f;
    car.std_speed_mps = 0.3f;
    augur_msg_dds__ObjectList_ list;
    memset(&list, 0, sizeof list);
    list.header.schema_version = augur_msg_dds__SCHEMA_VERSION;
    list.objects._buffer = &car;
    list.objects._length = 1;
    list.objects._maximum = 1;
    const dds_duration_t period = (dds_duration_t)(1e9 / rate_hz);
    for (unsigned long long sequence = 1;; ++sequence) {
        list.header.sequence_number = sequence;
        list.header.stamp_ns = dds_time();
        car.x_m = (float)sequence * 0.5f;
        dds_write(writer, &list);
        dds_sleepfor(period);
    }
}

int main(int argc, char** argv) {
    if (argc >= 4 && strcmp(argv[1], "predictions") == 0) {
        return takePredictions(atol(argv[2]), atof(argv[3]), argc > 4 ? (unsigned)atoi(argv[4]) : 0,
                               argc > 5 ? argv[5] : "rt/augur");
    }
    if (argc >= 3 && strcmp(argv[1], "publish-objects") == 0) {
        return publishObjects(atof(argv[2]), argc > 3 ? argv[3] : "rt/augur");
    }
    fprintf(stderr,
            "usage: augur-dds-listener predictions COUNT TIMEOUT_S [MIN_VEHICLES] [PREFIX]\n"
            "       augur-dds-listener publish-objects RATE_HZ [PREFIX]\n");
    return 2;
}
