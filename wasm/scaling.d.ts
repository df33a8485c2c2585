// Types for wasm/scaling.js (one module per chapter: scaling-<chapter>.mjs). The JSON contract is
// docs/API.md. `npm test` checks these types against real responses: tests/types/check.mjs captures
// the answer of every calculator and problem (and list, chips, units, check, variant, parse and
// errors) from the built modules, assigns each to the type below, and runs `tsc --noEmit`.

/** An id of the core's unit table (op `units`): "s", "B", "flop", "flop_per_s", "B_per_s",
 *  "flop_per_B", "tokens", "count", "params" (a parameter count: "70.55B"), "ratio", ... */
export type UnitId = string;

export interface ApiError {
  code: string;
  message: string;
  /** The input the reader must fix ("B", "inputs.B", "answers.b_crit", "request"), or "". */
  field: string;
}
export interface Failure {
  ok: false;
  error: ApiError;
}
export type Ok<T> = T & { ok: true };
export type Response<T> = Ok<T> | Failure;

/** A number may be sent in base units or as text with a unit ("45 GB/s"). */
export type InputValue = number | string | boolean;
export type Inputs = Record<string, InputValue>;

/** A calculator's or problem's input, from the registry's schema. */
export interface Param {
  name: string;
  doc: string;
  kind: 'number' | 'text' | 'choice';
  default: number | string;
  /** The default as the core writes it ("512 tokens"); number params. */
  default_text?: string;
  unit?: UnitId;
  min?: number;
  max?: number;
  integer?: boolean;
  /** choice params. */
  choices?: string[];
  /** Each choice in words, in the order of `choices`, where a chapter supplies them (the model
   * input: "LLaMA 3 70B" for "llama-3-70b"). */
  labels?: string[];
  /** A long text (a pasted log): up to `max_bytes` (16 MiB) of UTF-8; not echoed in `inputs`. */
  long_text?: boolean;
  max_bytes?: number;
  /** The param is the page's chip: it follows the page-wide chip choice. */
  chip?: boolean;
  /** Problem givens: the chip spec the value states ("hbm_bw"); a variant takes all of a problem's
   * specs from one real chip. */
  chip_spec?: string;
}

/** A computed quantity. */
export interface Value {
  value: number;
  unit: UnitId;
  label: string;
  /** The value as the core writes it ("705.9 µs"). */
  text: string;
}

/** A step of a derivation; a step with only `what` is a sentence. */
export interface Step {
  what: string;
  /** TeX */
  formula?: string;
  /** TeX, the numbers substituted */
  numbers?: string;
  value?: number;
  unit?: UnitId;
  text?: string;
  /** The formula record's expression over the book's symbols (formula-check's grammar). */
  expr?: string;
  /** Each symbol of `expr` at full precision, in SI base units. */
  values?: Record<string, number>;
  /** The book's section the formula comes from, or "beyond the book: <source>". */
  section?: string;
}

/** A chapter record (chapters/<id>/chapter.json). */
export interface ChapterRecord {
  /** The folder name, a C++ namespace ("applied_training"). */
  id: string;
  /** The catalogue prefix of its problem ids and calculator names ("applied-training"). */
  prefix: string;
  /** The book's Part number, 1-12. */
  part: number;
  title: string;
  /** The book's slug of the chapter's page. */
  slug: string;
  /** The chapters whose model this chapter calls. */
  bases: string[];
}

export interface CalculatorInfo {
  name: string;
  /** The chapter id (folder name). */
  chapter: string;
  title: string;
  doc: string;
  params: Param[];
  /** A search whose work grows with its inputs: a page runs it in a Web Worker (web/lib/core.js). */
  heavy?: true;
}
export type ProblemKind = 'numeric' | 'formula' | 'conceptual' | 'code';
export interface ProblemInfo {
  id: string;
  chapter: string;
  title: string;
  kind: ProblemKind;
}
export interface ListResult {
  /** A module: its own chapter's record only; natively, every chapter in part order. */
  chapters: ChapterRecord[];
  calculators: CalculatorInfo[];
  problems: ProblemInfo[];
}

/** What every calculator answers. */
export interface CalcBase<N extends string = string> {
  name: N;
  /** The inputs as resolved (defaults filled in, text parsed). */
  inputs: Record<string, number | string>;
  values: Record<string, Value>;
  verdict?: string;
  notes: string[];
  trace: Step[];
}

