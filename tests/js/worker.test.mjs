// The runtime worker (export/worker.js), joined with protocol.js and checked.js as
// the build joins them, run in a stand-in worker scope: a fetch that serves the
// site's files (and records the order it was asked in), Pages that are ports the
// test drives, and a stand-in Pyodide. Checked: the messages a page gets, and the
// order in which the runtime's bytes are fetched.
import test from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import {bundled} from "./bundled.mjs";
import {createHash} from "node:crypto";

const digest = (text) => createHash("sha256").update(text).digest("hex");
const BASE = "https://site.test/";

// The site: Pyodide's core, a numpy-tier package and wheel, and a Panel-tier package and wheel.
const FILES = {
  "pyodide/pyodide.js": "core js",
  "pyodide/pyodide.asm.js": "asm js",
  "pyodide/pyodide.asm.wasm": "wasm",
  "pyodide/numpy.whl": "numpy",
  "pyodide/bokeh.whl": "bokeh",
  "wheels/posviz.whl": "posviz",
  "wheels/panel.whl": "panel",
};
const SITE = {
  pyodide: "pyodide/",
  core: ["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm"].map((name) => ({name, sha256: digest(FILES[`pyodide/${name}`])})),
  lock_packages: ["numpy", "bokeh"],
  packages: [
    {name: "numpy", path: "pyodide/numpy.whl", sha256: digest("numpy"), numpy: true},
    {name: "bokeh", path: "pyodide/bokeh.whl", sha256: digest("bokeh"), numpy: false},
  ],
  wheels: [{path: "wheels/posviz.whl", sha256: digest("posviz")}, {path: "wheels/panel.whl", sha256: digest("panel")}],
  site_packages: "/lib/python3.12/site-packages",
  numpy: {packages: ["numpy"], wheels: [0]},
  cdn_root: "static/",
};

// A Pyodide whose every step records itself in ``steps``; its runtime has three
// figures to fill, and records in ``fills`` the wanted list of each call.
function pyodide(steps, fills) {
  const loaded = {};
  return {
    _module: {HEAPU8: {buffer: {byteLength: 1024}}},
    loadedPackages: loaded,
    loadPackage: async (names) => { for (const name of names) loaded[name] = true; steps.push(`load ${names}`); },
    unpackArchive: (bytes) => steps.push(`unpack ${new TextDecoder().decode(bytes)}`),
    pyimport: (name) => {
      steps.push(`import ${name}`);
      if (name === "posviz.runtime.compute") {
        return {answer: (request) => ({toJs: () => [JSON.stringify({asked: JSON.parse(request)}), new Uint8Array(0)], destroy() {}})};
      }
      return {
        prepare() {}, STEPS: {toJs: () => ["panel"]}, step: (step) => steps.push(`step ${step}`),
        runtime: () => ({
          render: (_id, route, search) => JSON.stringify([{doc: route}, [{search}], ["root"], {}]),
          documents: () => 1, link() {}, patch() {}, close() {}, location() {},
          fill: (_id, wanted) => {
            fills.push(JSON.parse(wanted));
            return Math.max(0, 3 - fills.length);
          },
        }),
      };
    },
  };
}

function worker({site = SITE, files = FILES, scheduler = undefined} = {}) {
  const asked = [];
  const steps = [];
  const fills = [];
  let flying = 0;
  let mostFlying = 0;
  const scope = {
    console: {error() {}, log() {}},
    URL, Blob, Response, TextDecoder, crypto, Promise, Map, Set, Error, JSON, Math, Array, Object, Number, String, Boolean,
    ArrayBuffer, Uint8Array, DecompressionStream, setTimeout, clearTimeout,
    performance: {now: () => 0},
    closed: false,
    close: () => { scope.closed = true; }, // a shared runtime that failed ends itself
    location: {href: `${BASE}posviz-worker.js`},
    navigator: {},
    SharedWorkerGlobalScope: {[Symbol.hasInstance]: () => true}, // this scope is a shared worker's
    importScripts: () => { scope.loadPyodide = async () => pyodide(steps, fills); },
    scheduler,
    fetch: async (url) => {
      const file = String(url).slice(BASE.length);
      asked.push(file);
      flying += 1;
      mostFlying = Math.max(mostFlying, flying);
      await new Promise((resolve) => setImmediate(resolve));
      flying -= 1;
      return file in files ? new Response(files[file]) : new Response("", {status: 404});
    },
  };
  scope.self = scope;
  // Bundled as the build bundles it, with this test's site.
  const source = bundled("worker.js", {SITE: JSON.stringify(site)});
  vm.runInContext(source, vm.createContext(scope));
  const pages = [];
  const page = () => {
    const got = [];
    const port = {postMessage: (message) => got.push(message), addEventListener() {}};
    scope.onconnect({ports: [port]});
    const made = {got, types: () => got.map((m) => m.type), send: (message) => port.onmessage({data: message})};
    pages.push(made);
    return made;
  };
  return {
    asked, steps, fills, page, pages, mostFlying: () => mostFlying, closed: () => scope.closed,
  };
}

