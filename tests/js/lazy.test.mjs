// The lazy join (export/lazy.js), run as the page runs it, in a stand-in window:
// BokehJS's embed_items and Document.from_json, IntersectionObservers the test
// fires (the one that looks ahead, and the one of the screen itself), and islands
// whose distance from the viewport the test sets. What is
// checked is the bookkeeping: which roots wait, in which order, and what a join
// builds and records.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import {fileURLToPath} from "node:url";
const HERE = path.dirname(fileURLToPath(import.meta.url));

const SOURCE = fs.readFileSync(path.join(HERE, "../../src/posviz/export/lazy.js"), "utf-8");

// A page of islands: each {figure, top} is an island at ``top`` px holding one root element.
function page(islands, {observer = true} = {}) {
  const elements = {};
  const built = [];
  const indexed = [];
  const listeners = {};
  const documentListeners = {};
  const frames = [];
  const timers = [];
  const watch = {}; // "ahead" or "screen" → that observer's callback
  const watched = new Set(); // islands the look-ahead observer watches
  const sighted = new Set(); // islands the screen's observer watches
  for (const [i, {figure, top}] of islands.entries()) {
    const island = {
      top, // where it is from the viewport's top: a test scrolls by setting it
      height: 400, // its room's
      dataset: {figure: String(figure)},
      style: {minHeight: ""},
      getBoundingClientRect: () => ({top: island.top, bottom: island.top + island.height, height: island.height}),
    };
    const el = {
      id: `root-${i}`,
      closest: (css) => (css === ".posviz-island" ? island : null),
      island,
      height: 400, // what is drawn in it: a test sets it as BokehJS lays the figure out
    };
    el.children = [{getBoundingClientRect: () => ({height: el.height})}]; // BokehJS's root element
    elements[el.id] = el;
  }
  const doc = {all_roots: [], views_manager: null}; // no views until the test says (views())
  const Document = {from_json: () => doc};
  const window = {
    innerHeight: 800,
    document: {
      hidden: false,
      getElementById: (id) => elements[id] || null,
      addEventListener: (name, run) => { documentListeners[name] = run; },
    },
    requestAnimationFrame: (run) => frames.push(run),
    setTimeout: (run) => timers.push(run), // run by tick()
    queueMicrotask,
    addEventListener: (name, run) => { listeners[name] = run; },
    matchMedia: () => ({addEventListener() {}}),
    Bokeh: {
      require: (name) => (name === "document" ? {Document} : null),
      embed: {embed_items: (docsJson, items) => ({docsJson, items})},
      index: {add: (view) => indexed.push(view)},
    },
  };
  if (observer) {
    window.IntersectionObserver = class {
      constructor(callback, options) {
        this.of = options?.rootMargin ? "ahead" : "screen";
        this.targets = this.of === "ahead" ? watched : sighted;
        watch[this.of] = callback;
      }
      observe(target) { this.targets.add(target); }
      unobserve(target) { this.targets.delete(target); }
      disconnect() { this.targets.clear(); }
    };
  }
  window.window = window;
  const context = vm.createContext(window);
  vm.runInContext(SOURCE, context);
  // An embed of ``models``: root id m<i> is island i's element, and the document's
  // root j goes where ``rootIds[j]`` says (in page order unless told).
  const embed = (models, rootIds = models.map((_, i) => `m${i}`)) => {
    const roots = Object.fromEntries(models.map((_, i) => [`m${i}`, `root-${i}`]));
    window.Bokeh.embed.embed_items({}, [{docid: "d", root_ids: rootIds, roots}]);
    doc.all_roots = models;
    return window.Bokeh.require("document").Document.from_json();
  };
  const views = () => {
    doc.views_manager = {
      build_view: async (model) => ({
        model, build: (el) => built.push([model.name, el.id]), has_finished: () => true,
      }),
    };
  };
  // The observer reports these islands come near, in one callback, in the order given.
  const scrollTo = (...islands) => watch.ahead(islands.map((target) => ({isIntersecting: true, target})));
  // The screen's observer reports these islands on screen (``on``) or off it.
  const onScreen = (on, ...islands) => watch.screen(islands.map((target) => ({isIntersecting: on, target})));
  // The timers due: each runs once, in the order set.
  const tick = () => { for (const run of timers.splice(0)) run(); };
  return {
    window, elements, built, indexed, listeners, documentListeners, frames, watched, sighted, doc,
    embed, views, scrollTo, onScreen, tick,
  };
}

