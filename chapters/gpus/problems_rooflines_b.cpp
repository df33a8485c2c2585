// The tensor-, expert- and pipeline-parallel examples of the LLM-rooflines section, and the two
// configurations the chapter checks: DeepSeek-V3 and LLaMA 3.
#include <algorithm>
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

using roofline::kGlobalBatch;
using roofline::kLocalBatch;

constexpr Param kTP1Given[] = {
    dim("d_ff", 28000, "F"), flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
    bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
    bw("node_egress_Bps", 400e9, "node egress"), dim("gpus_per_node", 8, "GPUs per node")};
constexpr Slot kTP1Slots[] = {
    number("tp_limit_cross_node", "ratio", "F / alpha with W_node", 0.035),
    number("tp_limit_in_node", "ratio", "F / alpha with W_GPU"),
    number("tp_degree", "count", "TP degree to use"),
    number("two_node_max_tp", "ratio", "largest TP spanning two nodes"),
    boolean("sixteen_way_ok", "is 16-way TP compute-bound?")};
constexpr Problem kTP1{
    .id = "gpus.Ex.TP1",
    .title = "Maximum TP degree for LLaMA-3",
    .statement =
        "An MLP of F = {d_ff} runs tensor-parallel on H100s ({bf16_flops_per_s}, "
        "{gpu_egress_Bps} of NVLink, {node_egress_Bps} per node of {gpus_per_node}). What is "
        "F / alpha across nodes and inside a node, what TP degree do you use, how far can TP go "
        "when it spans two nodes, and is 16-way fine?",
    .kind = "numeric",
    .given = kTP1Given,
    .slots = kTP1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double c = in.num("bf16_flops_per_s"), f = in.num("d_ff"), dn = in.num("gpus_per_node");
          double an = tr.step("alpha across nodes", kAlpha, {c, in.num("node_egress_Bps")});
          double ai = tr.step("alpha inside a node", kAlpha, {c, in.num("gpu_egress_Bps")});
          double yx = tr.step("Y < F / alpha, across nodes", kTpMax, {f, an});
          double yi = tr.step("Y < F / alpha, inside a node", kTpMax, {f, ai});
          double y =
              tr.value("Round down to a whole node at most", std::min(dn, std::floor(yi)), "count");
          double y2 =
              tr.step("Spanning nodes: $F > \\alpha (Y - D_{node})$", kTpMaxSpanning, {f, an, dn});
          double ok = verdict(tr, 16 < y2, "16-way TP stays compute-bound",
                              "16-way TP is communication-bound");
          Answers a{{"tp_limit_cross_node", yx},
                    {"tp_limit_in_node", yi},
                    {"tp_degree", y},
                    {"two_node_max_tp", y2},
                    {"sixteen_way_ok", ok}};
          a.book("tp_limit_cross_node", units::round_sig(yx, 2), "says about 11");
          return a;
        },
};

constexpr Param kEP1Given[] = {flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress"),
                               dim("gpus_per_node", 8, "GPUs per node")};
constexpr Slot kEP1Slots[] = {number("f_min_large_z", "count", "smallest F for wide EP")};
constexpr Problem kEP1{
    .id = "gpus.Ex.EP1",
    .title = "When expert parallelism stays compute-bound",
    .statement =
        "Expert parallelism Z ways wide over k active experts on H100 nodes of {gpus_per_node} "
        "({bf16_flops_per_s} per GPU, {node_egress_Bps} per node): how large must F be for EP to "
        "stay compute-bound as Z grows far beyond k?",
    .kind = "formula",
    .given = kEP1Given,
    .slots = kEP1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double a = tr.step("alpha across nodes", kAlpha,
                             {in.num("bf16_flops_per_s"), in.num("node_egress_Bps")});
          double f = tr.step("Z much larger than k", kEpFMinLargeZ, {in.num("gpus_per_node"), a});
          return Answers{{"f_min_large_z", f}};
        },
};

constexpr Param kPP1Given[] = {
    tokens("batch_tokens", 1e6, "batch B in tokens"),
    dim("d_model", 8192, "D"),
    bw("link_bw_Bps", 400e9, "link bandwidth"),
    dim("n_microbatches", 32, "microbatches"),
    dim("n_stages", 16, "pipeline stages"),
    text("note_given", "example values; the book answers symbolically", "about the values")};
constexpr Slot kPP1Slots[] = {
    derived(number("pp_total_comms", "s", "activation transfers"), From::Link)};
constexpr Problem kPP1{
    .id = "gpus.Ex.PP1",
    .title = "Pipeline-parallel communication cost",
    .statement =
        "A pipeline of {n_stages} stages runs {n_microbatches} microbatches of a batch of "
        "{batch_tokens} (D = {d_model}, bf16) over links of {link_bw_Bps}. How long do its "
        "activation transfers take in all? ({note_given}.)",
    .kind = "formula",
    .given = kPP1Given,
    .slots = kPP1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double t = tr.step("$2BD / N_{MB}$ per hop, $N_{MB} + N_{stages} - 2$ hops", kPpComms,
                             {in.num("batch_tokens"), in.num("d_model"), in.num("link_bw_Bps"),
                              in.num("n_microbatches"), in.num("n_stages")});
          return Answers{{"pp_total_comms", t}};
        },
};

}  // namespace

void add_problems_configs(Registry& r);  // problems_configs.cpp
void add_problems_quiz5(Registry& r);    // problems_quiz5.cpp

void add_problems_rooflines_b(Registry& r) {
  static constexpr Problem kAll[] = {kTP1, kEP1, kPP1};
  r.add(kAll);
  add_problems_configs(r);
  add_problems_quiz5(r);
}

}  // namespace sb::gpus
