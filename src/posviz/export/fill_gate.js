// posviz: when the worker may build a page's figures left for later (worker.js,
// fill). Python's document for a page holds the figures near the reader; the
// others come after it is live, one at a time. They wait while their page is
// hidden (a tab behind, or a page the reader left that the browser keeps in its
// back-forward cache), while another page on screen waits for its document (the
// reader who followed a link is not kept waiting for the figures of the page
// they left), and while the reader is at a figure's controls (pointer or keys) on
// a page on screen (lazy.js says "hold"): a fill is one Python call that a slider's
// change cannot cut, and the reader about to move one should not wait for a
// figure built off screen. No timer decides: each change of those states wakes
// the waiting.
// worker.js imports it; tests/js/fill_gate.test.mjs imports it.

// Whether ``connection`` may fill now, among ``connections`` (the worker's open
// pages: {hidden, awaiting, holding}; awaiting: between its hello and its document
// sent; holding: the reader is at one of its figures' controls).
/** @param {{hidden: boolean}} connection @param {Iterable<{hidden: boolean, awaiting: boolean, holding?: boolean}>} connections */
function mayFill(connection, connections) {
  if (connection.hidden) return false;
  for (const other of connections) {
    if (other.hidden) continue;
    if (other.holding) return false; // this page's reader, or one on another page on screen
    if (other !== connection && other.awaiting) return false;
  }
  return true;
}

// Promises that wait for the next change: ``changed()`` one, ``wake()`` settles all.
function waker() {
  /** @type {Array<() => void>} */
  let waiting = [];
  return {
    /** @returns {Promise<void>} */
    changed: () => new Promise((resolve) => { waiting.push(resolve); }),
    wake() {
      const woken = waiting;
      waiting = [];
      for (const resolve of woken) resolve();
    },
    waiting: () => waiting.length,
  };
}

export {mayFill, waker};
