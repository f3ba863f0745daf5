// The shared signals (export/signals.js): Web Locks found once, whatever the
// browser does with them, and the page's one "painted" poll, on a stand-in window
// whose animation frames run only when the test runs them.
import test from "node:test";
import assert from "node:assert/strict";
import * as Signals from "../../src/posviz/export/signals.js";

// A window with `roots` (BokehJS's root views, each done or not) and `islands` on the page.
function page({roots = null, islands = 0, readyState = "complete"} = {}) {
  const frames = [];
  const win = {
    document: {
      readyState,
      querySelector: (selector) => {
        assert.equal(selector, Signals.ISLANDS);
        return islands ? {dataset: {figure: "710"}} : null;
      },
    },
    requestAnimationFrame: (run) => frames.push(run),
  };
  if (roots) win.Bokeh = {index: {roots: roots.map((done) => ({has_finished: () => done.value}))}};
  // Run the frames asked for so far (not those they ask for): one animation frame.
  const frame = () => {
    const due = frames.splice(0);
    for (const run of due) run();
    return due.length;
  };
  return {win, frame, frames};
}

test("webLocks: the scope's LockManager, or null wherever a browser lacks or refuses one", () => {
  const locks = {request() {}};
  assert.equal(Signals.webLocks({navigator: {locks}}), locks);
  assert.equal(Signals.webLocks({}), null); // no navigator (an old worker scope)
  assert.equal(Signals.webLocks({navigator: {}}), null);
  assert.equal(Signals.webLocks({navigator: {locks: {}}}), null); // no request()
  const refusing = {
    get navigator() {
      throw new Error("SecurityError: storage is blocked for this frame");
    },
  };
  assert.equal(Signals.webLocks(refusing), null);
  const lockless = {navigator: {get locks() { throw new Error("SecurityError"); }}};
  assert.equal(Signals.webLocks(lockless), null);
});

test("painted: every root view finished; a page without islands once it has loaded", () => {
  const done = {value: true};
  const pending = {value: false};
  assert.equal(Signals.painted(page({roots: [done, done]}).win), true);
  assert.equal(Signals.painted(page({roots: [done, pending]}).win), false);
  // BokehJS not there yet, or no root views yet: painted only when there is nothing to draw.
  assert.equal(Signals.painted(page({islands: 2}).win), false);
  assert.equal(Signals.painted(page({roots: [], islands: 1}).win), false);
  assert.equal(Signals.painted(page({islands: 0}).win), true);
  assert.equal(Signals.painted(page({islands: 0, readyState: "interactive"}).win), false);
  // A view without has_finished (another BokehJS) never counts as drawn.
  const odd = page({islands: 1}).win;
  odd.Bokeh = {index: {roots: [{}]}};
  assert.equal(Signals.painted(odd), false);
});

test("whenPainted: one poll for every script that asks, each called once, in order, at the paint", () => {
  const first = {value: false};
  const second = {value: false};
  const {win, frame, frames} = page({roots: [first, second], islands: 2});
  const called = [];
  Signals.whenPainted(win, () => called.push("loader"));
  Signals.whenPainted(win, () => called.push("frames"));
  assert.equal(frames.length, 1, "a second script joins the poll; it does not start another");
  for (let n = 0; n < 5; n += 1) assert.equal(frame(), 1); // unpainted: one poll a frame, no more
  first.value = true;
  frame();
  assert.deepEqual(called, []); // one root still drawing
  second.value = true;
  frame();
  assert.deepEqual(called, ["loader", "frames"]);
  assert.equal(frames.length, 0, "the poll stops at the paint");
  assert.equal(win.posvizPaint.done, true);
  // Asked after the paint (an async script that came late): on the next frame, without polling.
  Signals.whenPainted(win, () => called.push("late"));
  assert.deepEqual(called, ["loader", "frames"]);
  frame();
  assert.deepEqual(called, ["loader", "frames", "late"]);
  assert.equal(frames.length, 0);
});

test("whenPainted: a page with nothing to draw is painted once it has loaded", () => {
  const {win, frame} = page({islands: 0, readyState: "loading"});
  let called = 0;
  Signals.whenPainted(win, () => { called += 1; });
  frame();
  frame();
  assert.equal(called, 0);
  win.document.readyState = "complete";
  frame();
  frame();
  assert.equal(called, 1);
});
