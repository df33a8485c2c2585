// Plots on uPlot for chapter widgets: log-log lines and points, and the roofline.
//   const p = logLogPlot(el, {xLabel, yLabel, xs, series: [{label, ys, stroke, points: true}]})
//   const r = rooflinePlot(el, {plot: response.plot, label})  (a roofline calculator's response)
//   r.update({...same options}); r.destroy()
import { fmtNumber, fmtQuantity, unitHasPrefixes } from './format.js';
import { ensureWidgetStyles, yieldToMain } from './core.js';

// uPlot loads with the first plot, in a task of its own: evaluating it sets up the browser's date
// formatting (Intl.DateTimeFormat, 30 to 100 ms on first use here), which as a static import fell
// in the task that evaluates the page's modules.
let uPlot = null;
let uPlotLoading = null;
function loadUPlot() {
  uPlotLoading ??= import('../vendor/uplot/uPlot.esm.js').then((m) => { uPlot = m.default; });
  return uPlotLoading;
}

const COLORS = ['#1f5fbf', '#15803d', '#7e22ce', '#0e7490', '#b45309', '#be185d'];

// Tick labels: with a prefix where the unit takes one ("10 GB"); a plain number ("1e14") otherwise,
// the unit being in the axis label.
function axisValues(unit) {
  const text = unitHasPrefixes(unit) ? (v) => fmtQuantity(v, unit, 3) : (v) => fmtNumber(v, 3);
  return (u, splits) => splits.map((v) => (v == null ? '' : text(v)));
}

// uPlot's own log filter would blank some of the ticks chosen above.
const keepAll = (u, splits) => splits;

// Ticks of a log axis: powers of ten (every k-th one, so labels of about `px` pixels do not
// collide), with 2 and 5 in between when the axis spans two decades or less.
function logSplits(px, vertical) {
  return (u, axisIdx, min, max) => {
    if (!(min > 0) || !(max > min)) return [];
    const length = vertical ? u.bbox.height / devicePixelRatio : u.bbox.width / devicePixelRatio;
    const lo = Math.floor(Math.log10(min)), hi = Math.ceil(Math.log10(max));
    const inside = (v) => v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9);
    const out = [];
    if (hi - lo <= 2) {
      for (let e = lo; e <= hi; e++) for (const m of [1, 2, 5]) { const v = Number(`${m}e${e}`); if (inside(v)) out.push(v); }
      return out;
    }
    const step = Math.max(1, Math.ceil((hi - lo) / Math.max(2, Math.floor(length / px))));
    for (let e = Math.ceil(lo / step) * step; e <= hi; e += step) { const v = Number(`1e${e}`); if (inside(v)) out.push(v); }
    return out;
  };
}

// The plot's width as its resize observer last measured it; before the first report, the last
// width any plot had. Never read from the page here: clientWidth while a page is being built forces
// a layout of everything above the plot (on the training page, a quarter of a second in one task).
let lastWidth = 600;
function sizeOf(el, height, width = el.sbPlotWidth) {
  const w = Math.max(280, Math.floor(width || lastWidth));
  return { width: w, height };
}