/** A calculator with no members beyond CalcBase. */
export type NoPayload = Record<never, never>;

/** A point of a roofline plot: an intensity (FLOPs/byte) and the FLOPs/s attained there. */
export interface RooflinePoint {
  intensity: number;
  flops_per_s: number;
}

/** A roofline as the module draws it: each roof's attainable FLOPs/s over the plot's intensities, the
 *  ridge and the operation's point (lib/plot.js rooflinePlot). */
export interface RooflinePlot {
  peak: number;
  bw: number;
  ridge: number;
  point: RooflinePoint;
  fraction_of_peak: number;
  ridge_point: RooflinePoint;
  intensity: number[];
  roofs: {
    name: string;
    bw: number;
    ridge: number;
    flops_per_s: number[];
  }[];
  /** roofline.matmul: which memory the operands stream from. */
  memory?: string;
}

/** Which blocks of each array every device of the mesh holds (the sharding chapter's pictures). */
export interface ShardingBlocks {
  mesh: {
    names: string[];
    sizes: number[];
  };
  devices: number;
  coords: number[][];
  arrays: {
    label: string;
    text: string;
    dims: {
      name: string;
      axes: string[];
      size: number;
      blocks: number;
    }[];
    holds: number[][];
    unreduced: string[];
    replication: number;
  }[];
}

/** A device mesh: its axes' names and sizes, and as the chapter writes it. */
export interface ShardingMesh {
  names: string[];
  sizes: number[];
  text: string;
}

/** A figure a model card publishes beside the one the chapter's formulas compute from its config. */
export interface PublishedFigure {
  what: string;
  value: number;
  text: string;
  source: string;
  computed: number;
  computed_over_published: number;
}

/** A torus: each axis's size and whether it wraps around. */
export interface TorusShape {
  dims: number[];
  wrap: boolean[];
}

/** A layer's forward or backward pass in seconds: the math, each comms term and their max. */
export interface TrainingPhase {
  math: number;
  fsdp: number;
  tp: number;
  dp: number;
  dcn: number;
  hbm: number;
  ep: number;
  comms: number;
  compute_bound: boolean;
}

/** Bytes per chip by what they hold, their total, and the chip's HBM they must fit in. */
export interface PlanMemory {
  weights: number;
  grads: number;
  optimizer: number;
  activations: number;
  total: number;
  hbm: number;
}

/** A training step in seconds: the whole, and each part as the page's timeline draws it. */
export interface PlanTimeline {
  step: number;
  compute: number;
  hbm: number;
  fsdp: number;
  tp: number;
  ep: number;
  dp: number;
  dcn: number;
  hop: number;
  bubble: number;
  overlap: number;
}

/** A layout the training planner costed: its axes, memory, step time and why it won or lost. */
export interface TrainingPlanRow {
  strategy: string;
  X: number;
  Y: number;
  Z: number;
  m: number;
  x: string;
  y: string;
  z: string;
  M_X: number;
  M_Y: number;
  ep_degree: number;
  remat: string;
  mem: number;
  memory: PlanMemory;
  fits: boolean;
  t_step: number;
  mfu: number;
  comms_ratio: number;
  bottleneck: string;
  compute_bound: boolean;
  reason: string;
  why: string;
  timeline: PlanTimeline;
  /** A TPU slice's shape ("16x20x28"), or a GPU cluster's nodes ("128 nodes of 8 GPUs"). */
  slice: string;
}

/** A layout applied-training costs: the chapter's recipe, or (with Z and m) the planner's pick. */
export interface AppliedTrainingCost {
  strategy: string;
  X: number;
  Y: number;
  M_X: number;
  M_Y: number;
  idle: number;
  remat: string;
  mem: number;
  fits: boolean;
  t_step: number;
  mfu: number;
  compute_bound: boolean;
  bottleneck: string;
}

/** A transformer's configuration in full, every field set (chapters/transformers Config). */
export interface ModelConfig {
  L: number;
  D: number;
  F: number;
  N: number;
  K: number;
  H: number;
  V: number;
  gated: boolean;
  tied: boolean;
  norms_per_layer: number;
  final_norm: boolean;
  qk_norm: boolean;
  qkv_bias: boolean;
  o_bias: boolean;
  mlp_bias: boolean;
  attn_sinks: boolean;
  E: number;
  k: number;
  n_shared: number;
  F_e: number;
  n_dense: number;
  router_bias: boolean;
  mla: boolean;
  q_lora_rank: number;
  kv_lora_rank: number;
  qk_nope_head_dim: number;
  qk_rope_head_dim: number;
  v_head_dim: number;
  window: number;
  window_layers: number;
  mtp_layers: number;
}

