// Chapter widgets of the jax-stuff page (its content: chapters/jax_stuff/page.html); the site serves
// this file as widgets/jax_stuff.js. Every number shown is the module's: this file only lays out
// the arrays of jax-stuff.jit, the devices of jax-stuff.shard_map and the timeline of
// jax-stuff.collective_matmul.
import '../lib/page.js';
import { SbCalc, fmtQuantity, fmtNumber, h } from '../lib/widgets.js';

function table(caption, head, rows) {
  return h('div', { class: 'sb-table-scroll' }, h('table', { class: 'sb-jax-table' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, head.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows)));
}

const dims = (xs) => `[${xs.map((x) => fmtNumber(x, 12)).join(', ')}]`;

function drawJit(r, extra) {
  const rows = r.arrays.map((a) => h('tr', {},
    h('th', { scope: 'row' }, a.notation), h('td', {}, h('code', {}, a.type)),
    h('td', {}, dims(a.global)), h('td', {}, dims(a.local)), h('td', {}, fmtQuantity(a.bytes, 'B'))));
  extra.replaceChildren(
    table(`Each device's blocks; XLA adds: ${r.collective === 'none' ? 'no collective' : r.collective}`,
      ['array', 'type (Explicit mode)', 'global', 'per device', 'bytes per device'], rows));
}
SbCalc.addRenderer('jax-stuff.jit', drawJit);

function drawShardMap(r, extra) {
  const { names, sizes } = r.mesh;
  const coords = (d) => {
    const c = [];
    for (let k = sizes.length - 1; k >= 0; k -= 1) { c.unshift(d % sizes[k]); d = Math.floor(d / sizes[k]); }
    return names.map((n, k) => `${n}=${c[k]}`).join(', ');
  };
  const rows = r.devices.slice(0, 64).map((vals, d) => h('tr', {},
    h('th', { scope: 'row' }, `device ${d} (${coords(d)})`),
    h('td', {}, `[${vals.slice(0, 8).map((v) => fmtNumber(v, 6)).join(', ')}${vals.length > 8 ? ', \u2026' : ''}]`)));
  extra.replaceChildren(table('What each device returns', ['device', 'its result'], rows),
    h('p', {}, `The global result (${r.out.length} elements): [${r.out.slice(0, 16).map((v) => fmtNumber(v, 6)).join(', ')}${r.out.length > 16 ? ', \u2026' : ''}]`));
}
SbCalc.addRenderer('jax-stuff.shard_map', drawShardMap);

// One bar per step: the matmul above, the ppermute below, drawn to the time of the longer total.
function bar(label, parts, scale) {
  return h('div', { class: 'sb-jax-lane' }, h('span', { class: 'sb-jax-lane-label' }, label),
    h('div', { class: 'sb-jax-track' }, parts.map(([start, len, cls, title, repeat]) => h('span', {
      class: `sb-jax-seg ${cls}${repeat ? ' sb-jax-stripes' : ''}`, title,
      style: `left:${(100 * start) / scale}%;width:${Math.max(0.4, (100 * len) / scale)}%` +
        (repeat ? `;--on:${(100 * repeat.on) / repeat.period}%;background-size:${100 / repeat.count}% 100%` : ''),
    }))));
}

// Past this many steps a bar would be under a few pixels: each lane is drawn as one bar of at most
// this many stripes, a stripe for k steps coloured for their total time, so that a ring of 1024
// devices costs the page three elements, not 2047.
const MAX_STEPS = 64;

function drawTimeline(r, extra) {
  const t = r.timeline;
  const scale = Math.max(t.t_cm, t.naive.total);
  const sends = t.steps.filter((s) => s.permute > 0);
  const k = Math.ceil(t.steps.length / MAX_STEPS);  // steps a stripe stands for
  let comp, perm;
  if (k > 1) {
    // Every step but the last lasts as long: the longer of its matmul and its ppermute.
    const period = (t.steps[1].start - t.steps[0].start) * k;
    const lane = (first, n, each, cls, title) => {
      const count = Math.ceil(n / k);
      const on = Math.min(period, Math.max(each * k, 0.004 * scale));  // a bar's least width
      return [[first, period * count, cls, title, { period, on, count }]];
    };
    comp = lane(0, t.steps.length, t.steps[0].compute, 'sb-jax-compute',
      `${t.steps.length} matmuls of ${fmtQuantity(t.steps[0].compute, 's')} each`);
    perm = sends.length ? lane(sends[0].start, sends.length, sends[0].permute, 'sb-jax-permute',
      `${sends.length} ppermutes of ${fmtQuantity(sends[0].permute, 's')} each`) : [];
  } else {
    comp = t.steps.map((s, i) => [s.start, s.compute, 'sb-jax-compute', `step ${i + 1}: matmul ${fmtQuantity(s.compute, 's')}`]);
    perm = sends.map((s) => [s.start, s.permute, 'sb-jax-permute', `ppermute ${fmtQuantity(s.permute, 's')}`]);
  }
  const naive = [[0, t.naive.collective, 'sb-jax-permute', `collective ${fmtQuantity(t.naive.collective, 's')}`],
    [t.naive.collective, t.naive.matmul, 'sb-jax-compute', `matmul ${fmtQuantity(t.naive.matmul, 's')}`]];
  extra.replaceChildren(h('figure', { class: 'sb-jax-timeline' },
    bar('matmuls', comp, scale), bar('ppermutes', perm, scale), bar('not overlapped', naive, scale),
    h('figcaption', {}, `Overlapped: ${fmtQuantity(t.t_cm, 's')} in ${t.steps.length} steps; not overlapped: ` +
      `${fmtQuantity(t.naive.total, 's')}. Blue: matmul; orange: communication.` +
      (k > 1 ? ` Each stripe stands for ${k} steps, coloured for their total.` : ''))));
}
SbCalc.addRenderer('jax-stuff.collective_matmul', drawTimeline);
