#include "augur/core/messages.hpp"

namespace augur {

const char* toString(ObjectClass value) noexcept {
    switch (value) {
        case ObjectClass::Unknown: return "unknown";
        case ObjectClass::Car: return "car";
        case ObjectClass::Truck: return "truck";
        case ObjectClass::Bus: return "bus";
        case ObjectClass::Motorcycle: return "motorcycle";
        case ObjectClass::Bicycle: return "bicycle";
        case ObjectClass::Pedestrian: return "pedestrian";
        case ObjectClass::Count: break;
    }
    return "invalid";
}

const char* toString(RejectReason value) noexcept {
    switch (value) {
        case RejectReason::None: return "accepted";
        case RejectReason::UnknownSchemaVersion: return "unknown_schema_version";
        case RejectReason::CountOverCapacity: return "count_over_capacity";
        case RejectReason::NonFinite: return "non_finite";
        case RejectReason::InvalidField: return "invalid_field";
        case RejectReason::DuplicateId: return "duplicate_id";
        case RejectReason::SequenceNotIncreasing: return "sequence_not_increasing";
        case RejectReason::TimestampBackwards: return "timestamp_backwards";
        case RejectReason::Stale: return "stale";
        case RejectReason::PayloadSize: return "payload_size";
        case RejectReason::Implausible: return "implausible";
        case RejectReason::FutureStamp: return "future_stamp";
        case RejectReason::Count: break;
    }
    return "invalid";
}

const char* toString(Stage value) noexcept {
    switch (value) {
        case Stage::Ingest: return "ingest";
        case Stage::Track: return "track";
        case Stage::Relations: return "relations";
        case Stage::Intention: return "intention";
        case Stage::Motion: return "motion";
        case Stage::Platoons: return "platoons";
        case Stage::Publish: return "publish";
        case Stage::Count: break;
    }
    return "invalid";
}

const char* toString(RuntimeMode value) noexcept {
    switch (value) {
        case RuntimeMode::Nominal: return "nominal";
        case RuntimeMode::ReducedParticles: return "reduced_particles";
        case RuntimeMode::ConstantVelocity: return "constant_velocity";
        case RuntimeMode::HoldLast: return "hold_last";
        case RuntimeMode::NoPrediction: return "no_prediction";
        case RuntimeMode::Count: break;
    }
    return "invalid";
}

const char* toString(HealthFault value) noexcept {
    switch (value) {
        case HealthFault::InputLost: return "input_lost";
        case HealthFault::InputRejected: return "input_rejected";
        case HealthFault::InputResynchronised: return "input_resynchronised";
        case HealthFault::NonFiniteOutput: return "non_finite_output";
        case HealthFault::TransportLost: return "transport_lost";
        case HealthFault::OutputBlocked: return "output_blocked";
        case HealthFault::GpuFallback: return "gpu_fallback";
        case HealthFault::InputQueueOverflow: return "input_queue_overflow";
        case HealthFault::LinkLost: return "link_lost";
        case HealthFault::TraceDropped: return "trace_dropped";
    }
    return "invalid";
}

const char* toString(MonitorCondition value) noexcept {
    switch (value) {
        case MonitorCondition::HealthMissing: return "health_missing";
        case MonitorCondition::RuntimeGone: return "runtime_gone";
        case MonitorCondition::DeadlineMiss: return "deadline_miss";
        case MonitorCondition::StageOverBudget: return "stage_over_budget";
        case MonitorCondition::StageOrder: return "stage_order";
        case MonitorCondition::SequenceGap: return "sequence_gap";
        case MonitorCondition::InputStale: return "input_stale";
        case MonitorCondition::Degraded: return "degraded";
        case MonitorCondition::InputRejected: return "input_rejected";
        case MonitorCondition::TransportFault: return "transport_fault";
        case MonitorCondition::RouDiLost: return "roudi_lost";
        case MonitorCondition::LinkLost: return "link_lost";
    }
    return "invalid";
}

}  // namespace augur
