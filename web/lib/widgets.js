// The widget library in one import, for chapter widgets:
//   import { SbCalc, rooflinePlot, h, scaling, ... } from '../lib/widgets.js';
export * from './core.js';
export * from './format.js';
export * from './plot.js';
export { SbCalc } from './calc.js';
export { SbExercise } from './exercise.js';
export { SbChipPicker, SbChipTable, specLabel } from './chips.js';