// The page's arrays are of another realm (vm): copied into this one to compare.
const waiting = (p) => [...p.window.posvizLazy.waiting()];
const models = (...names) => names.map((name) => ({name, default_view: "View"}));
const settle = () => new Promise((resolve) => setImmediate(resolve));

test("far roots get no view and wait in page order; near ones are drawn at once", () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}, {figure: 7256, top: 6000}]);
  const [near, far, farther] = models("a", "b", "c");
  p.embed([near, far, farther]);
  assert.equal(near.default_view, "View");
  assert.equal(far.default_view, null);
  assert.equal(farther.default_view, null);
  assert.deepEqual(waiting(p), [710, 7256]);
  assert.equal(p.elements["root-0"].island.dataset.posvizIsland, "drawn");
  assert.equal(p.elements["root-1"].island.dataset.posvizIsland, "waiting");
  assert.equal(p.watched.size, 2);
});

test("roots are matched to islands in the order of the item's root_ids", () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  const [first, second] = models("first", "second");
  // the document's root 0 goes to root_ids[0] = m1's element: the far island's
  p.embed([first, second], ["m1", "m0"]);
  assert.equal(first.default_view, null);
  assert.equal(second.default_view, "View");
  assert.deepEqual(waiting(p), [710]);
  assert.equal(p.elements["root-1"].island.dataset.posvizRoot, "root-1");
});

test("scrolling near an island builds its view into its element, once, and records the join", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  const [, far] = models("a", "b");
  p.embed(models("a", "b").map((m, i) => (i === 1 ? far : m)));
  p.views();
  p.scrollTo(p.elements["root-1"].island);
  await settle();
  assert.equal("default_view" in far, false); // the class's view again
  assert.deepEqual(p.built, [["b", "root-1"]]);
  assert.equal(p.indexed.length, 1);
  assert.deepEqual([...p.window.posvizLazy.joined], [710]);
  assert.deepEqual(waiting(p), []);
  assert.equal(p.watched.size, 0);
  p.scrollTo(p.elements["root-1"].island); // again: nothing pending, nothing built
  await settle();
  assert.equal(p.built.length, 1);
});

test("a joined island keeps its room's height until the figure drawn in it is as tall", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}, {figure: 4121, top: 6000}]);
  p.embed(models("a", "b", "c"));
  p.views();
  const frames = () => { for (const run of p.frames.splice(0)) run(); };
  const [island, root] = [p.elements["root-1"].island, p.elements["root-1"]];
  island.height = 1496;
  root.height = 0; // built, not yet laid out
  p.scrollTo(island);
  await settle();
  assert.equal(island.style.minHeight, "1496px");
  frames();
  frames();
  assert.equal(island.style.minHeight, "1496px");
  root.height = 1490; // laid out, within the slack of its room
  frames();
  assert.equal(island.style.minHeight, "");
  assert.equal(p.frames.length, 0);
  p.tick(); // the time limit, after: nothing more
  assert.equal(island.style.minHeight, "");

  // A figure that never reaches its room's height lets go of it after the time limit.
  const [other, short] = [p.elements["root-2"].island, p.elements["root-2"]];
  short.height = 200;
  p.scrollTo(other);
  await settle();
  frames();
  assert.equal(other.style.minHeight, "400px");
  p.tick();
  assert.equal(other.style.minHeight, "");
  frames();
  assert.equal(p.frames.length, 0);
});

test("a join before the embed has views waits a frame and then builds", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  p.embed(models("a", "b"));
  p.scrollTo(p.elements["root-1"].island);
  await settle();
  assert.equal(p.built.length, 0);
  assert.equal(p.frames.length, 1);
  p.views();
  p.frames.shift()();
  await settle();
  assert.deepEqual(p.built, [["b", "root-1"]]);
});

test("the live document keeps drawn islands drawn, even far ones, and hides only the rest", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}, {figure: 7256, top: 6000}]);
  p.embed(models("a", "b", "c"));
  p.views();
  p.scrollTo(p.elements["root-1"].island);
  await settle();
  const live = models("A", "B", "C");
  p.embed(live); // Python's document replaces the preview's
  assert.deepEqual(live.map((m) => m.default_view), ["View", "View", null]);
  assert.deepEqual(waiting(p), [7256]);
});