// Let the worker's promises run until ``done`` holds, for 30 s at most. The bound is time,
// not a count of turns: the worker's sha256 checks run on Node's thread pool, and on a
// starved machine 5,000 turns went by in 0.2 s before one of them came back (stop 42,
// the 3.12 tier at the lowest CPU priority beside the main run).
async function until(done, what, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (done()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`not within ${ms / 1000} s: ${what}`);
}

// The same, for what waits on a timer of the worker's own: polled every 10 ms, for 5 s at most.
async function eventually(done, what) {
  for (let i = 0; i < 500; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`not within 5 s: ${what}`);
}

test("a page says hello and hears which runtime it joined; a second hello is refused", async () => {
  const w = worker();
  const p = w.page();
  p.send({type: "hello", route: "figure-710", lock: null});
  await until(() => p.types().includes("hello"), "hello");
  const hello = p.got.find((m) => m.type === "hello");
  assert.equal(hello.runtime.state, "waiting");
  assert.equal(hello.runtime.connection, 1);
  p.send({type: "hello", route: "figure-710"});
  await until(() => p.types().includes("error"), "an error");
  assert.match(p.got.find((m) => m.type === "error").msg, /page figure-710 said hello twice/);
});

test("what the protocol refuses never reaches Python, and says why", async () => {
  const w = worker();
  const p = w.page();
  for (const message of [{type: "shutdown"}, {type: "hello", route: 7}, {type: "patch", patch: {x: "y".repeat(1000001)}}]) {
    p.send(message);
  }
  await until(() => p.got.filter((m) => m.type === "error").length === 3, "three errors");
  assert.deepEqual(p.got.map((m) => m.msg), [
    'posviz worker: unknown message type "shutdown"',
    'posviz worker: a "hello" message needs route as a string, not number',
    'posviz worker: refused a "patch" message of more than 1000000 bytes',
  ]);
  assert.deepEqual(w.asked, []);
});

test("no byte moves before the pages have painted; a page that has not painted holds the rest back", async () => {
  const w = worker();
  const one = w.page();
  const two = w.page();
  one.send({type: "hello", route: "a"});
  two.send({type: "hello", route: "b"});
  one.send({type: "start"});
  await until(() => one.types().includes("hello") && two.types().includes("hello"), "hellos");
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(w.asked, []); // page b is on screen and has not painted
  two.send({type: "visibility", hidden: true}); // b goes behind another tab: it paints nothing
  await until(() => w.asked.length > 0, "a fetch");
});

