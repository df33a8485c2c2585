// Chapter widgets of the roofline page (its content: chapters/roofline/page.html); the site serves
// this file as widgets/roofline.js. The page shell (calculators and one exercise per problem) comes
// from lib/page.js; chapter widgets are defined below it and fill the page's
// <section data-widget=...> slots. See web/README.md.
//
// <sb-roofline>: the roofline explorer. The generic matmul calculator (roofline.matmul) with a
// log-log roofline under it: the chip's roof for the chosen memory (HBM or VMEM) and its ridge,
// the other memory's roof when the chip has one, and the matmul as a point that moves with the
// inputs. Below it the tiled-matmul, dot-product and two-chip network calculators, the last with
// its own roofline over the link. Everything drawn comes from the module's `plot` object.
import '../lib/page.js';
import { SbCalc, rooflinePlot, fmtQuantity, h } from '../lib/widgets.js';

// The roofline of roofline.matmul: the roofs, ridge and point are the module's (response.plot).
function drawMatmul(r, extra, calc) {
  const p = r.plot;
  if (!p) return;
  const caption =
    `Intensity ${fmtQuantity(p.point.intensity, 'flop_per_B')} against a ridge of ` +
    `${fmtQuantity(p.ridge, 'flop_per_B')} (${p.memory}): the matmul runs at ` +
    `${fmtQuantity(p.point.flops_per_s, 'flop_per_s')}, ${(100 * p.fraction_of_peak).toPrecision(3)}% of the peak. ` +
    'Left of the ridge the bandwidth sets the pace; right of it the MXU does.';
  drawInto(calc, extra, { plot: p, label: 'this matmul', height: 340 }, caption);
}

// The two-chip network roofline: the link's roof, the per-chip intensity D/2 as the point.
function drawNetwork(r, extra, calc) {
  const p = r.plot;
  if (!p) return;
  const caption =
    `Per chip the sharded matmul does D/2 = ${fmtQuantity(p.point.intensity, 'flop_per_B')} of work ` +
    `per byte sent; the link's ridge is ${fmtQuantity(p.ridge, 'flop_per_B')}. The batch cancels out.`;
  drawInto(calc, extra, { plot: p, label: 'per-chip D/2', height: 300 }, caption);
}

// One plot per calculator element, created on the first result and updated after that.
function drawInto(calc, extra, opts, caption) {
  if (!calc.rooflineView) {
    const text = h('p', { class: 'sb-muted sb-small sb-roofline-caption' });
    const box = h('div', { class: 'sb-roofline-plot' });
    extra.append(text, box);
    calc.rooflineView = { text, box, plot: rooflinePlot(box, opts) };
  } else {
    calc.rooflineView.plot.update(opts);
  }
  calc.rooflineView.text.textContent = caption;
}

SbCalc.addRenderer('roofline.matmul', drawMatmul);
SbCalc.addRenderer('roofline.network', drawNetwork);

class SbRoofline extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    // Built synchronously, so that the page shell sees these calculators and does not repeat them.
    this.replaceChildren(
      h('p', {}, 'Pick a chip, the element types of each operand and the shape of ',
        h('code', {}, 'X[B,D] · W[D,F]'),
        '. The point on the plot is the matmul; it sits on the slanted roof while memory is the ' +
        'bottleneck and on the flat roof once the batch passes the critical batch.'),
      h('sb-calc', { name: 'roofline.matmul' }),
      h('h3', { class: 'sb-roofline-more' }, 'Other operations'),
      h('p', { class: 'sb-muted' }, 'Tiling caps the intensity at roughly bm·bn/(bm+bn); a dot ' +
        'product never passes 1/b whatever its length; sharding a matmul along D over two chips ' +
        'puts a network link in place of HBM.'),
      h('sb-calc', { name: 'roofline.tiled' }),
      h('sb-calc', { name: 'roofline.dot' }),
      h('sb-calc', { name: 'roofline.network' }),
    );
  }
}

if (!customElements.get('sb-roofline')) customElements.define('sb-roofline', SbRoofline);
