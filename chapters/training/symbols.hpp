// Part 5's symbols (model.hpp, conditions.hpp): the names its formula records use, with their
// units and the ranges the record test draws them from.
#pragma once
#include "core/formula.hpp"

namespace sb::training {

// The chapter's symbols: their units and the ranges the record test draws them from.
inline constexpr Symbol kSymbols[] = {
    sym("C", "flop_per_s", 1e12, 1e16, "peak FLOPs/s of one chip"),
    sym("W_ici", "B_per_s", 1e9, 1e13, "ICI bandwidth of one axis per chip, both directions"),
    sym("W_dcn", "B_per_s", 1e8, 1e12, "DCN bandwidth per chip"),
    sym("W_hbm", "B_per_s", 1e10, 1e14, "HBM bandwidth per chip"),
    sym("W_host", "B_per_s", 1e9, 1e12, "DCN bandwidth of one host"),
    whole("n_host", "count", 1, 64, "chips per host"),
    sym("w_uni", "B_per_s", 1e9, 1e12, "one direction of one ICI link"),
    sym("alpha", "tokens", 10, 1e5, "ICI intensity, C / W_ici"),
    sym("alpha_dcn", "tokens", 100, 1e7, "DCN intensity, C / W_dcn"),
    sym("B", "tokens", 1, 1e9, "global batch in tokens"),
    sym("N", "chips", 1, 1e6, "chips"),
    sym("N_pod", "chips", 1, 1e5, "chips in a pod"),
    sym("M", "chips", 1, 1e5, "chips of one pod (each with its own DCN link)"),
    sym("X", "count", 1, 1e5, "data (FSDP or DP) degree"),
    sym("Y", "count", 1, 1e5, "tensor-parallel degree"),
    sym("X_opt", "count", 1, 1e6, "the FSDP degree where the FSDP and TP terms are equal"),
    sym("M_X", "count", 0.1, 3, "ICI axes the data axis spans"),
    sym("M_Y", "count", 0.1, 3, "ICI axes tensor parallelism spans"),
    sym("D", "count", 64, 1e5, "model width"),
    sym("F", "count", 64, 1e6, "MLP width a token uses"),
    whole("n", "count", 2, 3, "matrices of the MLP (2; 3 when gated)"),
    sym("L", "count", 1, 1000, "layers"),
    sym("P", "params", 1e6, 1e13, "parameters"),
    sym("b", "B", 0.5, 8, "bytes per element"),
    sym("b_w", "B", 0.5, 8, "bytes per weight"),
    sym("b_opt", "B", 1, 16, "bytes of optimizer state per parameter"),
    with_tex(sym("HBM", "B", 1e9, 1e12, "HBM per chip"), "\\mathrm{HBM}"),
    sym("V_w", "B", 1, 1e13, "bytes of weights (a layer's, or one matrix's)"),
    sym("V_a", "B", 1, 1e13, "bytes of activations"),
    sym("f", "flop", 1e3, 1e12, "forward FLOPs per token of one layer"),
    whole("Z", "count", 1, 1000, "pipeline stages"),
    whole("m", "count", 1, 4096, "microbatches"),
    sym("pods", "count", 1, 1e4, "pods"),
    sym("MFU", "ratio", 0.01, 1, "model FLOPs utilisation"),
    sym("FLOPs", "flop", 1e15, 1e27, "training FLOPs"),
    sym("T", "tokens", 1, 1e6, "sequence length"),
    sym("S", "B", 1, 1e15, "bytes of parameters and optimizer state"),
    sym("A", "B", 1, 1e16, "bytes of activation checkpoints"),
    sym("k", "count", 1, 64, "experts a token is routed to"),
    sym("A_max", "count", 1, 64, "chips along the longest axis of the all-to-all's group"),
    sym("b_FSDP", "tokens", 1, 1e5, "FSDP's floor on the batch per chip"),
    sym("B_chip", "tokens", 1, 1e6, "batch per chip"),
    sym("b_mixed", "tokens", 0.01, 1e5, "FSDP + TP's floor on the batch per chip"),
};

}  // namespace sb::training