/** The fields a models.json entry sets: these eleven in every entry, the rest where it has them. */
export type ModelEntryConfig = Partial<ModelConfig> &
  Pick<ModelConfig, 'L' | 'D' | 'F' | 'N' | 'K' | 'H' | 'V' | 'gated' | 'tied' | 'norms_per_layer' |
    'final_norm'>;

/** Each field of ModelEntryConfig with the config.json key it comes from. */
export type ModelEntryKeys = { [K in keyof ModelEntryConfig]: string };

/** The model a transformers calculator ran on: its config in full, id and name, conventions. */
export interface ChosenModelPayload {
  config: ModelConfig;
  model: { id: string; name: string };
  conventions: string[];
}

/** Each calculator's own members beside CalcBase: its plot, plan, table, ... `npm test` assigns
 *  every calculator's real response to CalcResult<its name> (tests/types/check.mjs), so a member the
 *  module adds, drops or reshapes fails the build until it is declared here; a calculator not
 *  listed may send nothing beyond CalcBase. `node tests/types/infer.mjs [prefix]` prints what the
 *  built modules send, to start from. */
export interface CalcPayloads {
  "gpus.chip": {
    table: {
      gpu: string;
      gpu_value: number;
      tpu: string;
      tpu_value: number | null;
      unit: string;
    }[];
    /** The two chips' names, the table's column heads. */
    gpu_name: string;
    tpu_name: string;
  };
  "gpus.network": NoPayload;
  "gpus.collective": {
    binds: string;
    tpu_slice: string;
  };
  "gpus.llm": {
    model: string;
  };
  "gpus.fit": {
    plot: {
      measured: number[][];
      fit: number[][];
      chapter?: number[][];
    };
    report: {
      source: string;
      /** null where the log does not say and no option gave it. */
      collective: string | null;
      ranks: number | null;
      gpus: string[];
      nodes: number | null;
      rows: {
        time_us: number | null;
        algbw_GBps: number | null;
        busbw_GBps: number | null;
        size_B: number;
        in_place?: {
          time_us: number;
          algbw_GBps: number;
          busbw_GBps: number;
        };
      }[];
      largest_busbw_GBps: number | null;
      avg_busbw_GBps: number | null;
      /** null when the log has fewer than two usable rows. */
      fit: null | {
        latency_s: number;
        bandwidth_Bps: number;
        convention: string;
        algbw_Bps: number;
        points: number;
        rms_rel_err: number;
        /** null with a `reason` where the GPU or the fabric is unknown. */
        line_rate_fraction: number | null;
        line_rate_Bps?: number | null;
        line_rate?: string;
        reason?: string;
      };
      warnings: string[];
      /** Lines the reader could not use, with why. */
      skipped: { line: number; reason: string }[];
      ranks_from: string;
    };
  };
  "profiling.hlo": {
    /** The HloModule line's name; "" for a pasted fragment. */
    module: string;
    /** Indices into `instructions` of the counted ops, the slowest first. */
    order: number[];
    /** The 200 slowest ops as texts, the header first (the CLI's plain table). */
    table: string[][];
    totals: {
      instructions: number;
      counted: number;
      skipped: number;
      computations: number;
      flops: number;
      traffic_bytes: number;
      collective_bytes: number;
      /** The sum of the counted ops' times: the predicted step. */
      step_s: number;
      ops_without_time: number;
    };
    instructions: {
      line: number;
      name: string;
      opcode: string;
      computation: string;
      dtype: string;
      shape: number[];
      bytes: number;
      /** false inside a fusion's or reducer's computation, and for an async pair's -done. */
      counted: boolean;
      padded_bytes?: number;
      padded_shape?: number[];
      memory_space?: number;
      /** null where the text does not say (a fusion whose computation is not pasted). */
      flops: number | null;
      traffic_bytes: number;
      kind?: string;
      calls?: string;
      collective?: string;
      payload_bytes?: number | null;
      /** null: empty replica_groups and no device count. */
      group_size?: number | null;
      pairs?: number;
      time_s: number | null;
      bound: string;
      t_math_s?: number;
      t_hbm_s?: number;
      notes?: string[];
    }[];
    skipped: { line: number; reason: string }[];
  };
  "profiling.tiling": {
    padded_shape: number[];
    memory_space: number;
    /** 2-D arrays up to 32 x 32 padded: each element's place in memory. */
    order?: { rows: number; cols: number; offsets: number[][] };
  };
  "profiling.worked": {
    ops: {
      op: string;
      shapes: string;
      predicted_s: number;
      bound: string;
      reported_s: number | null;
      efficiency: number | null;
    }[];
  };
  "inference.step": {
    bars: {
      T_kv: number;
      T_param: number;
      T_flops: number;
      T_step: number;
      /** a GPU slice's AllReduces per step (in T_step); absent on a TPU or one GPU */
      T_comms?: number;
    };
    memory: {
      weights: number;
      kv: number;
      hbm: number;
    };
    quantization: {
      dtype_w: string;
      b_crit: number;
    }[];
  };
  "inference.frontier": {
    points: {
      latency: number;
      tok_s_chip: number;
      cost: number;
      B: number;
      B_max: number;
      chips: number;
      shape: string;
      dtype: string;
      dtype_w: string;
      share_kv: number;
      pareto: boolean;
      full: boolean;
    }[];
  };
  "inference.plan": {
    options: {
      dtype: string;
      shape: string;
      chips: number;
      B: number;
      B_max: number;
      tpot: number;
      ttft: number;
      replicas: number;
      prefill_servers: number;
      chips_total: number;
      chip_hours_per_m: number;
      cost_per_m: number;
      why: string;
      fits: boolean;
      meets: boolean;
      best: boolean;
    }[];
    met: boolean;
  };
  "inference.sharding": NoPayload;
  "inference.moe": {
    mesh: {
      DP: number;
      TP: number;
      experts_per_chip: number;
      lines: string[];
    };
  };
  "inference.engine": NoPayload;
  "applied-training.case": {
    days: number;
    /** What the mesh lies on: a TPU pod's torus, or a GPU cluster's NVLink nodes and fat tree. */
    machine: "tpu" | "gpu";
    convention: {
      flops: string;
      flops_book: string;
      batch: string;
    };
  };
  "applied-training.plan": {
    book: AppliedTrainingCost;
    plan: AppliedTrainingCost & { Z: number; m: number };
    fits: boolean;
  };
  "applied-inference.kv": {
    /** The smallest slice's shape ("4x4"); "" when no slice of the pod holds them. */
    shape: string;
  };
  "applied-inference.slices": {
    /** bf16, int8 and int4 weights and caches, each on its slice at the largest batch that fits. */
    rows: {
      dtype: string;
      fits: boolean;
      bytes_w: number;
      kv_tok: number;
      chips_raw: number;
      chips: number;
      shape: string;
      hbm_left: number;
      B_max: number;
      B_crit: number;
      T_kv: number;
      T_param: number;
      T_flops: number;
      T_step: number;
      seq_s: number;
      qps_chip: number;
      tok_s_chip: number;
      cost_per_m: number;
    }[];
  };
  "applied-inference.servers": NoPayload;
  "applied-inference.cost": {
    /** Every chip of the tables with a price: its bf16 FLOPs per dollar. */
    chips: { chip: string; flops_per_usd: number; price: number }[];
  };
  "jax-stuff.jit": {
    collective: string;
    /** In, W and Out: the book's notation, the Explicit-mode type, global and per-device shape. */
    arrays: {
      name: string;
      notation: string;
      type: string;
      global: number[];
      local: number[];
      bytes: number;
    }[];
    plan: string;
  };
  "jax-stuff.shard_map": {
    /** Each device's result, devices in mesh order (the last axis fastest). */
    devices: number[][];
    mesh: {
      names: string[];
      sizes: number[];
    };
    out: number[];
    varies: string[];
  };
  "jax-stuff.collective_matmul": {
    wrap: boolean;
    timeline: {
      steps: {
        start: number;
        compute: number;
        permute: number;
        length: number;
      }[];
      t_cm: number;
      naive: {
        collective: number;
        matmul: number;
        total: number;
      };
    };
  };
  "roofline.matmul": {
    plot: RooflinePlot;
  };
  "roofline.network": {
    plot: RooflinePlot;
  };
  "roofline.tiled": NoPayload;
  "roofline.roofs": {
    plot: RooflinePlot;
  };
  "roofline.batch": {
    plot: {
      peak: number;
      batch: number[];
      curves: {
        d: number;
        f: number;
        b_crit?: number;
        flops_per_s: number[];
      }[];
    };
  };
  "roofline.dot": NoPayload;
  "sharding.matmul": {
    case: number;
    cases: number[];
    case_text: string;
    contracting: string;
    /** Case 4: the axes both operands shard their contracting dimension over. */
    conflicts: string[];
    mesh: ShardingMesh;
    wrap: {
      X: boolean;
      Y: boolean;
    };
    a: string;
    b: string;
    output_sharding: string;
    plan: {
      name: string;
      steps: {
        kind: string;
        array: string;
        when: string;
        axes: string[];
        from: string;
        to: string;
        label: string;
        flops: number;
      }[];
      output: string;
      flops_per_chip: number;
      t_math: number;
      t_comms: number;
      t_total: number;
      t_overlapped: number;
      bytes_per_chip: number;
      operand_bytes_per_chip: {
        A: number;
        B: number;
      };
      verdict: string;
    };
    alternatives: never[];
    blocks: ShardingBlocks;
  };
  "sharding.collective": {
    regime: string;
    op: string;
    wrap: {
      X: boolean;
    };
    plot: {
      x: number[];
      t: number[];
      t_bw: number[];
      t_lat: number[];
      knee: number;
      point: {
        bytes: number;
        t: number;
      };
      x_unit: string;
      y_unit: string;
    };
  };
  "sharding.ring": {
    ring: {
      n: number;
      op: string;
      bidirectional: boolean;
      steps: number[][][];
      load: number[][];
      sent: number[][];
      held: number[][][];
    };
    curve: {
      n: number[];
      allgather: number[];
      alltoall: number[];
      allgather_book: number[];
      alltoall_book: number[];
    };
  };
  "sharding.strategies": {
    phase: {
      b: number[];
      d: number[];
      cells: number[][];
      b_star: number;
      d_star: number;
      d_x: number;
      point: {
        b: number;
        d: number;
        winner: number;
      };
    };
  };
  "sharding.local": {
    shape: {
      dim: string;
      global: number;
      local: number;
      shards: number;
    }[];
    sharding: string;
    mesh: ShardingMesh;
    blocks: ShardingBlocks;
  };
  "tpus.inventory": {
    table: string[][];
    torus: TorusShape;
  };
  "tpus.topology": {
    hops_per_axis: number[];
    wrap: boolean[];
    path: number[][];
    neighbours: number[][];
    torus: TorusShape & {
      path: number[][];
      from: number[];
      to: number[];
    };
  };
  "tpus.transfer": {
    stages: {
      name: string;
      kind: string;
      amount: number;
      rate: number;
      latency: number;
      seconds: number;
      start_serial: number;
      text: string;
    }[];
    bottleneck: {
      index: number;
      name: string;
      kind: string;
    };
    t_serial: number;
    t_overlapped: number;
    hops: number;
  };
  "tpus.mxu": {
    padded?: {
      M: number;
      K: number;
      N: number;
    };
  };
  "tpus.ladder": {
    ladder: {
      key: string;
      name: string;
      bw: number;
      seconds: number;
      faster_than_next?: number;
    }[];
    bytes: number;
  };
  "tpus.decode": NoPayload;
  "training.strategy": {
    strategy: string;
    layer: {
      L: number;
      D: number;
      F: number;
      n_mats: number;
    };
    sharded: {
      weights: string;
      activations: string;
    };
    collectives: {
      phase: string;
      op: string;
      array: string;
      axis: string;
      bytes: number;
      t: number;
      critical: boolean;
      t_text: string;
      bytes_text: string;
    }[];
    conditions: {
      text: string;
      unit: string;
      lhs: number;
      rhs: number;
      upper: boolean;
      holds: boolean;
      lhs_text: string;
      rhs_text: string;
    }[];
    fwd: TrainingPhase;
    bwd: TrainingPhase;
    remat: string;
    memory: PlanMemory;
    timeline: PlanTimeline;
    strategies: {
      strategy: string;
      X?: number;
      Y?: number;
      fwd?: TrainingPhase;
      bwd?: TrainingPhase;
      step?: number;
      mfu?: number;
      mem?: number;
      fits?: boolean;
      compute_bound?: boolean;
      remat?: string;
      per_chip_batch?: number;
      bubble?: number;
      error?: string;
      field?: string;
    }[];
  };
  "training.split": {
    plot: {
      x: number[];
      fsdp: number[];
      tp: number[];
      math: number[];
      layout: boolean[];
      x_opt: number;
      lo: number;
      hi: number;
      X: number;
      Y: number;
      used: number;
      idle: number;
    };
  };
  "training.plan": {
    fits: boolean;
    chip_counts: number[];
    best: TrainingPlanRow;
    plans: TrainingPlanRow[];
    searched: {
      configs: number;
      full: number;
      micro_step: number;
      cut: boolean;
      text: string;
    };
  };
  "training.versus": {
    /** The GPU column first, then the TPU's: each the planner's best plan on its chip. */
    columns: {
      chip: string;
      name: string;
      kind: string;
      chips: number;
      /** "128 nodes of 8 GPUs" for a GPU cluster, the slice's shape ("4x16x16") for a TPU. */
      where: string;
      hbm: number;
      fits: boolean;
      verdict: string;
      /** Why the GPUs asked for became the nearest whole nodes ("" when they are whole). */
      snapped: string;
      best: TrainingPlanRow;
    }[];
  };
  "training.regime": {
    map: {
      chips: number[];
      batch_per_chip: number[];
      cells: number[];
      bits: {
        DP: number;
        FSDP: number;
        TP: number;
        "FSDP+TP": number;
        DCN: number;
        multi_pod: number;
        EP: number;
      };
      remat: string[];
      point: {
        chips: number;
        batch_per_chip: number;
      };
    };
  };
  "transformers.accounting": ChosenModelPayload & {
    breakdown: {
      params: {
        key: string;
        label: string;
        total: number;
        active: number;
      }[];
      flops: {
        key: string;
        label: string;
        per_token: number;
      }[];
    };
    published: PublishedFigure[];
  };
  "transformers.context": ChosenModelPayload & {
    curve: {
      T: number[];
      ratio: number[];
      intensity_prefill: number[];
      intensity_decode: number[];
      time_ratio: number[];
    };
    markers: {
      T: number;
      crossover: number;
      crossover_8d: number;
      ratio_at_8d: number;
      i_hw: number;
      min_T_prefill: number;
    };
  };
  "transformers.kv_cache": ChosenModelPayload & {
    curve: {
      S: number[];
      bytes: number[];
    };
  };
  "transformers.activations": ChosenModelPayload & {
    bars: {
      key: string;
      label: string;
      bytes: number;
    }[];
    policies: {
      policy: string;
      arrays: number;
      bytes: number;
      flops_per_param_token: number;
    }[];
    hbm: number;
  };
  "transformers.models": {
    models: {
      id: string;
      name: string;
      config_source: string;
      config: ModelEntryConfig;
      config_keys: ModelEntryKeys;
      nominal: number;
      nominal_text: string;
      params_total: number;
      params_active: number;
      params_embedding: number;
      kv_bytes_per_token: number;
      kv_bytes_per_token_at_T: number;
      flops_per_token: number;
      flops_6p: number;
      crossover: number;
      published: PublishedFigure[];
      conventions: string[];
      notes: string[];
      total_over_nominal?: number;
      params_mtp?: number;
    }[];
    /** The rows as the CLI prints them (`scaling models`): texts, the header first. */
    table: string[][];
  };
  "validation.runs": {
    /** The efficiency factors the expected figures use (fitted when `fit` is yes). */
    factors: { mxu_tpu: number; mxu_gpu: number; mxu_fp8: number; link: number; hbm: number; moe: number; vector: number };
    /** |expected / measured - 1| over the runs with a measured figure. */
    summary: { median: number; worst: number; worst_id: string };
    runs: ValidationRun[];
    /** The rows as `scaling validate` prints them: texts, the header first. */
    table: string[][];
  };
}

