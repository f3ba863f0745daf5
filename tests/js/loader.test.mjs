// The loader (export/loader.js), run as the page runs it, in a stand-in page:
// a fake worker whose messages the test sends, a clock the test moves, and a
// body whose data-posviz state and status bar are what a reader sees.
import test from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import {bundled} from "./bundled.mjs";

// As a page has it: loader.js bundled with the modules it imports.
const SOURCE = bundled("loader.js");

// A DOM element with just what the loader touches.
function element(tag, owner) {
  const made = {
    tag, children: [], parent: null, dataset: {}, attributes: {}, textContent: "", className: "",
    classList: {remove() {}, add() {}},
    setAttribute(name, value) { made.attributes[name] = value; },
    appendChild(child) { child.remove(); child.parent = made; made.children.push(child); return child; },
    prepend(child) { child.remove(); child.parent = made; made.children.unshift(child); },
    append(...children) {
      for (const child of children) made.appendChild(child);
      made.textContent = children.map((c) => c.textContent).join("");
    },
    remove() {
      if (made.parent) made.parent.children.splice(made.parent.children.indexOf(made), 1);
      made.parent = null;
    },
    get isConnected() {
      let at = made;
      while (at.parent) at = at.parent;
      return at === owner.body;
    },
  };
  return made;
}

// A page with ``figures`` islands ({id: has a frame module?}) and the loader running on it.
function page({figures = {710: true}, eager = false, stored = null, early = []} = {}) {
  const clock = {time: 0, timers: new Map(), next: 1, frames: []};
  const owner = {};
  owner.body = element("body", owner);
  const settings = {textContent: JSON.stringify({figures: Object.fromEntries(
    Object.entries(figures).map(([id, module]) => [id, module ? {module: "posviz.figures.x"} : {}]))})};
  const islands = Object.keys(figures).map((id) => ({dataset: {figure: id}}));
  const sent = [];
  const handled = [];
  const logged = []; // what the loader wrote to the console as errors
  const storage = new Map(stored ? [["posviz-runtime", JSON.stringify(stored)]] : []);
  const worker = {
    early: early.map((data) => ({data})), // messages that came before the loader ran
    postMessage: (message) => sent.push(message),
    onmessage: async (event) => handled.push(event.data.type), // Panel's handler
    watch() {},
    connects: 0,
    connect() { worker.connects += 1; },
  };
  const window = {
    pyodideWorker: worker,
    posvizPanel: eager ? "eager" : undefined,
    console: {error: (...args) => logged.push(args.join(" ")), log() {}, warn() {}},
    document: {
      body: owner.body,
      readyState: "complete",
      createElement: (tag) => element(tag, owner),
      getElementById: (id) => (id === "posviz-frames" ? settings : null),
      querySelectorAll: () => islands,
    },
    localStorage: {getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => storage.set(k, v)},
    setTimeout: (run, ms) => { clock.timers.set(clock.next, {run, at: clock.time + ms}); return clock.next++; },
    clearTimeout: (id) => clock.timers.delete(id),
    requestAnimationFrame: (run) => clock.frames.push(run),
    performance: {now: () => clock.time},
    posvizFrames: {numpy: () => handled.push("frames.numpy"), receive: () => handled.push("frames.receive")},
    Bokeh: {index: {roots: [{has_finished: () => true}]}},
  };
  window.window = window;
  vm.runInContext(SOURCE, vm.createContext(window));
  const body = owner.body;
  const bar = () => body.children.find((c) => String(c.className).startsWith("posviz-status"));
  const p = {
    window, body, sent, handled, logged, storage, worker, clock,
    state: () => body.dataset.posviz,
    bar: () => (bar() ? bar().textContent : null),
    tell: (message) => worker.onmessage({data: message}),
    frame() { // one animation frame: what was asked for runs
      for (const run of clock.frames.splice(0)) run();
    },
    paint() { // frames in, then animation frames until the loader has said "start"
      body.dataset.posvizFrames = "ready";
      for (let i = 0; i < 5 && clock.frames.length; i++) p.frame();
    },
    advance(ms) {
      clock.time += ms;
      for (const [id, timer] of [...clock.timers]) {
        if (timer.at <= clock.time) { clock.timers.delete(id); timer.run(); }
      }
    },
  };
  return p;
}

