// Every record of the GPU chapter, for the registry (the formula sheet and the record test).
#pragma once
#include "chapters/gpus/collectives.hpp"
#include "chapters/gpus/llm.hpp"
#include "chapters/gpus/model.hpp"

namespace sb::gpus {

inline constexpr const Formula* kFormulas[] = {
    // A.1
    &kTcPeak, &kTcFlopsPerCycle, &kCudaCores, &kSimdUnits, &kVectorFlops, &kVectorFlopsPerCycle,
    &kClockFromVector, &kRegisterFile, &kResidentWarps, &kOnChipTotal, &kPrecisionPeak,
    &kElementwiseFlops, &kElementwiseBytes, &kBusySms, &kTpuVectorAlus, &kRatio, &kL2Bidi,
    // A.2, A.3
    &kGpuEgress, &kSwitchCapacity, &kNodeBandwidth, &kBisection, &kBisectionOneWay, &kNvSwitchCount,
    &kNodeEgress, &kLeafCapacity, &kSuUplink, &kSpineCapacity, &kPerNodeBisection, &kSwitchCount,
    // A.4
    &kArrayBytes, &kAgRing, &kAgApprox, &kArRing, &kRingHops, &kTreeHops, &kA2A, &kA2AApprox,
    &kA2ARagged, &kA2AHit, &kSharpAr, &kSharpSpeedup, &kSharpSwitch, &kArBusFactor, &kAgBusFactor,
    &kWithGain, &kEffectiveBw, &kTwoLevelAg, &kLevelRingBw, &kFatTreeRingBw, &kFatTreeSharpBw,
    &kA2ACross, &kExpertA2A, &kShardedNode, &kShardedScaleOut, &kSuTwoAxisAg, &kSharpSharded,
    &kSharpSpine, &kNodeSwitchIn, &kNodeSwitchOut, &kTopSwitchIn, &kTopSwitchOut, &kNodeSwitchTime,
    &kGroupScaleOut, &kHierAg,
    // A.5
    &kAlpha, &kDpMoe, &kDpSmallX, &kDpSpan, &kDpSpanGain, &kDpRingGain, &kTpMax, &kTpMaxSpanning,
    &kEpFMin, &kEpFMinLargeZ, &kPpComms, &kTrainBytes, &kMinGpus, &kMinNodes, &kBytesPerGpu,
    &kTrainFlops, &kClusterFlops, &kModelParallel, &kGpuCount, &kSpanBandwidth};

}  // namespace sb::gpus
