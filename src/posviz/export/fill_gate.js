// posviz: when the worker may build a page's figures left for later (worker.js,
// fill). Python's document for a page holds the figures near the reader; the
// others come after it is live, one at a time. They wait while their page is
// hidden (a tab behind, or a page the reader left that the browser keeps in its
// back-forward cache), and while another page on screen waits for its document:
// the reader who followed a link is not kept waiting for the figures of the page
// they left. No timer decides: each change of those states wakes the waiting.
// worker.js imports it; tests/js/fill_gate.test.mjs imports it.

// Whether ``connection`` may fill now, among ``connections`` (the worker's open
// pages: {hidden, awaiting}; awaiting: between its hello and its document sent).
/** @param {{hidden: boolean}} connection @param {Iterable<{hidden: boolean, awaiting: boolean}>} connections */
function mayFill(connection, connections) {
  if (connection.hidden) return false;
  for (const other of connections) {
    if (other !== connection && other.awaiting && !other.hidden) return false;
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