test("printing draws every waiting figure", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}, {figure: 7256, top: 6000}]);
  p.embed(models("a", "b", "c"));
  p.views();
  await p.listeners.beforeprint();
  assert.deepEqual(p.built.map(([name]) => name).sort(), ["b", "c"]);
  assert.deepEqual(waiting(p), []);
});

test("without IntersectionObserver every figure is drawn at once", () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}], {observer: false});
  const all = models("a", "b");
  p.embed(all);
  assert.deepEqual(all.map((m) => m.default_view), ["View", "View"]);
  assert.deepEqual(waiting(p), []);
});

test("an embed without a document item, or a page without BokehJS, is left alone", () => {
  const p = page([{figure: 96, top: 3000}]);
  p.window.Bokeh.embed.embed_items({}, [{docid: null}]);
  const doc = p.window.Bokeh.require("document").Document.from_json();
  assert.equal(doc, p.doc);
  assert.deepEqual(waiting(p), []);
  const bare = vm.createContext({window: {}});
  bare.window = bare;
  vm.runInContext(SOURCE, bare);
  assert.equal(bare.posvizLazy, undefined);
});

// Python's shell of a figure it builds later (drawing/layout.py, figure_shell):
// ``fill()`` does what Python's patch does, its class changes and its slots run.
function shell(name) {
  const slots = [];
  const model = {
    name,
    default_view: "View",
    css_classes: ["posviz-later"],
    properties: {css_classes: {change: {connect: (slot) => slots.push(slot)}}},
    fill() {
      model.css_classes = ["posviz-figure"];
      for (const slot of slots) slot();
    },
  };
  return model;
}

// The messages the page posts to the worker.
const posted = (p) => {
  const sent = [];
  p.window.posvizWorker = {postMessage: (message) => sent.push(JSON.parse(JSON.stringify(message)))};
  return sent;
};

test("the page tells the worker the figures it has drawn: after the embed, and after each join", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}, {figure: 7256, top: 6000}]);
  const sent = posted(p);
  p.embed(models("a", "b", "c"));
  assert.deepEqual(sent, [{type: "near", figures: [96]}]);
  p.views();
  p.scrollTo(p.elements["root-2"].island);
  await settle();
  assert.deepEqual(sent.at(-1), {type: "near", figures: [96, 7256]});
  assert.equal(sent.length, 2);
});

test("a near shell gets no view until Python fills it, then is drawn at once", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  p.views();
  const near = shell("a");
  p.embed([near, ...models("b")]);
  assert.equal(near.default_view, null); // a view built empty would keep stale edges
  const island = p.elements["root-0"].island;
  assert.equal(island.dataset.posvizIsland, "waiting");
  assert.deepEqual([...p.window.posvizLazy.unfilled()], [96]);
  assert.deepEqual(waiting(p), [96, 710]);
  near.fill();
  await settle();
  assert.equal("default_view" in near, false);
  assert.deepEqual(p.built, [["a", "root-0"]]);
  assert.equal(island.dataset.posvizIsland, "drawn");
  assert.deepEqual([...p.window.posvizLazy.unfilled()], []);
  assert.deepEqual([...p.window.posvizLazy.filled], [96]);
});

test("joinAll waits for every shell to be filled, then draws it", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  p.views();
  const far = shell("b");
  p.embed([...models("a"), far]);
  let all = false;
  const joined = p.window.posvizLazy.joinAll().then(() => { all = true; });
  await settle();
  assert.equal(all, false);
  assert.deepEqual(p.built, []); // the far shell waits for Python, not for the reader
  far.fill();
  await joined;
  assert.deepEqual(p.built, [["b", "root-1"]]);
  assert.deepEqual(waiting(p), []);
});

test("a far shell waits like any far root; filled before the reader comes, it is drawn when joined", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}, {figure: 7256, top: 6000}]);
  const [b, c] = [shell("b"), shell("c")];
  p.embed([...models("a"), b, c]);
  assert.deepEqual([b.default_view, c.default_view], [null, null]);
  c.fill();
  b.fill();
  assert.deepEqual([...p.window.posvizLazy.filled], [7256, 710]);
  // filled but not near: still no view, and the island still waits for the reader
  assert.equal(p.elements["root-2"].island.dataset.posvizIsland, "waiting");
  p.views();
  p.scrollTo(p.elements["root-2"].island);
  await settle();
  assert.deepEqual(p.built, [["c", "root-2"]]);
  assert.equal(p.elements["root-2"].island.dataset.posvizIsland, "drawn");
});

