// What each widget of a chapter page shows, for the browser tests that open pages in many states
// (chips.test.mjs, urlstate.test.mjs). Two kinds of widget:
// - <sb-calc>: its last response (ok or an error), and whether it greys out what it showed;
// - a chapter widget marks its state on itself: data-sb-state="ok" | "error", its message in an
//   element .sb-widget-error, its output in elements .sb-widget-out (greyed while it is .sb-stale).

// Waits until every calculator has answered, every chapter widget has drawn and nothing on the
// page is busy: a calculator is aria-busy from a keystroke (its debounce) or a search in a worker
// until its answer is shown, as is a widget's box waiting on a worker. Then one frame more, for
// what a widget draws on the answer's event.
export async function settled(page) {
  await page.waitForFunction(() => {
    const calcs = [...document.querySelectorAll('sb-calc')];
    const widgets = [...document.querySelectorAll('[data-sb-widget]')];
    if (document.readyState !== 'complete') return false;
    if (document.querySelector('[aria-busy="true"]')) return false;
    return calcs.every((c) => c.response) && widgets.every((w) => w.dataset.sbState);
  }, null, { timeout: 60000 });  // a worker instantiates its own module first
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
}

// [{name, state: 'ok' | 'error', message, greyed, output}] for every widget of the page.
export async function widgetStates(page) {
  return page.evaluate(() => {
    const visible = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const dim = (el) => {
      for (let e = el; e; e = e.parentElement) if (Number(getComputedStyle(e).opacity) < 0.9) return true;
      return false;
    };
    // Everything that shows a result is dimmed (or there is none).
    const allDim = (els) => els.filter(visible).every(dim);
    const out = [];
    for (const c of document.querySelectorAll('sb-calc')) {
      const r = c.response;
      const name = `sb-calc ${c.getAttribute('name')}${c.id ? '#' + c.id : ''}`;
      if (!r) { out.push({ name, state: 'error', message: 'no response', greyed: false }); continue; }
      const shown = [...c.querySelectorAll('.sb-results, .sb-verdict, .sb-notes, .sb-calc-extra > *')];
      if (r.ok) {
        const rows = c.querySelectorAll('.sb-results tr[data-key]').length;
        out.push({ name, state: rows && !c.classList.contains('sb-stale') ? 'ok' : 'error',
          message: rows ? '' : 'ok but no values shown', greyed: false, output: rows });
        continue;
      }
      // The error is where the reader sees it: next to its field, or above the results.
      const shownError = [...c.querySelectorAll('.sb-field-error, .sb-form-error')].filter(visible).map((e) => e.textContent).join(' ');
      out.push({ name, state: 'error', message: shownError, greyed: c.classList.contains('sb-stale') && allDim(shown) });
    }
    for (const w of document.querySelectorAll('[data-sb-widget]')) {
      const name = `${w.tagName.toLowerCase()}${w.id ? '#' + w.id : ''}`;
      const message = [...w.querySelectorAll('.sb-widget-error')].filter(visible).map((e) => e.textContent).join(' ');
      const outputs = [...w.querySelectorAll('.sb-widget-out')].filter((o) => !o.closest('sb-calc'));
      const output = outputs.filter(visible).some((o) => o.textContent.trim() || o.querySelector('svg, canvas'));
      out.push({ name, state: w.dataset.sbState === 'ok' && output ? 'ok' : 'error',
        message: w.dataset.sbState === 'ok' && !output ? 'ok but no output shown' : message,
        greyed: w.classList.contains('sb-stale') && allDim(outputs), output });
    }
    return out;
  });
}