/** A run's figures at peak (bound) or at the factors (expected); `primary` is the measured one's. */
export interface ValidationFigures {
  primary: number;
  step_s?: number;
  tokens_per_s_chip?: number;
  mfu?: number;
  ttft_s?: number;
  tpot_s?: number;
  latency_s?: number;
  out_per_s_chip?: number;
}

/** One run of validation.runs: its prediction beside what its source measured. */
export interface ValidationRun {
  id: string;
  title: string;
  kind: "training" | "inference";
  family: "TPU" | "GPU";
  chip: string;
  chips: number;
  model: string;
  source: string;
  url: string;
  measured_key: string;
  unit: string;
  higher_is_better: boolean;
  bound: ValidationFigures;
  expected: ValidationFigures;
  measured: number | null;
  ratio: number | null;
  error: number | null;
  above_bound: boolean;
  mem_bytes: number;
  hbm_bytes: number;
  fits: boolean;
  bottleneck: string;
  /** The configuration as the scenario gives it (docs/VALIDATION.md). */
  config: {
    model: string; chip: string; chips: number; pods: number;
    /** Chips per pod: what the planner plans (its chips are per pod). */
    pod_chips: number;
    /** A custom model's sizes (model "custom"), as the planner and the step calculator take them. */
    sizes?: {
      L: number; D: number; F: number; N: number; K: number; H: number; V: number;
      E: number; k: number; F_e: number; n_shared: number; n_dense: number;
      gated: 'yes' | 'no'; tied: 'yes' | 'no'; norms: number;
    };
    data: number; fsdp: number; tensor: number; pipeline: number; expert: number; context: number;
    microbatches: number; virtual_stages: number; compute: string;
    attention_kernel: 'fused' | 'unfused' | 'cuda_cores';
    sequences?: number; seq_len?: number; remat?: string;
    phase?: string; prompt?: number; output?: number; batch?: number;
    /** The weights' and the KV cache's dtypes, as the scenario names them. */
    weights?: string; kv?: string;
    /** One data-parallel replica of an inference run: its chips and its share of the batch. */
    replica_chips?: number; replica_batch?: number;
    /** The decode steps' midway context, prompt + output / 2, in whole tokens (the step calculator's S). */
    step_context?: number;
    bytes_per_weight?: number; bytes_per_kv?: number;
  };
  notes: string[];
  /** Chip figures the scenario overrides, "name = value". */
  overridden: string[];
}