test("a far shell the reader comes near before Python fills it is drawn once filled", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  const far = shell("b");
  p.embed([...models("a"), far]);
  p.views();
  p.scrollTo(p.elements["root-1"].island);
  await settle();
  assert.deepEqual(p.built, []);
  assert.equal(p.elements["root-1"].island.dataset.posvizIsland, "waiting");
  far.fill(); // still far by its box: drawn because the reader came near
  await settle();
  assert.deepEqual(p.built, [["b", "root-1"]]);
  assert.equal(p.elements["root-1"].island.dataset.posvizIsland, "drawn");
});

test("without IntersectionObserver a shell is drawn once filled", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}], {observer: false});
  p.views();
  const far = shell("b");
  p.embed([...models("a"), far]);
  assert.equal(far.default_view, null);
  far.fill();
  await settle();
  assert.deepEqual(p.built, [["b", "root-1"]]);
});

// WebKit left a filled shell's plots blank once scrolled to when they were painted
// ahead of the reader, off screen; a paint on screen shows them (lazy.js).
test("a filled shell drawn off screen paints again each time it comes on screen, once first painted", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 1803, top: 3000}]);
  const paints = [];
  const plot = {canvas_view: {}, request_paint: () => paints.push("plot")};
  const notPlot = {request_paint: () => paints.push("a view without a canvas")};
  let finished = false;
  p.views();
  p.doc.views_manager.build_view = async (model) => ({model, build() {}, has_finished: () => finished});
  p.window.Bokeh.index.find = (model) => (model.name === "inner" ? [plot, notPlot] : []);
  const far = shell("b");
  far.references = () => [far, {name: "inner"}];
  p.embed([...models("a"), far]);
  far.fill();
  p.scrollTo(p.elements["root-1"].island); // near: drawn, a screen ahead of the reader
  await settle();
  const island = p.elements["root-1"].island;
  const frames = () => { for (const run of p.frames.splice(0)) run(); };
  frames(); // its first paint is not done: nothing watched yet
  assert.equal(p.sighted.size, 0);
  finished = true;
  frames();
  assert.deepEqual([...p.sighted], [island]);
  p.onScreen(false, island);
  assert.deepEqual(paints, []); // off screen: no paint yet
  p.onScreen(true, island);
  assert.deepEqual(paints, ["plot"]);
  assert.deepEqual([...p.window.posvizLazy.repainted], []);
  frames();
  frames(); // the paint's frame, then the one after it
  assert.deepEqual([...p.window.posvizLazy.repainted], [1803]);
  p.onScreen(true, island); // scrolled away and back
  assert.deepEqual(paints, ["plot", "plot"]);
  frames();
  frames();
  assert.deepEqual([...p.window.posvizLazy.repainted], [1803]); // recorded once
  p.embed(models("A", "B")); // a new runtime's document: the old islands are let go
  assert.equal(p.sighted.size, 0);
  p.onScreen(true, island);
  assert.deepEqual(paints, ["plot", "plot"]);
});

test("without IntersectionObserver a filled shell paints again once its first paint is done", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 1803, top: 3000}], {observer: false});
  const paints = [];
  p.views();
  p.doc.views_manager.build_view = async (model) => ({model, build() {}, has_finished: () => true});
  p.window.Bokeh.index.find = () => [{canvas_view: {}, request_paint: () => paints.push("plot")}];
  const far = shell("b");
  far.references = () => [far];
  p.embed([...models("a"), far]);
  far.fill();
  await settle();
  assert.deepEqual(paints, []);
  for (const run of p.frames.splice(0)) run();
  assert.deepEqual(paints, ["plot"]);
});

test("a document that replaces one with shells leaves nothing to wait for", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  p.views();
  p.embed([shell("a"), shell("b")]);
  const waited = p.window.posvizLazy.joinAll();
  p.embed(models("A", "B")); // a new runtime's document, say, built whole
  await Promise.race([waited, new Promise((_, reject) => setTimeout(() => reject(new Error("joinAll hung")), 500))]);
  assert.deepEqual([...p.window.posvizLazy.unfilled()], []);
  assert.deepEqual([...p.window.posvizLazy.filled], []);
});

const holdsOf = (sent) => sent.filter((m) => m.type === "hold").map((m) => m.holding);

