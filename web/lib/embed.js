// One script tag for a foreign page (e.g. a chapter of the book):
//   <script type="module" src="https://…/lib/embed.js"></script>
//   <sb-calc name="roofline.matmul"></sb-calc>  <sb-exercise problem="roofline.Q2"></sb-exercise>
// Brings the widgets and their stylesheets; the wasm module is loaded once on first use.
import { ensureWidgetStyles } from './core.js';
import './calc.js';
import './exercise.js';
import './chips.js';

ensureWidgetStyles();