test("the numpy tier's files come first, two at a time; Panel's only once asked for and those are in", async () => {
  const w = worker();
  const p = w.page();
  p.send({type: "hello", route: "figure-710"});
  p.send({type: "start"});
  await until(() => p.types().includes("numpy"), "the numpy tier");
  const numpyTier = ["pyodide/pyodide.js", "pyodide/pyodide.asm.js", "pyodide/pyodide.asm.wasm",
    "pyodide/numpy.whl", "wheels/posviz.whl"];
  assert.deepEqual(w.asked, numpyTier);
  assert.equal(w.mostFlying(), 2);
  assert.deepEqual(w.steps, ["load numpy", "unpack posviz", "import posviz.runtime.compute"]);
  assert.equal(p.got.find((m) => m.type === "numpy").panel, false);
  p.send({type: "compute", figure: 710, request: {module: "m", figure: 710, values: {pos: 3}, link: "l"}});
  await until(() => p.types().includes("frame"), "a frame");
  assert.deepEqual(JSON.parse(p.got.find((m) => m.type === "frame").answer).asked.values, {pos: 3});
  assert.deepEqual(w.asked, numpyTier); // still nothing of Panel's
  p.send({type: "search", search: "?pos=3"});
  p.send({type: "panel"});
  await until(() => p.types().includes("render"), "the live page");
  assert.deepEqual(w.asked, [...numpyTier, "pyodide/bokeh.whl", "wheels/panel.whl"]);
  const render = p.got.find((m) => m.type === "render");
  assert.deepEqual(render.render_items, [{search: "?pos=3"}]); // built at the preview's values
  assert.equal(render.runtime.state, "ready");
});

test("a file that is not the build's is named, and the page is told instead of waiting", async () => {
  const w = worker({files: {...FILES, "pyodide/numpy.whl": "tampered"}});
  const p = w.page();
  p.send({type: "hello", route: "figure-710"});
  p.send({type: "start"});
  await until(() => p.types().includes("error"), "an error");
  const error = p.got.find((m) => m.type === "error");
  assert.match(error.msg, /^pyodide\/numpy\.whl is corrupt: its sha256 is [0-9a-f]{64}, the build wrote /);
  assert.equal(error.runtime.state, "failed");
  await eventually(w.closed, "the failed runtime ends, so that a reload starts a fresh one");
});

test("a missing file is named as missing", async () => {
  const files = {...FILES};
  delete files["pyodide/pyodide.asm.wasm"];
  const w = worker({files});
  const p = w.page();
  p.send({type: "hello", route: "figure-710"});
  p.send({type: "start"});
  await until(() => p.types().includes("error"), "an error");
  assert.equal(p.got.find((m) => m.type === "error").msg, "pyodide/pyodide.asm.wasm is missing from the site (HTTP 404)");
  await eventually(w.closed, "the failed runtime ends");
});

// A page taken live: hello, the figures near, painted, its document embedded.
async function live(w, route = "topic") {
  const p = w.page();
  p.send({type: "hello", route});
  p.send({type: "near", figures: [96]});
  p.send({type: "start", panel: true});
  await until(() => p.types().includes("render"), `${route} live`);
  return p;
}

const turns = async (count) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

test("fills wait behind queued tasks at background priority, and none starts while the reader holds", async () => {
  const priorities = [];
  const scheduler = {
    postTask: (run, options) => {
      priorities.push(options.priority);
      return new Promise((resolve) => setImmediate(() => resolve(run())));
    },
  };
  const w = worker({scheduler});
  const p = await live(w);
  p.send({type: "hold", holding: true}); // the pointer came onto a slider before the page went live
  p.send({type: "rendered"});
  await until(() => priorities.length === 1, "the first fill's turn");
  await turns(50);
  assert.deepEqual(w.fills, []); // held
  p.send({type: "hold", holding: false});
  await until(() => p.types().includes("filled"), "every figure filled");
  assert.deepEqual(w.fills, [[96], [96], [96]]); // one per call, the near figures' list each time
  assert.deepEqual([...new Set(priorities)], ["background"]);
  assert.equal(priorities.length, 3);
});

test("a reader holding on another page on screen holds this page's fills; hidden, it lets go", async () => {
  const w = worker(); // no scheduler: a timer between fills (WebKit)
  const p = await live(w, "topic");
  const other = w.page();
  other.send({type: "hello", route: "figure-710"});
  other.send({type: "hold", holding: true});
  await until(() => other.types().includes("hello"), "the other page's hello");
  other.send({type: "start"}); // painted: it waits for its document no longer than its render
  await until(() => other.types().includes("render"), "the other page live");
  p.send({type: "rendered"});
  await turns(50);
  assert.deepEqual(w.fills, []);
  other.send({type: "visibility", hidden: true});
  await until(() => p.types().includes("filled"), "this page filled");
  assert.equal(w.fills.length, 3);
});