// A pointer event at (x, y) whose composed path runs through elements of these classes
// (inner first), as it does from inside Bokeh's shadow roots.
let x = 0;
const pointer = (...classes) => at(++x, 10, ...classes);
// Each of ``classes`` is an element's class names, or an element made by ``element``.
const element = (names) => ({classList: {contains: (name) => names.split(" ").includes(name)}});
const at = (clientX, clientY, ...classes) => ({
  clientX,
  clientY,
  relatedTarget: {},
  composedPath: () => [
    ...classes.map((each) => (typeof each === "string" ? element(each) : each)),
    {}, // the document, which has no classList
  ],
});

test("the page says hold while the pointer rests on a figure's controls, once per change", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const over = p.documentListeners.pointerover;
  over(pointer("bk-slider-title", "bk-input-group", "posviz-controls", "posviz-figure"));
  over(pointer("noUi-handle", "posviz-controls")); // another control: no new message
  assert.deepEqual(sent, [{type: "hold", holding: true}]);
  over(pointer("bk-Canvas", "posviz-plot", "posviz-figure")); // the plot is not the controls
  over(pointer("posviz-caption"));
  assert.deepEqual(sent.slice(1), [ // with the figures to fill first, before the hold ends
    {type: "near", figures: []},
    {type: "hold", holding: false},
  ]);
  over(pointer("posviz-controls"));
  p.documentListeners.pointerout({...pointer("posviz-controls"), relatedTarget: null}); // left the window
  assert.deepEqual([...p.window.posvizLazy.holds], [true, false, true, false]);
});

test("a figure redrawn under a pointer that stays put keeps the hold; the wheel lets go", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const over = p.documentListeners.pointerover;
  const island = element("posviz-island");
  over(at(300, 200, "noUi-handle", "posviz-controls", island));
  over(at(300, 200, "bk-Column", island)); // the live document's first layout, under the pointer
  p.documentListeners.pointerout({...at(300, 200, island), relatedTarget: null});
  over(at(300, 200, "noUi-touch-area", "posviz-controls", island)); // and the controls again
  assert.deepEqual(holdsOf(sent), [true]);
  p.documentListeners.wheel();
  assert.deepEqual(holdsOf(sent), [true, false]);
});

test("content scrolled under a pointer that stays put: another island's text lets go", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const over = p.documentListeners.pointerover;
  over(at(300, 200, "posviz-controls", element("posviz-island")));
  over(at(300, 200, "posviz-caption", element("posviz-island"))); // the next figure's
  over(at(300, 200, "section-text")); // or text between figures
  assert.deepEqual(holdsOf(sent), [true, false]);
});

test("a page that is hidden lets go; once all is filled it no longer holds", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  p.documentListeners.pointerover(pointer("posviz-controls"));
  p.window.document.hidden = true;
  p.documentListeners.visibilitychange();
  assert.deepEqual(holdsOf(sent), [true, false]);
  p.window.posvizFilled = true;
  p.window.document.hidden = false;
  p.documentListeners.visibilitychange();
  const told = sent.length;
  p.documentListeners.pointerover(pointer("posviz-controls"));
  assert.equal(sent.length, told);
});

test("a hold said before a document came is said again with it", () => {
  const p = page([{figure: 96, top: 0}]);
  p.documentListeners.pointerover(pointer("posviz-controls")); // no worker yet: nothing sent
  const sent = posted(p);
  p.embed(models("a"));
  assert.deepEqual(sent, [{type: "near", figures: [96]}, {type: "hold", holding: true}]);
});

test("a key pressed in a figure's controls holds until the focus leaves them", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const on = p.documentListeners;
  on.keydown(pointer("caption")); // a key elsewhere: nothing
  assert.deepEqual(sent, []);
  on.keydown(pointer("noUi-handle", "posviz-controls"));
  on.focusin(pointer("noUi-handle", "posviz-controls")); // focus moves within the controls
  assert.deepEqual(holdsOf(sent), [true]);
  on.focusin(pointer("posviz-numbers-toggle")); // tabbed on, out of the controls
  assert.deepEqual(holdsOf(sent), [true, false]);
  on.keydown(pointer("posviz-controls"));
  on.focusout({...pointer("posviz-controls"), relatedTarget: null}); // to nothing: the window left
  assert.deepEqual(holdsOf(sent), [true, false, true]); // once told whether the control is gone
  p.tick(); // it is not: no control was focused that a swap removed
  assert.deepEqual(holdsOf(sent), [true, false, true, false]);
});