/** The answer of calculator N: CalcBase and its own payload. */
export type CalcResult<N extends string = string> = CalcBase<N> & (N extends keyof CalcPayloads ? CalcPayloads[N] : NoPayload);

/** An answer a reader gives. */
export interface Slot {
  name: string;
  unit: UnitId;
  label: string;
  kind: 'number' | 'formula' | 'bool';
  /** Relative tolerance of a number slot. */
  tol_rel: number;
  /** What the slot measures, which decides the mistakes a wrong answer is checked for. */
  quantity: 'flops' | 'bytes' | 'time' | 'bandwidth' | 'flop_rate' | 'intensity' | 'hops' | 'tokens'
    | 'count' | 'ratio' | 'bool' | 'money';
  /** What a time, rate or ratio is computed from. */
  from: 'none' | 'flops' | 'bytes' | 'link';
  /** A bound: the answer is at most (upper) or at least (lower) the expected value; the reader may
   * type the number or the inequality ("< 8", "at most 8"). */
  bound: 'none' | 'upper' | 'lower';
  /** The unit's symbol and an example of what to type ("4096 tokens"). */
  symbol: string;
  example: string;
  /** formula slots: the variables the formula may use. */
  vars?: { name: string; doc: string }[];
}

/** A problem's input with the value this instance uses. */
export interface GivenParam extends Param {
  value: number | string;
  text: string;
  /** "New variant" may change it. */
  variable: boolean;
}

