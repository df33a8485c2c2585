// Chapter widgets of the applied-training page (its content: chapters/applied_training/page.html);
// the site serves this file as widgets/applied_training.js. The page shell (exercises, the other
// calculators) comes from lib/page.js.
//
// <sb-case-study>: applied-training.case with its answers grouped as the chapter asks them
// (parameters and FLOPs, memory, how to shard), and under them the chapter's FSDP x TP recipe
// beside the training planner's best plan for the same inputs (applied-training.plan). Every
// number is the module's.
import '../lib/page.js';
import { SbCalc, compute, fmtQuantity, fmtNumber, fmtValue, h } from '../lib/widgets.js';

const GROUPS = [
  ['Counting parameters and FLOPs', ['params', 'active_params', 'mlp_params', 'attn_params', 'vocab_params', 'flops_per_token', 'flops_per_token_book',
    'total_flops', 'time_one_chip', 'chips', 'time', 'time_book']],
  ['Memory', ['param_bytes', 'optimizer_bytes', 'checkpoint_bytes', 'state_bytes', 'min_chips', 'time_on_min_chips', 'bytes_per_chip']],
  ['How to shard it', ['sequences', 'per_chip_batch', 'fsdp_threshold', 'fsdp_compute_bound', 'mixed_threshold', 'mixed_compute_bound', 'tp_limit', 'x_opt',
    'x_min', 'x_max', 'fsdp_degree', 'tp_degree', 'idle_chips', 'recipe_compute_bound', 'per_pod_batch', 'dcn_threshold']],
];

// The plan takes every input of the case but its checkpoint count (the planner picks the remat).
const NOT_PLAN_INPUTS = ['checkpoints_per_layer'];

function group(title, keys, values) {
  const rows = keys.filter((k) => values[k]).map((k) => {
    const v = values[k];
    return h('tr', { 'data-key': k }, h('th', { scope: 'row' }, v.label), h('td', {}, fmtValue(v)));
  });
  return h('section', { class: 'sb-case-group' }, h('h4', {}, title), h('table', { class: 'sb-results' }, h('tbody', {}, rows)));
}

function side(title, p, extraLines) {
  return h('section', { 'data-side': title },
    h('h4', {}, title),
    h('table', { class: 'sb-results' }, h('tbody', {},
      [['layout', extraLines], ['remat', p.remat], ['step-time bound', fmtQuantity(p.t_step, 's')], ['MFU bound', `${fmtNumber(100 * p.mfu, 3)}%`],
        ['memory per chip', `${fmtQuantity(p.mem, 'B')}${p.fits ? '' : ' (does not fit)'}`],
        ['compute-bound', p.compute_bound ? 'yes' : `no (${p.bottleneck || 'comms'})`]]
        .map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v))))));
}

function comparison(p) {
  return [p.ok
    ? h('div', { class: 'sb-train-compare', 'data-verdict': p.verdict },
      side('The chapter\u2019s recipe', p.book, `${fmtNumber(p.book.X, 5)}-way FSDP x ${fmtNumber(p.book.Y, 5)}-way TP (M_X ${fmtNumber(p.book.M_X, 3)}, M_Y ${fmtNumber(p.book.M_Y, 3)})` +
        (p.book.idle > 0 ? `, ${fmtNumber(p.book.idle, 6)} chips idle` : '')),
      side('The planner\u2019s plan', p.plan, `${p.plan.strategy}: X ${p.plan.X} x Y ${p.plan.Y}${p.plan.Z > 1 ? ` x Z ${p.plan.Z}` : ''}`))
    : h('p', { class: 'sb-error' }, p.error.message),
  p.ok ? h('p', { class: 'sb-muted sb-small sb-case-plan-verdict' }, `${p.verdict}. At its step-time bound the planner\u2019s plan takes ` +
    `${fmtNumber(p.values.plan_days.value, 3)} days for the tokens (an MFU near its bound, not the MFU above).`) : null];
}

// The case's answers at once; the planner's plan (a search: in a worker, lib/core.js compute) when
// it arrives, the last one staying until then.
function drawCase(r, extra, calc) {
  const v = r.values;
  const inputs = Object.fromEntries(Object.entries(calc.inputs()).filter(([k]) => !NOT_PLAN_INPUTS.includes(k)));
  calc.planBox ??= h('div', { class: 'sb-case-plan', 'aria-live': 'polite' });
  extra.replaceChildren(
    h('div', { class: 'sb-case-groups' }, GROUPS.map(([t, keys]) => group(t, keys, v))),
    h('h4', {}, 'The chapter\u2019s recipe beside the planner\u2019s'),
    h('p', { class: 'sb-muted sb-small' }, (r.machine === 'gpu'
      ? 'On a GPU cluster the recipe keeps TP on NVLink inside a node (the largest degree under F / alpha) and FSDP over the rest; M_X and M_Y ' +
        'are each group\u2019s bandwidth over NVLink\u2019s. The planner tries every split of the nodes and the cluster (pipelining too)'
      : 'The chapter rounds X_opt to a split of the pod and puts FSDP on two axes and TP on one. The planner tries every split of the pod\u2019s axes ' +
        '(pipelining too)') + ' and keeps the fastest plan that fits; among equally fast ones, the simplest with the most comms headroom.'),
    calc.planBox);
  const seq = (calc.planSeq = (calc.planSeq || 0) + 1);
  calc.planBox.setAttribute('aria-busy', 'true');
  compute('applied-training.plan', inputs).then((p) => {
    if (seq !== calc.planSeq) return;
    calc.planBox.removeAttribute('aria-busy');
    calc.planBox.replaceChildren(...comparison(p).filter(Boolean));
  });
}
SbCalc.addRenderer('applied-training.case', drawCase);

class SbCaseStudy extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.replaceChildren(
      h('p', {}, 'LLaMA 3-70B trains on 15 trillion tokens with a batch of 4M tokens (4 x 2^20) in sequences of 4096, at 40% MFU. How many ' +
        'FLOPs, how long on a pod, how much memory, and how to shard it so that it stays compute-bound? The FLOPs count 6 per matmul ' +
        'weight a token uses (for a mixture of experts, the experts it is routed to); the chapter\u2019s exercises count 6 per parameter, ' +
        'shown beside it. The batch here reads 4M as 4 x 2^20 tokens; the memory exercises below read it as 4e6.'),
      h('sb-calc', { name: 'applied-training.case' }));
  }
}

if (!customElements.get('sb-case-study')) customElements.define('sb-case-study', SbCaseStudy);
