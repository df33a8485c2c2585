// <sb-exercise problem="roofline.Q2">: a worked problem with an input per answer slot, grading by
// the core (`check`), per-slot verdicts and hints, the derivation, and "new variant" (new inputs,
// answers recomputed by the model). State in the URL: `<id>.seed` and `<id>.<slot>`.
// Fires 'sb-checked' (detail {id, response}) after each check.
import {
  problems, chapterOf, widgetState, widgetKey, h, fieldName, markSolved, isSolved,
  ensureWidgetStyles, widgetTurn,
} from './core.js';
import { derivationToggle, fmtValue, loadUnits } from './format.js';

const VERDICT_TEXT = {
  correct: 'Correct', close: 'Close, but outside the tolerance', wrong: 'Not right',
  invalid: 'Cannot read this answer', empty: 'No answer given',
};

export class SbExercise extends HTMLElement {
  get problemId() { return this.getAttribute('problem') || ''; }
  get key() { return widgetKey(this, this.problemId); }

  async connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    this.classList.add('sb-widget', 'sb-exercise');
    this.replaceChildren(h('p', { class: 'sb-muted' }, `Loading ${this.problemId}…`));
    try {
      const chapter = await chapterOf(this.problemId);
      if (!chapter) throw new Error(`no chapter has the prefix of "${this.problemId}"`);
      [this.sb] = await Promise.all([problems(chapter), loadUnits()]);
      await widgetTurn();  // each widget of the page in a task of its own, in turn
      this.state = widgetState(this, this.key);
      const saved = this.state.all();
      const seed = saved.seed && /^\d+$/.test(saved.seed) ? Number(saved.seed) : null;
      this.load(seed, saved);
    } catch (e) {
      this.replaceChildren(h('p', { class: 'sb-error' }, `Exercise ${this.problemId} could not load: ${e.message}`));
    }
  }

  // Fetches the problem (the book's inputs, or a variant's) and builds the widget.
  load(seed, savedAnswers = {}) {
    let given;
    if (seed !== null) {
      const v = this.sb.variant(this.problemId, seed);
      if (v.ok) given = v.given;
      else if (v.error.code === 'no_variant') seed = null; // a link's seed for a problem that no longer varies: the book's values
      else return this.fail(v.error);
    }
    const p = this.sb.problem(this.problemId, given);
    if (!p.ok) return this.fail(p.error);
    this.seed = seed;
    this.given = given;
    this.problem = p;
    this.lastCheck = null;
    this.render(savedAnswers);
  }

  fail(error) {
    this.replaceChildren(h('p', { class: 'sb-error' }, `Exercise ${this.problemId}: ${error.message}`));
  }

  render(saved) {
    const p = this.problem;
    this.slots = new Map();
    const head = h('header', { class: 'sb-widget-head' },
      h('h3', {}, h('span', { class: 'sb-pid' }, p.id), ' ', p.title),
      h('span', { class: 'sb-solved-badge', hidden: !isSolved(p.id) }, '✓ done'));
    const parts = [head, h('p', { class: 'sb-statement' }, this.statement(p))];
    if (p.given && p.given.length) {
      parts.push(h('details', { class: 'sb-given', open: true },
        h('summary', {}, this.seed !== null ? `Given (variant ${this.seed})` : 'Given (the book’s values)'),
        h('dl', {}, p.given.map((g) => [
          // The reader's label; the given's name (what `scaling check --given` takes) as a tooltip.
          h('dt', { title: g.name, 'data-name': g.name }, g.doc || g.name),
          h('dd', { 'data-given': g.name }, g.text || fmtValue(g)),
        ]))));
    }
    // The book's own figures where they differ from its formulas: a rounding, an earlier printing,
    // now and then a slip. Labelled as a note; the text says which.
    if (p.erratum) parts.push(h('aside', { class: 'sb-erratum' }, h('strong', {}, "About the book's figures: "), p.erratum));

    const actions = h('div', { class: 'sb-actions' });
    if (p.slots && p.slots.length) {
      const form = h('form', { class: 'sb-form sb-slots', onsubmit: (e) => { e.preventDefault(); this.check(); } });
      for (const s of p.slots) form.append(this.slotField(s, saved[s.name]));
      parts.push(form);
      actions.append(h('button', { type: 'button', class: 'sb-btn sb-primary', 'data-action': 'check', onclick: () => this.check() }, 'Check'));
    } else {
      const answer = h('div', { class: 'sb-model-answer', hidden: true }, h('strong', {}, 'A model answer: '), p.model_answer || 'This question has no short answer here.');
      parts.push(answer);
      // A question with nothing to grade counts as done once its model answer has been read.
      actions.append(h('button', { type: 'button', class: 'sb-btn sb-primary', 'data-action': 'reveal', onclick: (e) => {
        answer.hidden = !answer.hidden;
        e.currentTarget.textContent = answer.hidden ? 'Reveal the answer' : 'Hide the answer';
        if (!answer.hidden) this.done();
      } }, 'Reveal the answer'));
    }
    if (p.hint) {
      const hint = h('p', { class: 'sb-hint', hidden: true }, p.hint);
      actions.append(h('button', { type: 'button', class: 'sb-btn', 'data-action': 'hint', onclick: () => { hint.hidden = false; } }, 'Hint'));
      parts.push(hint);
    }
    if (p.variable) {
      actions.append(h('button', { type: 'button', class: 'sb-btn', 'data-action': 'variant', onclick: () => this.newVariant() }, 'New variant'));
      if (this.seed !== null) actions.append(h('button', { type: 'button', class: 'sb-btn', 'data-action': 'book', onclick: () => this.bookValues() }, 'Book values'));
    }
    this.summary = h('p', { class: 'sb-summary', 'aria-live': 'polite' });
    parts.push(actions, this.summary);
    this.derivation = derivationToggle(() => this.lastCheck?.trace || this.problem.trace);
    if (p.slots && p.slots.length) parts.push(this.derivation);
    this.replaceChildren(...parts);
    if (Object.entries(saved).some(([k, v]) => k !== 'seed' && v)) this.check();
  }

  // The statement with {name} placeholders replaced by the given values (as text nodes).
  statement(p) {
    const text = p.statement || '';
    const byName = new Map((p.given || []).map((g) => [g.name, g.text || fmtValue(g)]));
    const out = [];
    let last = 0;
    for (const m of text.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      if (!byName.has(m[1])) continue;
      out.push(text.slice(last, m.index), h('span', { class: 'sb-given-value' }, byName.get(m[1])));
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }

  slotField(s, saved) {
    const id = `${this.key}--${s.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
    let input;
    if (s.kind === 'bool') {
      input = h('select', { id, name: s.name },
        h('option', { value: '' }, '—'), h('option', { value: 'yes' }, 'yes'), h('option', { value: 'no' }, 'no'));
      if (saved === 'yes' || saved === 'no') input.value = saved;
    } else {
      input = h('input', {
        id, name: s.name, type: 'text', autocomplete: 'off', spellcheck: 'false',
        inputmode: s.kind === 'number' ? 'decimal' : 'text',
        placeholder: s.kind === 'formula' ? `an expression in ${(s.vars || []).map((v) => v.name).join(', ')}` : (s.example || ''),
      });
      if (saved) input.value = saved;
    }
    const verdict = h('span', { class: 'sb-slot-verdict', 'aria-live': 'polite' });
    const error = h('span', { class: 'sb-field-error', role: 'alert', id: `${id}--err` });
    const hint = h('span', { class: 'sb-slot-hint' });
    input.setAttribute('aria-describedby', error.id);
    input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', () => {
      this.state.set(s.name, input.value);
      verdict.textContent = ''; verdict.className = 'sb-slot-verdict'; error.textContent = ''; hint.textContent = '';
      input.removeAttribute('aria-invalid');
    });
    this.slots.set(s.name, { slot: s, input, verdict, error, hint });
    const unit = s.kind === 'number' && s.symbol ? h('span', { class: 'sb-unit' }, s.symbol) : null;
    const vars = s.kind === 'formula' && s.vars?.length
      ? h('ul', { class: 'sb-vars' }, s.vars.map((v) => h('li', {}, h('code', {}, v.name), ' ', v.doc || '')))
      : null;
    return h('div', { class: 'sb-field', 'data-slot': s.name },
      h('label', { for: id }, s.label || s.name),
      h('div', { class: 'sb-input' }, input, unit, verdict), vars, error, hint);
  }

  answers() {
    const out = {};
    for (const [name, f] of this.slots) {
      const v = f.input.value.trim();
      if (v !== '') out[name] = v;
    }
    return out;
  }

  check() {
    const r = this.sb.check(this.problemId, this.answers(), this.given);
    for (const f of this.slots.values()) {
      f.verdict.textContent = ''; f.verdict.className = 'sb-slot-verdict'; f.error.textContent = ''; f.hint.textContent = '';
      f.input.removeAttribute('aria-invalid');
    }
    if (!r.ok) {
      const f = this.slots.get(fieldName(r.error.field));
      if (f) { f.error.textContent = r.error.message; f.input.setAttribute('aria-invalid', 'true'); }
      this.summary.textContent = r.error.message;
      this.summary.className = 'sb-summary sb-error';
      return r;
    }
    this.lastCheck = r;
    let correct = 0;
    for (const res of r.results) {
      const f = this.slots.get(res.slot);
      if (!f) continue;
      f.verdict.textContent = VERDICT_TEXT[res.verdict] || res.verdict;
      f.verdict.className = `sb-slot-verdict sb-${res.verdict}`;
      f.verdict.dataset.verdict = res.verdict;
      if (res.error) { f.error.textContent = res.error.message; f.input.setAttribute('aria-invalid', 'true'); }
      // A wrong answer's likely mistake, or why an answer other than the exact value counts (the
      // book's rounding, its GB for GiB), with the exact value: what the CLI prints.
      f.hint.textContent = res.hint || res.note || '';
      f.hint.classList.toggle('sb-slot-note', !res.hint && !!res.note);
      if (res.verdict === 'correct') correct += 1;
    }
    const total = this.slots.size;
    this.summary.className = 'sb-summary';
    this.summary.textContent = `${correct} of ${total} correct.`;
    if (total > 0 && correct === total) {
      this.done();
      this.summary.textContent = total === 1 ? 'Correct: done.' : `All ${total} correct: done.`;
    }
    this.derivation.refresh();
    this.dispatchEvent(new CustomEvent('sb-checked', { bubbles: true, detail: { id: this.problemId, response: r } }));
    return r;
  }

  // Counts the exercise in the reader's progress (home page) and shows the badge.
  done() {
    markSolved(this.problemId);
    this.querySelector('.sb-solved-badge')?.removeAttribute('hidden');
  }

  // A fresh draw: a seed whose givens differ from the ones on screen (a few tries), so that the
  // button never shows the same numbers twice in a row.
  newVariant() {
    const now = JSON.stringify(this.problem?.given?.map((g) => g.value));
    let seed = 0;
    for (let i = 0; i < 8; i++) {
      seed = 1 + Math.floor(Math.random() * 999999);
      const v = this.sb.variant(this.problemId, seed);
      if (!v.ok) break;
      const p = this.sb.problem(this.problemId, v.given);
      if (!p.ok || JSON.stringify(p.given.map((g) => g.value)) !== now) break;
    }
    this.state.clear();
    this.state.set('seed', seed);
    this.load(seed);
  }

  bookValues() {
    this.state.clear();
    this.load(null);
  }
}

if (!customElements.get('sb-exercise')) customElements.define('sb-exercise', SbExercise);
