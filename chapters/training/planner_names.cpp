// The planner's names and reasons (planner.hpp), in a reader's words.
#include <string>

#include "chapters/training/planner.hpp"

namespace sb::training {

// ------------------------------------------------------------------ names

std::string strategy_name(uint8_t s) {
  std::string out;
  auto add = [&](const char* part) { out += (out.empty() ? "" : "+") + std::string(part); };
  if (s & kDP) add("DP");
  if (s & kFSDP) add("FSDP");
  if (s & kTP) add("TP");
  if (s & kEP) add("EP");
  if (s & kPP) add("PP");
  if (out.empty()) out = "single chip";
  if (s & kDCN) out += " (DP across pods)";
  return out;
}

int strategy_class(uint8_t s) {
  const int mode = s & kFSDP ? 2 : s & kDP ? 1 : 0;
  const int tp_pp = (s & kTP ? 2 : 0) + (s & kPP ? 1 : 0);
  if (mode == 0) return tp_pp;
  return 4 + (mode - 1) * 8 + (s & kEP ? 4 : 0) + tp_pp;
}

const char* term_name(Term t) {
  switch (t) {
    case Term::Math:
      return "compute";
    case Term::Hbm:
      return "HBM weight loads";
    case Term::Fsdp:
      return "FSDP weight gathers";
    case Term::Tp:
      return "TP activation collectives";
    case Term::Ep:
      return "expert all-to-alls";
    case Term::Dp:
      return "DP gradient all-reduce";
    case Term::Dcn:
      return "DCN all-reduce across pods";
    case Term::Hop:
      return "pipeline stage copies";
  }
  return "?";
}

const char* reason_name(Reason r) {
  switch (r) {
    case Reason::Best:
      return "best";
    case Reason::OutOfMemory:
      return "out_of_memory";
    case Reason::CommsFsdp:
      return "comms_fsdp";
    case Reason::CommsTp:
      return "comms_tp";
    case Reason::CommsEp:
      return "comms_ep";
    case Reason::CommsDp:
      return "comms_dp";
    case Reason::CommsDcn:
      return "comms_dcn";
    case Reason::HbmBound:
      return "hbm_bound";
    case Reason::PipelineHop:
      return "pipeline_hop";
    case Reason::PipelineBubble:
      return "pipeline_bubble";
    case Reason::Recompute:
      return "recompute";
    case Reason::Tie:
      return "tie";
  }
  return "?";
}

const char* reason_text(Reason r) {
  switch (r) {
    case Reason::Best:
      return "The fastest plan that fits (ties go to the simpler plan, then the one with more "
             "comms headroom, then the one with less memory).";
    case Reason::OutOfMemory:
      return "Needs more memory per chip than the chip's HBM.";
    case Reason::CommsFsdp:
      return "Comms-bound: gathering the FSDP-sharded weights takes longer than the matmuls.";
    case Reason::CommsTp:
      return "Comms-bound: the tensor-parallel activation gathers and reduce-scatters take longer "
             "than the matmuls.";
    case Reason::CommsEp:
      return "Comms-bound: sending each token to its experts and back (two all-to-alls each way) "
             "takes longer than the matmuls.";
    case Reason::CommsDp:
      return "Comms-bound: the data-parallel gradient all-reduce takes longer than the backward "
             "matmuls.";
    case Reason::CommsDcn:
      return "Comms-bound: the gradient all-reduce across pods over DCN takes longer than the "
             "backward matmuls.";
    case Reason::HbmBound:
      return "Memory-bandwidth-bound: each chip's local batch is too small to hide loading its "
             "weights from HBM.";
    case Reason::PipelineHop:
      return "Comms-bound: copying activations between pipeline stages takes longer than a "
             "stage's work.";
    case Reason::PipelineBubble:
      return "Compute-bound, but the pipeline's stages sit idle while it fills and drains.";
    case Reason::Recompute:
      return "Compute-bound, but block rematerialisation replays the forward pass (8 instead of "
             "6 FLOPs per parameter per token).";
    case Reason::Tie:
      return "As fast as the best plan; it loses the tie on simplicity, comms headroom or "
             "memory.";
  }
  return "?";
}

}  // namespace sb::training