/** A formula slot's answer. */
export interface TexAnswer {
  tex: string;
}

export interface ProblemResult {
  id: string;
  chapter: string;
  title: string;
  kind: ProblemKind;
  statement: string;
  /** Whether "new variant" has anything to change (false: the page offers none). */
  variable: boolean;
  given: GivenParam[];
  slots: Slot[];
  answers: Record<string, Value | TexAnswer>;
  trace: Step[];
  model_answer?: string;
  erratum?: string;
  hint?: string;
}

export type Verdict = 'correct' | 'close' | 'wrong' | 'invalid' | 'empty';
export interface SlotResult {
  slot: string;
  verdict: Verdict;
  /** The model's answer: `expected` for number and bool slots, its text for every slot. */
  expected?: number;
  expected_text: string;
  /** The reader's answer as read. */
  got?: number;
  got_text?: string;
  /** Which rule decided a number: the exact value, a shortcut the book takes, a prefix read as
   * binary, the digits typed, a known slip, a factor that fits the slot, close, wrong. */
  rule?: 'exact' | 'book' | 'binary' | 'digits' | 'slip' | 'factor' | 'close' | 'wrong';
  /** wrong or close: the likely mistake. */
  hint?: string;
  /** correct by a rule other than the exact value: which one, and the exact value. */
  note?: string;
  /** invalid: why the answer could not be read. */
  error?: ApiError;
}
export interface CheckResult {
  id: string;
  results: SlotResult[];
  trace: Step[];
  /** The problem's inputs as resolved. */
  inputs: Record<string, number | string>;
}