// A log-log plot. series: [{label, ys (aligned with xs; null for no point), stroke, points (dots
// only, no line), width, dash}]. Units format the axes (fmtQuantity).
export function logLogPlot(el, opts) {
  ensureWidgetStyles();
  const height = opts.height || 320;
  const build = (o) => ({
    ...sizeOf(el, height),
    title: o.title || '',
    // Room on the right for the last tick label, centred on the plot's edge.
    padding: [null, 36, null, null],
    // time: false, or uPlot treats x as a date axis and its log ticks come out unlabelled.
    scales: { x: { time: false, distr: 3, log: 10 }, y: { distr: 3, log: 10 } },
    axes: [
      { label: o.xLabel || '', values: axisValues(o.xUnit), splits: logSplits(80, false), filter: keepAll, size: 44, labelSize: 22 },
      { label: o.yLabel || '', values: axisValues(o.yUnit), splits: logSplits(34, true), filter: keepAll, size: 96, labelSize: 22, labelGap: 4 },
    ],
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: o.xLabel || 'x', value: (u, v) => (v == null ? '' : fmtQuantity(v, o.xUnit)) },
      ...o.series.map((s, i) => ({
        label: s.label,
        stroke: s.stroke || COLORS[i % COLORS.length],
        width: s.width ?? (s.points ? 0 : 2),
        dash: s.dash,
        spanGaps: !s.points,
        paths: s.points ? () => null : undefined,
        points: s.points ? { show: true, size: s.size || 10, fill: s.stroke || COLORS[i % COLORS.length] } : { show: false },
        value: (u, v) => (v == null ? '' : fmtQuantity(v, o.yUnit)),
      })),
    ],
  });
  const data = (o) => [o.xs, ...o.series.map((s) => s.ys)];
  let current = opts;
  let plot = null;
  let gone = false;
  label(el, opts);
  // The first drawing waits for uPlot and for the page's own layout of the plot's box (the resize
  // observer's first report; a box never laid out, hidden, after a moment all the same), then comes
  // in a task of its own: built into a box already laid out, uPlot's measures of it cost no layout
  // of the page. Meanwhile the box is busy and keeps the plot's height, so the page does not move.
  el.setAttribute('aria-busy', 'true');
  el.style.minHeight = `${height}px`;
  let laidOut = () => {};
  const measured = new Promise((resolve) => { laidOut = resolve; setTimeout(resolve, 250); });
  const ro = typeof ResizeObserver !== 'undefined'
    ? new ResizeObserver(([entry]) => {
      const w = Math.floor(entry.contentRect.width);
      laidOut();
      if (!w || w === el.sbPlotWidth) return;
      el.sbPlotWidth = lastWidth = w;
      plot?.setSize(sizeOf(el, height));
    }) : null;
  ro?.observe(el);
  Promise.all([loadUPlot(), measured]).then(yieldToMain).then(() => {
    if (gone) return;
    plot = new uPlot(build(current), data(current), el);
    el.removeAttribute('aria-busy');
    el.style.minHeight = '';
    label(el, current);
  }, (e) => {
    el.removeAttribute('aria-busy');
    el.style.minHeight = '';
    el.textContent = `The plot could not load: ${e.message}`;
  });
  return {
    // null until the first drawing.
    get uplot() { return plot; },
    // New data; rebuilds the plot when the series themselves change.
    update(o) {
      const same = o.series.length === current.series.length && o.series.every((s, i) => s.label === current.series[i].label);
      current = o;
      if (plot && same) plot.setData(data(o));
      else if (plot) { plot.destroy(); plot = new uPlot(build(o), data(o), el); }
      label(el, o);
    },
    destroy() { gone = true; ro?.disconnect(); plot?.destroy(); },
  };
}

// A plot's name for a screen reader: its own `label`, else what it draws ("attainable FLOPs/s
// against arithmetic intensity: v5e roof, ridge, this operation"); the canvas is an image of it.
function label(el, o) {
  const text = o.ariaLabel || `${o.title ? `${o.title}: ` : ''}${o.yLabel || 'y'} against ${o.xLabel || 'x'} (log-log): ${o.series.map((s) => s.label).join(', ')}`;
  el.setAttribute('role', 'img');
  el.setAttribute('aria-label', text);
  for (const c of el.querySelectorAll('canvas')) c.setAttribute('aria-hidden', 'true');
}

// The series of a roofline as the module draws it (a roofline calculator's `plot`): each roof's
// attainable FLOPs/s over the plot's intensities, the ridge point and the operation as points.
// Nothing is computed here: a point is shown at the grid intensity equal to its own.
function rooflineSeries(o) {
  const p = o.plot;
  const xs = p.intensity;
  const mark = (pt) => xs.map((x) => (x === pt.intensity ? pt.flops_per_s : null));
  const series = p.roofs.map((r, i) => ({ label: `${r.name} roof`, ys: r.flops_per_s, stroke: COLORS[i % COLORS.length] }));
  series.push({ label: `ridge (${fmtQuantity(p.ridge_point.intensity, 'flop_per_B')})`, ys: mark(p.ridge_point), points: true, stroke: '#6b7280', size: 8 });
  if (p.point) series.push({ label: o.label || 'this operation', ys: mark(p.point), points: true, stroke: '#c2410c', size: 12 });
  return { xs, series, xLabel: 'arithmetic intensity (FLOPs/B)', yLabel: 'attainable FLOPs/s', xUnit: 'flop_per_B', yUnit: 'flop_per_s', height: o.height, title: o.title };
}

// The roofline plot of a roofline calculator's response: rooflinePlot(el, {plot, label, height}).
export function rooflinePlot(el, opts) {
  const p = logLogPlot(el, rooflineSeries(opts));
  return { get uplot() { return p.uplot; }, update: (o) => p.update(rooflineSeries(o)), destroy: () => p.destroy() };
}
