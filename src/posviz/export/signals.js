// posviz: two questions several of the site's scripts ask, answered in one place.
// - `webLocks(scope)`: the Web Locks of a page or a worker, or null where the
//   browser lacks them or refuses them (a frame on another site whose storage
//   it blocks). connect.js and worker.js hold locks to learn when the other side ends.
// - `whenPainted(win, then)`: the page's one "painted" signal. `then` runs on the
//   first animation frame at which every BokehJS root view has finished drawing
//   (or, on a page with no figure islands, once it has loaded). One poll per page,
//   however many scripts ask: the loader (Python's start waits for it) and the
//   frames (fetched and applied after it). A script that asks after the paint runs
//   on the next frame.
// connect.js (every page), frames.js (async: it may run before connect.js),
// loader.js and worker.js import it, and each of their bundles carries it; a page
// that has it twice still polls once, since the poll's state lives on the window.
// tests/js/signals.test.mjs imports it.

const ISLANDS = ".posviz-island[data-figure]";

/** @param {any} scope a window or a worker's global scope @returns {LockManager | null} */
function webLocks(scope) {
  try {
    const locks = scope.navigator?.locks;
    return locks && typeof locks.request === "function" ? locks : null;
  } catch {
    return null; // a getter that throws: treated as absent
  }
}

// Whether the page's figures are drawn: BokehJS's root views (Bokeh.index, a
// registered internal) each say so; a page with no islands has nothing to draw.
/** @param {any} win @returns {boolean} */
function painted(win) {
  const roots = win.Bokeh?.index?.roots;
  if (roots?.length) return roots.every((/** @type {any} */ view) => Boolean(view.has_finished?.()));
  return !win.document.querySelector(ISLANDS) && win.document.readyState === "complete";
}

/** @param {any} win @param {() => void} then */
function whenPainted(win, then) {
  if (!win.posvizPaint) win.posvizPaint = {done: false, waiting: []};
  /** @type {{done: boolean, waiting: Array<() => void>}} */
  const paint = win.posvizPaint;
  if (paint.done) {
    win.requestAnimationFrame(then);
    return;
  }
  paint.waiting.push(then);
  if (paint.waiting.length > 1) return; // the poll runs already
  const poll = () => {
    if (!painted(win)) {
      win.requestAnimationFrame(poll);
      return;
    }
    paint.done = true;
    for (const run of paint.waiting.splice(0)) run();
  };
  win.requestAnimationFrame(poll);
}

export {webLocks, painted, whenPainted, ISLANDS};