const RUNTIME = {id: "r1", state: "waiting", fetched: []};

test("a page says it is a preview, and starts Python once painted with its frames in", () => {
  const p = page();
  assert.equal(p.state(), "loading");
  assert.equal(p.bar(), "Preview · starting Python (1/3)");
  assert.deepEqual(p.sent, []);
  p.body.dataset.posvizFrames = "loading";
  p.frame();
  assert.deepEqual(p.sent, []); // painted, but its frames are not in
  p.paint();
  assert.deepEqual(p.sent.map((m) => ({...m})), [{type: "start", panel: false}]);
});

test("the numpy tier settles a page whose figures all have frame modules: no Panel, no bar", async () => {
  const p = page();
  p.paint();
  await p.tell({type: "hello", runtime: RUNTIME});
  await p.tell({type: "progress", stage: "Loading numpy", step: 2, of: 3, runtime: RUNTIME});
  assert.equal(p.bar(), "Preview · loading numpy (2/3)");
  await p.tell({type: "numpy", panel: false, runtime: {...RUNTIME, state: "ready"}});
  assert.equal(p.state(), "numpy");
  assert.equal(p.bar(), null);
  assert.deepEqual(p.handled, ["frames.numpy"]);
  assert.deepEqual(JSON.parse(p.storage.get("posviz-runtime")), {id: "r1", state: "ready"});
});

test("a figure without a frame module asks for Panel, and the page goes live on render", async () => {
  const p = page({figures: {710: true, 96: false}});
  p.paint();
  assert.deepEqual({...p.sent[0]}, {type: "start", panel: true});
  await p.tell({type: "numpy", panel: true, runtime: RUNTIME});
  assert.equal(p.state(), "loading");
  assert.equal(p.bar(), "Preview · figures answer · the rest: starting Python (1/3)");
  await p.tell({type: "render", timings: {}, runtime: {...RUNTIME, state: "ready"}});
  assert.equal(p.state(), "live");
  assert.equal(p.bar(), null);
  assert.deepEqual(p.handled, ["frames.numpy", "render"]); // Panel's handler got the render
});

test("posvizNeedPanel after the numpy tier brings the bar back and asks the worker once", async () => {
  const p = page();
  p.paint();
  await p.tell({type: "numpy", panel: false, runtime: RUNTIME});
  p.window.posvizNeedPanel();
  p.window.posvizNeedPanel();
  assert.equal(p.state(), "loading");
  assert.deepEqual(p.sent.map((m) => m.type), ["start", "panel"]);
});

test("an error says what failed, once, and the page never shows a blank", async () => {
  const p = page();
  await p.tell({type: "error", msg: "wheels/x.whl is corrupt", detail: "trace", runtime: RUNTIME});
  assert.equal(p.state(), "error");
  assert.equal(p.bar(), "The live figures could not start. wheels/x.whl is corrupt. "
    + "The preview above is not interactive; reload to try again.");
  await p.tell({type: "error", msg: "a second one"});
  assert.match(p.bar(), /wheels\/x\.whl is corrupt/);
  await p.tell({type: "progress", stage: "Loading", step: 2, of: 3, runtime: RUNTIME});
  assert.match(p.bar(), /could not start/); // no "Preview" over the message
});

test("an error after going live says the live figures stopped", async () => {
  const p = page();
  await p.tell({type: "render", timings: {}, runtime: RUNTIME});
  await p.tell({type: "error", msg: "ValueError: pos = 400"});
  assert.equal(p.bar(), "The live figures stopped working. ValueError: pos = 400. Reload the page to start them again.");
});