export interface VariantResult {
  id: string;
  /** New inputs: call `problem` or `check` with them. */
  given: Record<string, number | string>;
}

export interface ParseResult {
  /** In base units. */
  value: number;
  text: string;
}

/** A chip figure: a number with its unit, or a text (a torus shape), with its source. A figure
 * the book does not give may be stated unknown: value null, the note saying why (TPU v2's HBM
 * bandwidth). */
export interface Spec {
  value?: number | null;
  text?: string;
  unit: UnitId;
  /** A key of ChipsResult.sources. */
  source: string;
  note: string;
}
export interface Chip {
  id: string;
  name: string;
  kind: 'tpu' | 'gpu';
  aliases: string[];
  specs: Record<string, Spec>;
}
export interface ChipsResult {
  chips: Chip[];
  /** Bytes per element of each dtype ("bf16": 2). */
  dtypes: Record<string, number>;
  /** What each source named by a Spec is. */
  sources: Record<string, string>;
  /** Each spec key's name in words, in the order to show them. */
  labels?: Record<string, string>;
}

/** A unit of the core's table and how the core writes a value in it (docs/API.md). */
export interface UnitInfo {
  id: UnitId;
  symbol: string;
  example: string;
  prefixes: 'si' | 'none';
  before: string;
  after: string;
  /** Largest first: the first whose `at` |v| reaches writes before + number(v / scale) + after. */
  forms?: { scale: number; at: number; after: string }[];
  /** bool: the words for 0 and 1. */
  words?: [string, string];
  /** chips: how exactly 1 is written ("1 chip"). */
  one?: string;
}
export interface UnitsResult {
  units: UnitInfo[];
}

