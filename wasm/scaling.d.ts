// Types for wasm/scaling.js (one module per chapter: scaling-<chapter>.mjs). The JSON contract is docs/API.md.

export type UnitId =
  | 's' | 'B' | 'flop' | 'flop_per_s' | 'B_per_s' | 'flop_per_B' | 'tokens' | 'tokens_per_s'
  | 'per_s' | 'count' | 'ratio' | 'chips' | 'usd' | 'usd_per_hour' | 'bool' | string;

export interface ApiError { code: string; message: string; field: string; }
export interface Failure { ok: false; error: ApiError; }
export type Response<T> = (T & { ok: true }) | Failure;

/** A number may be sent in base units or as text with a unit ("45 GB/s"). */
export type InputValue = number | string | boolean;
export type Inputs = Record<string, InputValue>;

export interface Param {
  name: string;
  kind: 'number' | 'text' | 'choice';
  unit?: UnitId;
  doc?: string;
  default?: number | string;
  min?: number;
  max?: number;
  integer?: boolean;
  choices?: string[];
}

export interface Value { value: number; unit: UnitId; label?: string; text?: string; }

export interface Step {
  what: string;
  formula?: string;   // TeX
  numbers?: string;   // TeX
  value?: number;
  unit?: UnitId;
  text?: string;
}

export interface CalculatorInfo { name: string; chapter: string; title: string; doc: string; params: Param[]; }
export interface ProblemInfo { id: string; chapter: string; title: string; kind: string; }
export interface ListResult { calculators: CalculatorInfo[]; problems: ProblemInfo[]; }

export interface CalcResult {
  name: string;
  inputs: Record<string, unknown>;
  values: Record<string, Value>;
  verdict?: string;
  notes?: string[];
  plot?: unknown;
  table?: unknown;
  trace: Step[];
  [extra: string]: unknown;
}

export interface Slot {
  name: string;
  unit: UnitId;
  kind: 'number' | 'formula' | 'bool';
  label: string;
  tol_rel?: number;
  vars?: { name: string; doc: string }[];
}

export interface GivenParam extends Param { value: number | string; text: string; }

export interface ProblemResult {
  id: string;
  chapter: string;
  title: string;
  kind: string;
  statement: string;
  given: GivenParam[];
  slots: Slot[];
  answers: Record<string, number | { tex: string }>;
  trace: Step[];
  model_answer?: string;
  erratum?: string;
  hint?: string;
}

export type Verdict = 'correct' | 'close' | 'wrong' | 'invalid' | 'empty';
export interface SlotResult {
  slot: string;
  verdict: Verdict;
  hint?: string;
  expected?: number;
  expected_text?: string;
  got?: number;
  error?: ApiError;
}
export interface CheckResult { id: string; results: SlotResult[]; trace: Step[]; inputs?: Record<string, unknown>; }

export interface Spec { value?: number; text?: string; unit?: UnitId; source?: string; note?: string; }
export interface Chip { id: string; name: string; kind: 'tpu' | 'gpu' | string; aliases: string[]; specs: Record<string, Spec>; }
export interface ChipsResult { chips: Chip[]; dtypes: unknown; }

export interface Scaling {
  /** Sends any request object; the building block of the calls below. */
  request(req: object): Response<Record<string, unknown>>;
  list(): Response<ListResult>;
  chips(): Response<ChipsResult>;
  calc(name: string, inputs?: Inputs): Response<CalcResult>;
  problem(id: string, given?: Inputs): Response<ProblemResult>;
  check(id: string, answers: Record<string, string>, given?: Inputs): Response<CheckResult>;
  variant(id: string, seed: number): Response<{ given: Inputs }>;
  parse(text: string, unit: UnitId): Response<{ value: number; text: string }>;
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
  factory?: (opts: object) => Promise<{ api(text: string): string }>;
  locateFile?: (path: string, prefix: string) => string;
}

/** Loads a chapter's module once (per chapter or URL) and caches it. A string or URL is the module's
 *  URL. Rejects when neither a chapter, a URL nor a factory is given, or the chapter name is not one. */
export function load(opts: string | URL | LoadOptions): Promise<Scaling>;
/** Wraps an object with `api(text) -> text`. */
export function wrap(mod: { api(text: string): string }): Scaling;
export default load;
