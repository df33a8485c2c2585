// The site shell for the companion's own pages: registers every widget, fills each
// `[data-exercises="<chapter>"]` with one <sb-exercise> per problem of the chapter (from the
// catalogue, data/catalog.json), and on the home page shows the reader's progress per chapter.
// Chapter widgets (web/widgets/<chapter>.js) import this module first.
import { catalog, progressByChapter, problemsOf, h } from './core.js';
import './calc.js';
import './exercise.js';
import './chips.js';

async function fillExercises(section) {
  const chapter = section.dataset.exercises;
  const list = section.querySelector('.sb-exercise-list') || section;
  const present = new Set([...document.querySelectorAll('sb-exercise')].map((e) => e.getAttribute('problem')));
  const problems = await problemsOf(chapter);
  if (!problems.length) {
    list.append(h('p', { class: 'sb-muted' }, 'No exercises for this chapter yet.'));
    return;
  }
  for (const p of problems) {
    if (present.has(p.id)) continue;  // a chapter widget already shows this one
    list.append(h('sb-exercise', { problem: p.id, id: p.id }));
  }
  const count = section.querySelector('[data-exercise-count]');
  if (count) count.textContent = `${problems.length} problems`;
}

// One <sb-calc> per calculator of the chapter, except those a chapter widget already shows.
async function fillCalculators(section) {
  const chapter = section.dataset.calculators;
  const list = section.querySelector('.sb-calc-list') || section;
  const present = new Set([...document.querySelectorAll('sb-calc')].map((e) => e.getAttribute('name')));
  const { calculators } = await catalog();
  const mine = calculators.filter((c) => c.chapter === chapter && !present.has(c.name));
  if (!mine.length && !present.size) list.append(h('p', { class: 'sb-muted' }, 'No calculators for this chapter yet.'));
  for (const c of mine) list.append(h('sb-calc', { name: c.name }));
}

async function showProgress() {
  const els = document.querySelectorAll('[data-progress]');
  if (!els.length) return;
  const by = await progressByChapter();
  for (const el of els) {
    const p = by[el.dataset.progress];
    el.textContent = p ? `${p.solved} of ${p.total} solved` : '';
    el.classList.toggle('sb-all-solved', !!p && p.solved === p.total);
  }
}

// Marks the current page in the nav.
function markNav() {
  const here = location.pathname.split('/').pop() || 'index.html';
  for (const a of document.querySelectorAll('.sb-nav a')) {
    if (a.getAttribute('href') === here) a.setAttribute('aria-current', 'page');
  }
}

async function main() {
  markNav();
  try {
    await catalog();
  } catch (e) {
    const main = document.querySelector('main');
    main?.prepend(h('p', { class: 'sb-error' }, `The catalogue of calculators and exercises did not load: ${e.message}`));
    return;
  }
  await Promise.all([...document.querySelectorAll('[data-calculators]')].map(fillCalculators));
  await Promise.all([...document.querySelectorAll('[data-exercises]')].map(fillExercises));
  await showProgress();
  document.addEventListener('sb-progress', showProgress);
}

main();