test("a runtime lost while starting is replaced twice at most, then the page says it stopped", async () => {
  const p = page();
  p.paint();
  for (const n of [1, 2]) {
    await p.tell({type: "lost"});
    assert.equal(p.worker.connects, n);
    assert.equal(p.bar(), "Preview · Python stopped while starting, so it starts again · starting Python (1/3)");
  }
  await p.tell({type: "lost"});
  assert.equal(p.state(), "error");
  assert.match(p.bar(), /The Python runtime stopped\./);
});

test("a connection closed before its runtime spoke is asked again, a moment later", async () => {
  const p = page();
  await p.tell({type: "lost", heard: false});
  assert.equal(p.worker.connects, 0);
  p.advance(250);
  assert.equal(p.worker.connects, 1);
  assert.equal(p.state(), "loading");
});

test("a lost message with a reason is that reason", async () => {
  const p = page();
  await p.tell({type: "lost", msg: "Python closed this page's connection"});
  assert.match(p.bar(), /Python closed this page's connection\./);
});

test("a start that never finished last time is mentioned; a runtime that stalls is given up", async () => {
  const p = page({stored: {id: "r0", state: "starting"}});
  await p.tell({type: "hello", runtime: RUNTIME});
  await p.tell({type: "progress", stage: "Loading numpy", step: 2, of: 3, runtime: RUNTIME});
  assert.equal(p.bar(), "Preview · the last start of Python did not finish, so a new one starts · loading numpy (2/3)");
  p.advance(89999);
  assert.equal(p.state(), "loading");
  p.advance(1);
  assert.equal(p.state(), "error");
  assert.match(p.bar(), /Loading stopped while loading numpy\./);
});

test("a page opened as a file says so in a note at the top, and its frames still answer", async () => {
  const p = page();
  await p.tell({type: "file", msg: "Opened as a file: serve the folder for Python."});
  assert.equal(p.state(), "file");
  assert.equal(p.body.children[0].textContent, "Opened as a file: serve the folder for Python.");
  await p.tell({type: "frame", figure: 710});
  assert.deepEqual(p.handled, ["frames.receive"]);
});

test("a page without figures starts Python for the next page and says nothing of it", async () => {
  const p = page({figures: {}});
  assert.equal(p.state(), "loading");
  assert.equal(p.bar(), null);
  assert.deepEqual(p.body.children, []);
  p.paint();
  assert.deepEqual(p.sent.map((m) => ({...m})), [{type: "start", panel: false}]);
  await p.tell({type: "hello", runtime: RUNTIME});
  await p.tell({type: "progress", stage: "Loading numpy", step: 2, of: 3, runtime: RUNTIME});
  await p.tell({type: "lost"}); // restarted, still unannounced
  assert.equal(p.worker.connects, 1);
  await p.tell({type: "file", msg: "Opened as a file: serve the folder for Python."});
  assert.deepEqual(p.body.children, []);
  assert.equal(p.bar(), null);
});

test("a page without figures logs its failures and shows no message", async () => {
  const p = page({figures: {}});
  await p.tell({type: "error", msg: "wheels/x.whl is corrupt", runtime: RUNTIME});
  assert.equal(p.state(), "error");
  assert.deepEqual(p.body.children, []);
  assert.deepEqual(p.logged, ["posviz: wheels/x.whl is corrupt"]);
  const shown = page(); // the same failure on a page with a figure is shown, not logged
  await shown.tell({type: "error", msg: "wheels/x.whl is corrupt", runtime: RUNTIME});
  assert.match(shown.bar(), /could not start\. wheels\/x\.whl is corrupt/);
  assert.deepEqual(shown.logged, []);
});

test("messages that came before the loader are replayed in order", () => {
  const p = page({early: [{type: "hello", runtime: RUNTIME}, {type: "numpy", panel: false, runtime: RUNTIME}]});
  assert.equal(p.window.posvizRuntime.id, "r1");
  assert.deepEqual(p.handled, ["frames.numpy"]);
  assert.equal(p.worker.early.length, 0);
});

test("a new runtime after a restart is told to start again", async () => {
  const p = page();
  p.paint();
  await p.tell({type: "hello", runtime: {...RUNTIME, id: "r2"}});
  assert.deepEqual(p.sent.map((m) => m.type), ["start", "start"]);
});
