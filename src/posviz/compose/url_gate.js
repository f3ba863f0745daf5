// posviz: the URL writes a browser accepts. Panel's live Location pushes a history
// entry per slider value and the preview (export/frames.js) replaces; WebKit and
// Safari refuse a page more than 100 writes in 10 s with a SecurityError, which
// would stop the script that wrote, Panel's or posviz's. Once guarded, a write
// that stays on the same document:
// - lands at once if none landed in the last GAP ms, else when GAP has passed,
//   and only the latest of the writes meanwhile lands;
// - replaces the current entry even when pushed: a drag is one place in the
//   history, not 56 (Panel listens to no popstate, so the back button could not
//   have set the sliders anyway);
// - when refused, is tried again after RETRY ms, or a later write takes its turn;
// - still waiting when the page is hidden (a link followed), is written then.
// A write that leaves the document passes straight through.
// page_script.js imports it and guards the page; tests/js/url_gate.test.mjs imports it too.
const GAP = 250;
const RETRY = 2000;

function systemClock(win) {
  return {
    now: () => win.performance.now(),
    later: (run, ms) => win.setTimeout(run, ms),
    cancel: (timer) => win.clearTimeout(timer),
  };
}

// Guard `win.history` once; returns the gate's counts and its waiting URL.
function guard(win, clock = systemClock(win)) {
  const history = win.history;
  if (history.posvizGate) return history.posvizGate;
  const native = {pushState: history.pushState, replaceState: history.replaceState};
  const gate = {writes: 0, refused: 0, merged: 0, waiting: () => (waiting ? waiting[2] : null)};
  let waiting = null;
  let timer = null;
  let landed = -Infinity;

  function land() {
    timer = null;
    if (!waiting) return;
    const args = waiting;
    waiting = null;
    try {
      native.replaceState.apply(history, args);
      landed = clock.now();
      gate.writes += 1;
    } catch (error) {
      if (error?.name !== "SecurityError") throw error;
      gate.refused += 1;
      win.console.warn(`posviz: the browser refused a URL write (${error.message}); trying again`);
      waiting = args; // unless a later write comes first: it takes this one's place
      timer = clock.later(land, RETRY);
    }
  }

  function sameDocument(url) {
    if (url === undefined || url === null) return true;
    const next = new URL(String(url), win.location.href);
    return next.origin === win.location.origin && next.pathname === win.location.pathname;
  }

  function guarded(name) {
    return function write(...args) {
      const [data, unused, url] = args;
      if (!sameDocument(url)) return native[name].apply(history, args);
      if (waiting) gate.merged += 1;
      waiting = [data, unused, url];
      if (timer !== null) return undefined;
      const wait = landed + GAP - clock.now();
      if (wait <= 0) land();
      else timer = clock.later(land, wait);
      return undefined;
    };
  }

  history.pushState = guarded("pushState");
  history.replaceState = guarded("replaceState");
  win.addEventListener("pagehide", () => {
    if (!waiting) return;
    clock.cancel(timer);
    timer = null;
    try {
      native.replaceState.apply(history, waiting);
    } catch (error) {
      win.console.warn(`posviz: the last URL write was refused (${error.message})`);
    }
    waiting = null;
  });
  history.posvizGate = gate;
  return gate;
}

export {guard, GAP, RETRY};