test("the keyboard's focus on a figure's controls holds, a click's does not", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const on = p.documentListeners;
  // The focused control comes first in the composed path; it matches :focus-visible
  // when the keyboard brought the focus (Tab), not when a click did.
  const focused = (visible) => ({
    ...element("noUi-handle"),
    matches: (selector) => selector === ":focus-visible" && visible,
  });
  on.focusin(pointer(focused(false), "posviz-controls")); // a click's focus: nothing yet
  assert.deepEqual(holdsOf(sent), []);
  on.focusin(pointer(focused(true), "posviz-controls")); // tabbed onto the slider
  assert.deepEqual(holdsOf(sent), [true]);
  on.focusin(pointer(focused(true), "posviz-controls")); // tabbed to the next: still held
  on.pointerover(pointer("posviz-caption")); // the pointer elsewhere: the focus stays
  assert.deepEqual(holdsOf(sent), [true]);
  on.focusin(pointer("posviz-numbers-toggle")); // tabbed out of the controls
  assert.deepEqual(holdsOf(sent), [true, false]);
});

test("the pointer and the keys hold together: the hold ends when both have let go", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const on = p.documentListeners;
  on.pointerover(at(5, 5, "posviz-controls"));
  on.keydown(at(5, 5, "posviz-controls"));
  on.pointerover(at(400, 400, "posviz-plot")); // the pointer moved off; the focus is still there
  assert.deepEqual(holdsOf(sent), [true]);
  on.focusin(at(400, 400, "posviz-caption"));
  assert.deepEqual(holdsOf(sent), [true, false]);
});

test("a finger holds while it touches the controls and lets go when it lifts", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const on = p.documentListeners;
  on.pointerover({...at(7, 7, "posviz-controls"), pointerType: "touch"});
  on.pointerup({...at(7, 7, "posviz-controls"), pointerType: "mouse"}); // a mouse button: it rests
  assert.deepEqual(holdsOf(sent), [true]);
  on.pointerup({...at(7, 7, "posviz-controls"), pointerType: "touch"});
  assert.deepEqual(holdsOf(sent), [true, false]);
  on.pointerover({...at(9, 9, "posviz-controls"), pointerType: "touch"});
  on.pointercancel({...at(9, 90, "posviz-controls"), pointerType: "touch"}); // became a scroll
  assert.deepEqual(holdsOf(sent), [true, false, true, false]);
});

test("a reader who comes near a figure not yet filled lets go of the hold: that figure goes first", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  const sent = posted(p);
  const far = shell("b");
  p.embed([...models("a"), far]);
  p.views();
  p.documentListeners.pointerover(at(3, 3, "posviz-controls"));
  p.documentListeners.keydown(at(3, 3, "posviz-controls"));
  p.scrollTo(p.elements["root-1"].island); // the wheel would say so too; keys scroll without it
  await settle();
  assert.deepEqual(sent.slice(-2), [
    {type: "near", figures: [710, 96]}, // first: the worker has it when the hold ends
    {type: "hold", holding: false},
  ]);
  assert.deepEqual(sent.filter((m) => m.type === "hold").map((m) => m.holding), [true, false]);
  p.documentListeners.pointerover(at(3, 3, "posviz-controls")); // the pointer is still there
  assert.equal(sent.at(-1).holding, false); // but the figure the reader came to waits
  far.fill();
  await settle();
  assert.deepEqual(sent.filter((m) => m.type === "hold").map((m) => m.holding), [true, false, true]);
});

test("shells that come near together are told nearest the viewport's middle first, once", async () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}, {figure: 7256, top: 6000}]);
  const sent = posted(p);
  p.embed([...models("a"), shell("b"), shell("c")]);
  p.views();
  p.scrollTo(p.elements["root-2"].island, p.elements["root-1"].island);
  await settle();
  assert.deepEqual(sent.filter((m) => m.type === "near"), [
    {type: "near", figures: [96]}, // the embed's
    {type: "near", figures: [710, 7256, 96]}, // one message for both, 710's middle the nearer
  ]);
});

