// The chip tables: spot checks against the chapter notes, aliases, errors that name the field,
// and the promises every consumer relies on (a unit and a source for every figure).
#include "core/hardware.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/units.hpp"
#include "tests/support/support.hpp"

namespace {

using sb::InputError;
namespace hw = sb::hw;

// "16x20x28" -> 8960.
double shape_product(const std::string& shape) {
  double p = 1;
  std::stringstream ss(shape);
  std::string part;
  while (std::getline(ss, part, 'x')) p *= std::stod(part);
  return p;
}

TEST(Hardware, V5eRidgeAgainstHbmIs240) {
  const hw::Chip& c = hw::chip("v5e");
  // Spec table: 1.97e14 FLOPs/s and 8.2e11 B/s; ridge 1.97e14 / 8.2e11 = 240.24 FLOPs/B.
  EXPECT_DOUBLE_EQ(c.peak("bf16"), 1.97e14);
  EXPECT_DOUBLE_EQ(c.get("hbm_bw"), 8.2e11);
  EXPECT_NEAR(c.peak("bf16") / c.get("hbm_bw"), 240.24, 0.01);
  // int8 column: 3.94e14 OPs/s, twice bf16, so the int8 ridge is 2 x 240.24 = 480.49.
  EXPECT_NEAR(c.peak("int8") / c.get("hbm_bw"), 480.49, 0.01);
}

TEST(Hardware, V5eTwoChipNetworkThreshold) {
  const hw::Chip& c = hw::chip("v5e");
  // roofline.md two-chip example: D/2 > peak / W_ici = 1.97e14 / 4.5e10 = 4377.8, so D > 8755.6.
  EXPECT_NEAR(c.peak("bf16") / c.get("ici_bw_oneway"), 4377.8, 0.1);
  EXPECT_NEAR(2 * c.peak("bf16") / c.get("ici_bw_oneway"), 8755.6, 0.1);
  // Per-hop latency from a problem statement: 1 us.
  EXPECT_DOUBLE_EQ(c.get("ici_hop_latency"), 1e-6);
}

TEST(Hardware, V5eOnChipFigures) {
  const hw::Chip& c = hw::chip("v5e");
  // VMEM bandwidth is about 22 x HBM: 22 x 8.2e11 = 1.804e13 B/s (derived).
  EXPECT_NEAR(c.get("vmem_bw"), 1.804e13, 1e6);
  EXPECT_EQ(c.specs.at("vmem_bw").source, "derived");
  // VMEM 128 MiB = 128 x 2^20 = 134,217,728 B.
  EXPECT_DOUBLE_EQ(c.get("vmem_bytes"), 134217728.0);
  // MXU model: cores x MXUs x 2 x 128^2 x clock = 1 x 4 x 32768 x 1.5e9 = 1.966e14, within
  // 0.5 % of the table's 1.97e14 (1.97e14 / 1.96608e14 = 1.002).
  const double mxu = c.get("cores_per_chip") * c.get("mxus_per_core") * 2 * c.get("mxu_size") *
                     c.get("mxu_size") * c.get("clock_hz");
  EXPECT_DOUBLE_EQ(mxu, 1.96608e14);
  EXPECT_NEAR(c.peak("bf16") / mxu, 1.002, 0.001);
  // VPU: 8 sublanes x 128 lanes x 4 ALUs x 1.5e9 = 6.144e12 FLOPs/s per core.
  EXPECT_DOUBLE_EQ(c.get("vpu_flops_per_core"), 6.144e12);
  EXPECT_EQ(c.get_text("max_pod"), "16x16");
  EXPECT_EQ(c.get_text("host_shape"), "4x2");
  // 16 GB = 16e9 B in the table (the prose's "16 GiB" lives in the note).
  EXPECT_DOUBLE_EQ(c.get("hbm_bytes"), 16e9);
  EXPECT_NE(c.specs.at("hbm_bytes").note.find("GiB"), std::string::npos);
}

TEST(Hardware, TpuTableSpotChecks) {
  // v5p: 4.59e14 / 2.8e12 = 163.9 FLOPs/B (B.7 prints 164).
  EXPECT_NEAR(hw::chip("v5p").peak("bf16") / hw::chip("v5p").get("hbm_bw"), 163.93, 0.01);
  // v6e: 9.2e14 / 1.6e12 = 575; TPU7x: 2.3e15 / 7.4e12 = 310.8 (B.7: 575, 311).
  EXPECT_NEAR(hw::chip("v6e").peak("bf16") / hw::chip("v6e").get("hbm_bw"), 575.0, 1e-9);
  EXPECT_NEAR(hw::chip("tpu7x").peak("bf16") / hw::chip("tpu7x").get("hbm_bw"), 310.81, 0.01);
  // v4p's clock is implied: 2.75e14 / (2 cores x 4 MXUs x 2 x 128^2) = 1.049e9 Hz.
  EXPECT_NEAR(hw::chip("v4p").get("clock_hz"), 1.049e9, 1e6);
  // DCN egress per chip: v5e 3.125e9, v5p 6.25e9, v6e and TPU7x 12.5e9; host DCN for v5e is
  // 8 chips x 3.125e9 = 2.5e10 B/s.
  EXPECT_DOUBLE_EQ(hw::chip("v5e").get("dcn_bw") * hw::chip("v5e").get("chips_per_host"), 2.5e10);
  EXPECT_DOUBLE_EQ(hw::chip("v6e").get("dcn_bw"), 1.25e10);
  // PCIe: generic 1.6e10 except v6e's stated 3.2e10; the generic ones say so in their note.
  EXPECT_DOUBLE_EQ(hw::chip("v6e").get("pcie_bw"), 3.2e10);
  EXPECT_NE(hw::chip("tpu7x").specs.at("pcie_bw").note.find("generic figure"), std::string::npos);
  EXPECT_NE(hw::chip("v3").specs.at("dcn_bw").note.find("generic figure"), std::string::npos);
  // Megacore: v4p and v5p yes, TPU7x has 2 cores but no megacore.
  EXPECT_EQ(hw::chip("v5p").get("megacore"), 1);
  EXPECT_EQ(hw::chip("tpu7x").get("megacore"), 0);
  EXPECT_EQ(hw::chip("tpu7x").get("cores_per_chip"), 2);
  // The book states no MXU size or clock for TPU7x: those keys stay absent.
  EXPECT_FALSE(hw::chip("tpu7x").has("mxu_size"));
  EXPECT_FALSE(hw::chip("tpu7x").has("clock_hz"));
}

TEST(Hardware, TpuTopologyIsConsistent) {
  for (const hw::Chip& c : hw::chips()) {
    if (c.kind != "tpu") continue;
    SCOPED_TRACE(c.id);
    // max_pod "16x20x28" must multiply out to max_pod_chips (8960), host "2x2x1" to 4, etc.; a
    // chip whose pod or host the book does not give (TPU v2) states both figures unknown.
    for (auto [shape, chips] :
         {std::pair{"max_pod", "max_pod_chips"}, std::pair{"host_shape", "chips_per_host"}}) {
      SCOPED_TRACE(shape);
      EXPECT_EQ(c.unknown(shape), c.unknown(chips));
      if (!c.unknown(shape)) EXPECT_DOUBLE_EQ(shape_product(c.get_text(shape)), c.get(chips));
    }
    // A 2D torus has 4 neighbours and a 3D one 6: links = 2 x dims.
    EXPECT_DOUBLE_EQ(c.get("ici_links"), 2 * c.get("torus_dims"));
    // Bidirectional ICI is twice the one-way figure on every generation (B.2).
    EXPECT_DOUBLE_EQ(c.get("ici_bw_bidi"), 2 * c.get("ici_bw_oneway"));
  }
}

TEST(Hardware, GpuSpotChecks) {
  const hw::Chip& h = hw::chip("h100");
  // H100: 9.9e14 / 3.35e12 = 295.5 FLOPs/B ("roughly 300").
  EXPECT_NEAR(h.peak("bf16") / h.get("hbm_bw"), 295.52, 0.01);
  // alpha inside a node: 990e12 / 450e9 = 2200; across nodes 990e12 / 400e9 = 2475.
  EXPECT_NEAR(h.peak("bf16") / h.get("nvlink_bw_per_gpu"), 2200.0, 1e-9);
  EXPECT_NEAR(h.peak("bf16") / h.get("node_scaleout_bw"), 2475.0, 1e-9);
  // Usable node NVLink = min(6.4e12 switch, 8 x 450e9 = 3.6e12) = 3.6e12.
  EXPECT_DOUBLE_EQ(
      std::min(h.get("node_switch_bw"), h.get("gpus_per_node") * h.get("nvlink_bw_per_gpu")),
      h.get("node_nvlink_bw"));
  // Register file 4 x 16384 x 4 B = 262,144 B; at 256 regs/thread 262144 / (32 x 256 x 4) = 8
  // warps.
  EXPECT_DOUBLE_EQ(h.get("register_file_per_sm") / (32 * 256 * 4), 8.0);

  // GB200 NVL72 across nodes: 2.25e15 / 3.6e12 = 625; its node egress is 72 x 50e9.
  const hw::Chip& g = hw::chip("gb200");
  EXPECT_NEAR(g.peak("bf16") / g.get("node_scaleout_bw"), 625.0, 1e-9);
  EXPECT_DOUBLE_EQ(g.get("gpus_per_node") * g.get("scaleout_bw_per_gpu"),
                   g.get("node_scaleout_bw"));

  // B200: fp8 = 2 x bf16 (4.5e15 = 2 x 2.25e15) and fp4 = 4 x bf16 (9e15); the table's 2.3e15
  // for bf16 is in the note.
  const hw::Chip& b = hw::chip("b200");
  EXPECT_DOUBLE_EQ(b.peak("fp8"), 2 * b.peak("bf16"));
  EXPECT_DOUBLE_EQ(b.peak("fp4"), 4 * b.peak("bf16"));
  EXPECT_NE(b.specs.at("peak_flops_bf16").note.find("2.3e15"), std::string::npos);
  // B200 Tensor Core estimate: 2.25e15 / (148 x 4 x 1.86e9) = 2043 FLOPs per TC per cycle.
  EXPECT_NEAR(b.peak("bf16") / (b.get("sms") * 4 * b.get("clock_hz")), 2043.3, 0.1);

  // A100 from its structure: 108 SMs x 4 TCs x 512 x 1.41e9 = 3.119e14, within 1 % of 3.1e14.
  const hw::Chip& a = hw::chip("a100");
  EXPECT_NEAR(a.get("sms") * 4 * a.get("tc_flops_per_cycle") * a.get("clock_hz") / a.peak("bf16"),
              1.006, 0.001);
  // The book gives A100 no fp8 rate; its fp8/int8 column goes to int8 only.
  EXPECT_FALSE(a.has("peak_flops_fp8"));
  EXPECT_DOUBLE_EQ(a.peak("int8"), 6.2e14);
  // V100's bf16 figure is derived: 80 x 4 x 256 x 1.38e9 = 1.130496e14.
  EXPECT_DOUBLE_EQ(hw::chip("v100").peak("bf16"), 1.130496e14);
  EXPECT_EQ(hw::chip("v100").specs.at("peak_flops_bf16").source, "derived");
}

TEST(Hardware, AliasesMatchCaseAndSeparatorInsensitively) {
  EXPECT_EQ(hw::chip("TPU v5e").id, "v5e");
  EXPECT_EQ(hw::chip("tpu-v5e").id, "v5e");
  EXPECT_EQ(hw::chip("TPU_V5E").id, "v5e");
  EXPECT_EQ(hw::chip("v5litepod").id, "v5e");
  EXPECT_EQ(hw::chip("V5E").id, "v5e");
  EXPECT_EQ(hw::chip("TPU v5p").id, "v5p");
  EXPECT_EQ(hw::chip("TPU v4").id, "v4p");
  EXPECT_EQ(hw::chip("Trillium").id, "v6e");
  EXPECT_EQ(hw::chip("TPU7x").id, "tpu7x");
  EXPECT_EQ(hw::chip("Ironwood").id, "tpu7x");
  EXPECT_EQ(hw::chip("NVIDIA H100 SXM").id, "h100");
  EXPECT_EQ(hw::chip("GB200 NVL72").id, "gb200");
  EXPECT_EQ(hw::chip("gb200-nvl72").id, "gb200");
}

TEST(Hardware, IdsAndAliasesAreUnambiguous) {
  // Every normalized id and alias must point at exactly one chip, or chip() would be ambiguous.
  auto norm = [](std::string s) {
    std::string out;
    for (char c : s)
      if (c != ' ' && c != '-' && c != '_') out.push_back(static_cast<char>(std::tolower(c)));
    return out;
  };
  std::map<std::string, std::string> owner;  // normalized name -> chip id
  for (const hw::Chip& c : hw::chips()) {
    EXPECT_EQ(owner.count(norm(c.id)), 0u) << "duplicate id " << c.id;
    owner[norm(c.id)] = c.id;
  }
  for (const hw::Chip& c : hw::chips())
    for (const std::string& a : c.aliases) {
      // Repeats within one chip ("tpu v5e", "tpuv5e") are harmless; naming another chip is not.
      auto [it, fresh] = owner.emplace(norm(a), c.id);
      EXPECT_EQ(it->second, c.id) << "alias '" << a << "' also names " << it->second;
      (void)fresh;
    }
  // 7 TPUs + 6 GPUs.
  EXPECT_EQ(hw::chip_ids().size(), 13u);
}

TEST(Hardware, UnknownChipNamesTheField) {
  InputError e = sb::test::thrown([] { hw::chip("v9z"); });
  EXPECT_EQ(e.code, "unknown_chip");
  EXPECT_EQ(e.field, "chip");
  // The message lists the valid ids so the reader can pick one.
  EXPECT_NE(std::string(e.what()).find("v5e"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("gb200"), std::string::npos);

  InputError e2 = sb::test::thrown([] { hw::chip("", "given.chip"); });
  EXPECT_EQ(e2.code, "unknown_chip");
  EXPECT_EQ(e2.field, "given.chip");
}

TEST(Hardware, UnknownDtypeNamesTheField) {
  InputError e = sb::test::thrown([] { hw::dtype_bytes("fp64", "dtype_w"); });
  EXPECT_EQ(e.code, "unknown_dtype");
  EXPECT_EQ(e.field, "dtype_w");
  EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos);

  InputError e2 = sb::test::thrown([] { hw::chip("v5e").peak("bf17"); });
  EXPECT_EQ(e2.code, "unknown_dtype");
  EXPECT_EQ(e2.field, "dtype_compute");
}

TEST(Hardware, MissingFigureNamesFieldAndKey) {
  // The book gives no int4 or fp32 peak for v5e: a known dtype, but no figure.
  InputError e = sb::test::thrown([] { hw::chip("v5e").peak("int4", "dtype"); });
  EXPECT_EQ(e.code, "no_figure");
  EXPECT_EQ(e.field, "dtype");
  EXPECT_NE(std::string(e.what()).find("peak_flops_int4"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("TPU v5e"), std::string::npos);

  InputError e2 = sb::test::thrown([] { hw::chip("v3").get("vmem_bytes", "level"); });
  EXPECT_EQ(e2.code, "no_figure");
  EXPECT_EQ(e2.field, "level");

  // A text spec is not a number.
  InputError e3 = sb::test::thrown([] { hw::chip("v5e").get("max_pod"); });
  EXPECT_EQ(e3.field, "chip");
}

TEST(Hardware, DtypeBytes) {
  // sizeof: fp32 4, bf16 2, fp8 1, int8 1, int4 half a byte.
  EXPECT_EQ(hw::dtype_bytes("fp32", "d"), 4);
  EXPECT_EQ(hw::dtype_bytes("bf16", "d"), 2);
  EXPECT_EQ(hw::dtype_bytes("BF16", "d"), 2);
  EXPECT_EQ(hw::dtype_bytes("fp8", "d"), 1);
  EXPECT_EQ(hw::dtype_bytes("int8", "d"), 1);
  EXPECT_EQ(hw::dtype_bytes("int4", "d"), 0.5);
  // Widest first, so a dropdown reads fp32, bf16, ...
  ASSERT_GE(hw::dtypes().size(), 5u);
  EXPECT_EQ(hw::dtypes()[0], "fp32");
  EXPECT_EQ(hw::dtypes()[1], "bf16");
  EXPECT_DOUBLE_EQ(hw::chip("h100").peak("BF16"), 9.9e14);
}

TEST(Hardware, EveryFigureHasUnitAndSource) {
  const sb::json all = hw::chips_json();
  ASSERT_TRUE(all.contains("sources"));
  ASSERT_TRUE(all.contains("labels"));
  int numeric = 0;
  for (const hw::Chip& c : hw::chips()) {
    SCOPED_TRACE(c.id);
    EXPECT_FALSE(c.name.empty());
    EXPECT_TRUE(c.kind == "tpu" || c.kind == "gpu");
    for (const auto& [key, s] : c.specs) {
      SCOPED_TRACE(key);
      EXPECT_TRUE(all["sources"].contains(s.source)) << "source '" << s.source << "' not described";
      // The hardware page names every figure in words (chips.json "labels").
      EXPECT_TRUE(all["labels"].contains(key)) << "no label";
      if (!s.known) {
        // Stated unknown ("value": null): its note says why, and it has no text to show.
        EXPECT_FALSE(s.note.empty());
        EXPECT_TRUE(s.text.empty());
        continue;
      }
      if (s.unit.empty()) {
        EXPECT_FALSE(s.text.empty());
      } else if (!s.text.empty()) {
        // A number written as the book writes it says the same number: "128 MiB" = 134217728 B.
        EXPECT_NEAR(sb::units::parse(s.text, s.unit, key), s.value, s.value * 1e-9) << s.text;
      }
      if (!s.unit.empty()) {
        ++numeric;
        EXPECT_TRUE(sb::units::known(s.unit)) << s.unit;
        EXPECT_TRUE(std::isfinite(s.value));
        EXPECT_GE(s.value, 0);
      }
      // Derived values and modelling choices must say what they assume.
      if (s.source == "derived" || s.source == "modelling choice") {
        EXPECT_FALSE(s.note.empty());
      }
    }
  }
  EXPECT_GT(numeric, 200);
}

// A figure the roofline needs is in the table, or stated unknown there, in which case asking for
// it is an InputError naming the field that asked and saying the figure is not known.
void figure_or_unknown(const hw::Chip& c, const char* key) {
  SCOPED_TRACE(key);
  if (c.has(key)) {
    EXPECT_GT(c.get(key), 0);
    return;
  }
  ASSERT_TRUE(c.unknown(key)) << "neither a figure nor a stated unknown";
  InputError e = sb::test::thrown([&] { c.get(key, "chip"); });
  EXPECT_EQ(e.field, "chip");
  EXPECT_EQ(e.code, "no_figure");
  EXPECT_NE(std::string(e.what()).find(c.name + "'s"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("is not known"), std::string::npos) << e.what();
}

TEST(Hardware, EveryChipHasWhatTheRooflineNeeds) {
  for (const hw::Chip& c : hw::chips()) {
    SCOPED_TRACE(c.id);
    EXPECT_GT(c.peak("bf16"), 0);
    figure_or_unknown(c, "hbm_bw");
    figure_or_unknown(c, "hbm_bytes");
    // Every TPU has the link figures the network rooflines divide by, or states them unknown.
    if (c.kind == "tpu") {
      for (const char* k :
           {"ici_bw_oneway", "pcie_bw", "dcn_bw", "peak_flops_int8", "cores_per_chip"})
        figure_or_unknown(c, k);
    }
  }
}

TEST(Hardware, TpuV2StatesItsHbmBandwidthUnknown) {
  const hw::Chip& v2 = hw::chip("TPU v2");
  // 2 TensorCores x 23e12 (Part 9) = 4.6e13 per chip; its link 1.2e11 both ways, 6e10 one way.
  EXPECT_DOUBLE_EQ(v2.peak("bf16"), 2 * 23e12);
  EXPECT_DOUBLE_EQ(v2.get("ici_bw_oneway"), 1.2e11 / 2);
  EXPECT_FALSE(v2.has("hbm_bw"));
  EXPECT_TRUE(v2.unknown("hbm_bw"));
  // Asked by a field of its own name, the error says to enter it.
  InputError e = sb::test::thrown([&] { v2.get("hbm_bw", "hbm_bw"); });
  EXPECT_EQ(e.field, "hbm_bw");
  EXPECT_EQ(std::string(e.what()).rfind("TPU v2's HBM bandwidth is not known", 0), 0u) << e.what();
  EXPECT_NE(std::string(e.what()).find("enter it"), std::string::npos);
  // The int8 peak is stated unknown too: peak() says so rather than "gives no".
  InputError i8 = sb::test::thrown([&] { v2.peak("int8", "dtype_compute"); });
  EXPECT_EQ(i8.field, "dtype_compute");
  EXPECT_NE(std::string(i8.what()).find("is not known"), std::string::npos) << i8.what();
  // chips_json writes a stated unknown as null, with its note. (The tables are held by name: a
  // range-for over a member of the temporary would read freed memory.)
  const auto tables = hw::chips_json();
  for (const auto& c : tables["chips"])
    if (c["id"] == "v2") {
      EXPECT_TRUE(c["specs"]["hbm_bw"]["value"].is_null());
      EXPECT_FALSE(c["specs"]["hbm_bw"]["note"].get<std::string>().empty());
    }
}

TEST(Hardware, ChipsJsonCarriesTheWholeTable) {
  const sb::json j = hw::chips_json();
  ASSERT_TRUE(j["chips"].is_array());
  EXPECT_EQ(j["chips"].size(), hw::chips().size());
  const sb::json* v5e = nullptr;
  for (const auto& c : j["chips"])
    if (c["id"] == "v5e") v5e = &c;
  ASSERT_NE(v5e, nullptr);
  EXPECT_EQ((*v5e)["name"], "TPU v5e");
  EXPECT_EQ((*v5e)["kind"], "tpu");
  EXPECT_TRUE((*v5e)["aliases"].is_array());
  const sb::json& bf16 = (*v5e)["specs"]["peak_flops_bf16"];
  EXPECT_DOUBLE_EQ(bf16["value"].get<double>(), 1.97e14);
  EXPECT_EQ(bf16["unit"], "flop_per_s");
  EXPECT_EQ(bf16["source"], "tpus.md spec table");
  EXPECT_TRUE(bf16.contains("note"));
  const sb::json& pod = (*v5e)["specs"]["max_pod"];
  EXPECT_EQ(pod["text"], "16x16");
  EXPECT_FALSE(pod.contains("value"));
  EXPECT_DOUBLE_EQ(j["dtypes"]["bf16"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["dtypes"]["int4"].get<double>(), 0.5);
}

}  // namespace
