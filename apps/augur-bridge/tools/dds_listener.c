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
 *   augur-dds-listener --help | --version
 *
 * The command line follows augur's conventions (apps/cli/augur_cli.hpp) in C, which CLI11 is not: --help
 * on standard output with exit status 0, --version with the release and the commit, a bad argument named
 * on standard error with exit status 2. The commit comes from augur_build_commit(), the C entry of
 * augur::buildCommit() (augur/core/version.hpp), declared here so that no augur header is included.
 */
#include <dds/dds.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur.h"

/* The commit this program was built from (augur::core's generated build_commit.cpp). */
const char* augur_build_commit(void);

enum { EXIT_USAGE = 2 };

static const char USAGE[] =
    "usage: augur-dds-listener predictions COUNT TIMEOUT_S [MIN_VEHICLES] [PREFIX]\n"
    "       augur-dds-listener publish-objects RATE_HZ [PREFIX]\n"
    "       augur-dds-listener --help | --version\n";

static const char HELP[] =
    "augur-dds-listener: a DDS peer of augur-bridge written against the IDL's generated C types only.\n"
    "\n"
    "  predictions COUNT TIMEOUT_S [MIN_VEHICLES] [PREFIX]\n"
    "      take COUNT motion predictions (integer in [1, 1000000000]) from PREFIX/prediction (default\n"
    "      rt/augur), each with at least MIN_VEHICLES vehicles (integer in [0, 1000000], default 0), within\n"
    "      TIMEOUT_S seconds (number in (0, 86400]); exit status 0 when all arrived, 1 otherwise\n"
    "  publish-objects RATE_HZ [PREFIX]\n"
    "      publish object lists of one car on PREFIX/objects at RATE_HZ (number in (0, 10000]) until killed\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and the commit, and exit\n";

/* Parses `text` as an integer in [low, high] into *value; otherwise names the argument on stderr. */
static int integerArgument(const char* name, const char* text, long low, long high, long* value) {
    char* end = NULL;
    errno = 0;
    const long parsed = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < low || parsed > high) {
        fprintf(stderr, "augur-dds-listener: %s: '%s' is not an integer in [%ld, %ld]\n", name, text, low, high);
        return 0;
    }
    *value = parsed;
    return 1;
}

/* Parses `text` as a finite number in (low, high] into *value; otherwise names the argument on stderr. */
static int numberArgument(const char* name, const char* text, double low, double high, double* value) {
    char* end = NULL;
    errno = 0;
    const double parsed = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(parsed) || parsed <= low || parsed > high) {
        fprintf(stderr, "augur-dds-listener: %s: '%s' is not a number in (%g, %g]\n", name, text, low, high);
        return 0;
    }
    *value = parsed;
    return 1;
}

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
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(HELP, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("augur %s (commit %s)\n", AUGUR_VERSION_STRING, augur_build_commit());
            return 0;
        }
    }
    if (argc >= 4 && argc <= 6 && strcmp(argv[1], "predictions") == 0) {
        long count = 0;
        long minVehicles = 0;
        double timeout_s = 0.0;
        if (!integerArgument("COUNT", argv[2], 1, 1000000000L, &count) ||
            !numberArgument("TIMEOUT_S", argv[3], 0.0, 86400.0, &timeout_s) ||
            (argc > 4 && !integerArgument("MIN_VEHICLES", argv[4], 0, 1000000L, &minVehicles))) {
            return EXIT_USAGE;
        }
        return takePredictions(count, timeout_s, (unsigned)minVehicles, argc > 5 ? argv[5] : "rt/augur");
    }
    if (argc >= 3 && argc <= 4 && strcmp(argv[1], "publish-objects") == 0) {
        double rate_hz = 0.0;
        if (!numberArgument("RATE_HZ", argv[2], 0.0, 10000.0, &rate_hz)) {
            return EXIT_USAGE;
        }
        return publishObjects(rate_hz, argc > 3 ? argv[3] : "rt/augur");
    }
    if (argc > 1 && (strcmp(argv[1], "predictions") == 0 || strcmp(argv[1], "publish-objects") == 0)) {
        fprintf(stderr, "augur-dds-listener: %s: %d arguments, not what the mode takes\n", argv[1], argc - 2);
    } else if (argc > 1) {
        fprintf(stderr, "augur-dds-listener: unknown mode '%s'\n", argv[1]);
    }
    fputs(USAGE, stderr);
    return EXIT_USAGE;
}
