// One script tag for a foreign page (e.g. a chapter of the book):
//   <script type="module" src="https://…/lib/embed.js"></script>
//   <sb-calc name="roofline.matmul"></sb-calc>  <sb-exercise problem="roofline.Q2"></sb-exercise>
// Brings the widgets and their stylesheets; each element loads the wasm module of its chapter
// (from its calculator name or problem id) on first use, once per page.
import { ensureWidgetStyles } from './core.js';
import './calc.js';
import './exercise.js';
import './chips.js';

ensureWidgetStyles();