export interface Scaling {
  /** Sends any request object; the building block of the calls below. */
  request(req: object): Response<Record<string, unknown>>;
  list(): Response<ListResult>;
  chips(): Response<ChipsResult>;
  units(): Response<UnitsResult>;
  calc<N extends string>(name: N, inputs?: Inputs): Response<CalcResult<N>>;
  problem(id: string, given?: Inputs): Response<ProblemResult>;
  check(id: string, answers: Record<string, string>, given?: Inputs): Response<CheckResult>;
  variant(id: string, seed: number): Response<VariantResult>;
  parse(text: string, unit: UnitId): Response<ParseResult>;
}

/** What a module instance offers: its face, Module.api (never throws; JSON text in and out). */
export interface ScalingModule {
  api(text: string): string;
}

export interface LoadOptions {
  /** The chapter whose module to load ("roofline"): scaling-<chapter>.mjs beside scaling.js (or in
   *  build/wasm/bin under node). Each module holds the core and that one chapter's calculators. */
  chapter?: string;
  /** With `chapter`: its second module instead, scaling-<chapter>-problems.mjs (the core, the
   *  chapter's problems and the grader; where the chapter has heavy calculators, all its
   *  calculators too, the heavy ones with their code: a page's worker loads it for those). */
  problems?: boolean;
  /** With `chapter`: the module that computes its heavy calculators, the same one as `problems`
   *  (its first module answers them `not_in_module`). */
  heavy?: boolean;
  /** URL of a scaling-<chapter>.mjs, instead of `chapter`. */
  url?: string | URL;
  /** The .wasm bytes (node); read from beside the .mjs when omitted under node. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** A factory to use instead of importing one (tests). */
  factory?: (opts: object) => Promise<ScalingModule>;
  locateFile?: (path: string, prefix: string) => string;
}

/** Loads a chapter's module once (per chapter or URL) and caches it. A string or URL is the module's
 *  URL. Rejects when neither a chapter, a URL nor a factory is given, or the chapter name is not one. */
export function load(opts: string | URL | LoadOptions): Promise<Scaling>;
/** Wraps an object with `api(text) -> text`. */
export function wrap(mod: ScalingModule): Scaling;
export default load;