test("a scroll that moves the pointer off the controls tells the shells near now before the hold ends", () => {
  const p = page([{figure: 96, top: 0}, {figure: 710, top: 3000}]);
  const sent = posted(p);
  p.embed([...models("a"), shell("b")]);
  p.views();
  p.documentListeners.pointerover(at(3, 3, "posviz-controls", element("posviz-island")));
  p.elements["root-0"].island.top = -2600; // scrolled: 710 is on screen now,
  p.elements["root-1"].island.top = 200; // the observer has not said so yet
  p.documentListeners.pointerover(at(3, 3, "posviz-caption", element("posviz-island")));
  assert.deepEqual(sent.slice(-2), [{type: "near", figures: [710, 96]}, {type: "hold", holding: false}]);
});

// A figure's island with its controls as Bokeh draws them: a preset button and a
// slider's handle (its title in the slider's own root). ``connected`` is false once
// a swap has removed them.
const drawnControls = (figure) => {
  const make = (tag, cls, parent, extra = {}) => {
    const el = {
      tagName: tag, parentNode: parent, tabIndex: -1, textContent: "", isConnected: true,
      classList: Object.assign(cls.split(" "), {contains(name) { return this.includes(name); }}),
      kids: [], ...extra,
    };
    el.querySelectorAll = () => el.kids.flatMap((kid) => [kid, ...kid.querySelectorAll()]);
    el.querySelector = (css) => el.querySelectorAll().find((each) => each.classList.contains(css.slice(1)));
    el.getRootNode = () => el.root || parent?.getRootNode() || el;
    parent?.kids.push(el);
    return el;
  };
  const island = make("DIV", "posviz-island", null, {dataset: {figure: String(figure)}});
  const controls = make("DIV", "posviz-controls", island);
  const button = make("BUTTON", "bk-btn", controls, {tabIndex: 0, textContent: "base"});
  const slider = make("DIV", "bk-slider", controls);
  slider.root = slider;
  make("DIV", "bk-slider-title", slider, {textContent: "d_model: 512"});
  const handle = make("DIV", "noUi-handle", slider, {tabIndex: 0});
  const gone = () => { for (const each of [island, ...island.querySelectorAll()]) each.isConnected = false; };
  return {island, button, handle, gone};
};

test("a control's focus goes live with it: the same control of the live figure takes it", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const document = p.window.document;
  const body = {tagName: "BODY"};
  document.body = body;
  let shown = drawnControls(96); // the preview's
  document.querySelector = (css) => (css === '.posviz-island[data-figure="96"]' ? shown.island : null);
  const focus = (el) => { document.activeElement = el; };
  for (const each of [shown.button, shown.handle]) each.focus = () => focus(each);
  focus(shown.handle); // tabbed to the slider, then a key moved it
  p.documentListeners.keydown(pointer("noUi-handle", "posviz-controls"));
  p.tick();
  const preview = shown;
  shown = drawnControls(96); // going live: Python's figure replaces the preview's
  let focusedLive = null;
  shown.handle.focus = (options) => { focusedLive = options; focus(shown.handle); };
  preview.gone();
  focus(body); // the focus fell to the page
  p.documentListeners.focusout({...pointer("noUi-handle", "posviz-controls"), relatedTarget: null});
  p.tick();
  assert.equal(document.activeElement, body); // not before the live controls are drawn
  for (const run of p.frames.splice(0)) run();
  assert.equal(document.activeElement, shown.handle); // the slider, not the button before it
  assert.deepEqual({...focusedLive}, {preventScroll: true});
  assert.deepEqual([...p.window.posvizLazy.carried], [96]);
  assert.deepEqual(holdsOf(sent), [true]); // the hold stood across
});

test("a focus the reader moved elsewhere meanwhile is not taken back", () => {
  const p = page([{figure: 96, top: 0}]);
  const sent = posted(p);
  const document = p.window.document;
  document.body = {tagName: "BODY"};
  const preview = drawnControls(96);
  const live = drawnControls(96);
  document.querySelector = () => live.island;
  document.activeElement = preview.handle;
  p.documentListeners.keydown(pointer("noUi-handle", "posviz-controls"));
  p.tick();
  preview.gone();
  document.activeElement = document.body;
  p.documentListeners.focusout({...pointer("noUi-handle", "posviz-controls"), relatedTarget: null});
  p.tick();
  const search = {tagName: "INPUT"};
  document.activeElement = search; // the reader went to the search box
  live.handle.focus = () => assert.fail("the focus was taken back");
  for (const run of p.frames.splice(0)) run();
  assert.equal(document.activeElement, search);
  assert.deepEqual([...p.window.posvizLazy.carried], []);
  assert.deepEqual(holdsOf(sent), [true]); // the focus is elsewhere; focusin says if it left
});
