// Types for wasm/scaling.js (one module per chapter: scaling-<chapter>.mjs). The JSON contract is
// docs/API.md. `npm test` checks these types against real responses: tests/types/check.mjs captures
// the answer of every calculator and problem (and list, chips, units, check, variant, parse and
// errors) from the built modules, assigns each to the type below, and runs `tsc --noEmit`.

/** An id of the core's unit table (op `units`): "s", "B", "flop", "flop_per_s", "B_per_s",
 *  "flop_per_B", "tokens", "count", "ratio", ... */
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

export interface CalcResult {
  name: string;
  /** The inputs as resolved (defaults filled in, text parsed). */
  inputs: Record<string, number | string>;
  values: Record<string, Value>;
  verdict?: string;
  notes: string[];
  trace: Step[];
  /** Plot data of the calculators that draw one (roofline.matmul, roofline.network, ...). */
  plot?: unknown;
  /** Rows of texts: [label, text] (tpus.inventory), or a header and one row per item (a command's
   * table, transformers.models). */
  table?: string[][];
  /** Calculator-specific members (sharding.matmul's plan, tpus.topology's torus, ...). */
  [extra: string]: unknown;
}

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

/** A chip figure: a number with its unit, or a text (a torus shape), with its source. */
export interface Spec {
  value?: number;
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
  calc(name: string, inputs?: Inputs): Response<CalcResult>;
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
   *  build/wasm/bin under node). Each module holds the core and that one chapter. */
  chapter?: string;
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
