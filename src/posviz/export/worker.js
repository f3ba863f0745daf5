// posviz: the Python runtime that every page of the static site shares.
// As a SharedWorker it serves every connected page (and figure iframe) its own
// Bokeh document over that page's MessagePort; as a dedicated worker (browsers
// without SharedWorker) it serves the one page that started it. The protocol
// is the same: the page says "hello" with its route, then "start" once its
// pre-rendered figures are painted, and "visibility" whenever it is hidden or
// shown again; Python answers with "render", then the two sides exchange
// "patch" messages as in Panel's pyodide-worker target.
// Every byte comes from the site's own folder; the build fills in SITE and
// bundles the modules below with it (posviz.assets.bundle).
import * as Checked from "./checked.js";
import * as FillGate from "./fill_gate.js";
import * as Protocol from "./protocol.js";
import {webLocks} from "./signals.js";

const SITE = __SITE__;
const {describe} = Protocol;
const SHARED =
  typeof SharedWorkerGlobalScope !== "undefined" && self instanceof SharedWorkerGlobalScope;
const here = (path) => new URL(path, self.location.href).href;
const born = performance.now();
const since = (t) => Math.round(performance.now() - t);
// What a page can learn about the runtime it joined (tests and benchmarks read it).
const RUNTIME = {
  id: Math.random().toString(36).slice(2, 10),
  shared: SHARED,
  connections: 0, // pages that have connected, ever
  open: 0, // pages connected now
  state: "waiting", // waiting, starting, ready or failed
  stage: null,
  timings: {},
  fetched: ["posviz-worker.js"], // the site's files this runtime fetched and checked (offline.js keeps them)
};
const connections = new Map();
// Held while this runtime lives: a page waiting for it learns when it dies.
// Pages hear "hello" only once it is held, so none can be granted it first.
// A browser may lack Web Locks or refuse them (a frame on another site whose
// storage it blocks): then there are none, and nothing waits for them.
const locks = webLocks(self);
const holding = locks
  ? new Promise((held) => {
    locks.request(`posviz runtime ${RUNTIME.id}`, () => {
      held();
      return new Promise(() => {});
    }).catch(() => held());
  })
  : Promise.resolve();
let python = null; // the Python side's entry points, once ready
let emscripten = null; // Pyodide's module: its memory, for runtimeInfo

// Pyodide's start, and every byte it fetches, waits until the pages have painted
// their pre-rendered figures and have their frames (each page says "start"): on
// a slow link the runtime's files would otherwise share it with the page's own.
// A page that is hidden (a tab behind, which paints nothing) or gone holds no one
// back: no timer decides it, the pages' own states do.
let allow;
const allowed = new Promise((resolve) => { allow = resolve; });
let startAsked = false;
function allowWhenPainted() {
  if (startAsked && [...connections.values()].every((c) => c.painted || c.hidden)) allow();
}
// The next fill waits behind every task the browser has queued, the pages' messages
// among them: at background priority where the browser has a scheduler. A timer
// of 0 ms came first in Chromium's worker, three fills in a row before a reader's
// change that waited (benchmarks/hold.py, "away").
function behindMessages() {
  const scheduler = /** @type {any} */ (self).scheduler;
  if (scheduler?.postTask) return scheduler.postTask(() => {}, {priority: "background"});
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// Wakes the pages that wait to fill (fill_gate.js) at each change of what it checks.
const fills = FillGate.waker();
const wake = fills.wake;
const mayFill = (connection) => FillGate.mayFill(connection, connections.values());

// Panel's tier loads only when a page asks for it ("panel"): the numpy tier
// answers every state of a figure that has a frame module, so a page whose
// figures all have one needs no Panel (loader.js asks for it otherwise).
let wantPanel;
const panelWanted = new Promise((resolve) => { wantPanel = resolve; });

function runtimeInfo(connection) {
  return {
    id: RUNTIME.id, shared: RUNTIME.shared, connection: connection.id,
    connections: RUNTIME.connections, open: RUNTIME.open, state: RUNTIME.state,
    joined: connection.joined,
    documents: python ? python.documents() : 0, // Bokeh documents alive in Python
    memory: emscripten ? emscripten.HEAPU8.buffer.byteLength : 0, // bytes of Pyodide's WebAssembly memory
    fetched: [...RUNTIME.fetched],
  };
}

function stage(name, step) {
  RUNTIME.stage = {stage: name, step, of: 3};
  for (const connection of connections.values()) {
    if (!connection.rendered) connection.progress();
  }
}

// At most this many of the worker's requests at once, in the order asked: over
// HTTP/1.1 a browser opens six connections to a host, and the pages' own files
// (the search index, a page opened meanwhile) must never wait behind a runtime
// download. Two, not more: on a shared link the files asked first (Pyodide's
// core) are in soonest, and Pyodide starts while numpy's wheel still arrives.
const IN_FLIGHT = 2;
let flying = 0;
const queued = [];
async function inFlight(task) {
  if (flying >= IN_FLIGHT) await new Promise((resolve) => queued.push(resolve));
  flying += 1;
  try {
    return await task();
  } finally {
    flying -= 1;
    queued.shift()?.();
  }
}

// A file of the site, checked against the sha256 the build wrote; a failure
// names the file. Its bytes, or with ``keep`` the unread response itself (a
// fetched response keeps its URL, so the browser can cache compiled wasm).
async function fetchChecked(path, expected, keep = false) {
  // No priority hint: the tiers never share the link (each waits on the one before),
  // and in WebKitGTK 2.50 `priority: "low"` here stalled an offline reload.
  const {response, bytes} = await inFlight(() => Checked.fetchChecked(here(path), path, expected, keep));
  RUNTIME.fetched.push(path);
  return keep ? response : bytes;
}

// Every file is checked here, Pyodide's own too: it would wait forever for a
// missing wasm, and fail on a missing stdlib or lock with a message that names
// neither. Bytes in the order a reader needs them: nothing until the pages say
// "start" (their text, scripts and frames are in); then the numpy tier's files
// (the core, numpy's wheel, posviz's); Panel's only once those are in and a page
// has asked for Panel, so that they never share the link with the numpy tier.
const SCRIPTS = ["pyodide.js", "pyodide.asm.js"]; // run with importScripts, from their bytes
const first = []; // the numpy tier's files
let release;
const later = new Promise((resolve) => { release = resolve; });
function request(path, expected, soon, keep = false) {
  if (!soon) return later.then(() => fetchChecked(path, expected, keep));
  const promise = allowed.then(() => fetchChecked(path, expected, keep));
  first.push(promise);
  return promise;
}
const core = new Map(SITE.core.map(({name, sha256: expected}) => [
  here(SITE.pyodide + name), request(SITE.pyodide + name, expected, true, !SCRIPTS.includes(name))]));
// The lock's package files, by the URL loadPackage asks for: it is handed these bytes.
const packages = new Map(SITE.packages.map(({path, sha256: expected, numpy: soon}) => [
  here(path), request(path, expected, soon)]));
const fetched = SITE.wheels.map(({path, sha256: expected}, index) => (
  request(path, expected, SITE.numpy.wheels.includes(index))));
Promise.allSettled(first).then(async () => {
  RUNTIME.timings["numpy tier files in"] = since(born);
  await panelWanted;
  release();
});
for (const promise of [...fetched, ...core.values(), ...packages.values()]) {
  promise.catch(() => {}); // reported by boot()
}

// Pyodide fetches its files itself: hand it the checked bytes instead.
async function loadCheckedPyodide(options) {
  // The first file to fail is the one named.
  const files = new Map(await Promise.all([...core].map(
    async ([url, file]) => /** @type {[string, any]} */ ([url, await file]))));
  const run = (name) => {
    const bytes = files.get(here(SITE.pyodide + name));
    if (!bytes) return importScripts(here(SITE.pyodide + name));
    const url = URL.createObjectURL(new Blob([bytes], {type: "text/javascript"}));
    try {
      importScripts(url);
    } finally {
      URL.revokeObjectURL(url);
    }
  };
  run("pyodide.js");
  // Defines _createPyodideModule, so that Pyodide loads no pyodide.asm.js of its own.
  if (files.size) run("pyodide.asm.js");
  const original = self.fetch;
  self.fetch = (input, init) => {
    const url = new URL(typeof input === "object" && "url" in input ? input.url : input,
                        self.location.href).href;
    const response = files.get(url);
    if (!(response instanceof Response)) return original(input, init);
    files.delete(url);
    return Promise.resolve(response);
  };
  try {
    return await loadPyodide(options);
  } finally {
    self.fetch = original;
  }
}

// Tier 2: numpy and posviz's frame modules, long before Panel. A page's
// "compute" waits for this, never for Panel (posviz/runtime/compute.py).
let compute = null;
let numpyReady;
const numpy = new Promise((resolve, reject) => { numpyReady = {resolve, reject}; });
numpy.catch(() => {}); // reported by boot()
// A turn of the event loop: the pages' messages that arrived meanwhile are handled.
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

async function loadChecked(pyodide, names) {
  // The files of these packages, fetched and checked already: the first to fail is named.
  const wanted = SITE.packages.filter(({name, path}) => names.includes(name) && packages.has(here(path)));
  const files = new Map(await Promise.all(
    wanted.map(async ({path}) => [here(path), await packages.get(here(path))])));
  // loadPackage reports a failed package (a hash mismatch, a missing file) to
  // errorCallback and carries on; stop here instead of failing later on import.
  const problems = [];
  const original = self.fetch;
  self.fetch = (input, init) => {
    const url = new URL(typeof input === "object" && "url" in input ? input.url : input,
                        self.location.href).href;
    return files.has(url) ? Promise.resolve(new Response(files.get(url))) : original(input, init);
  };
  try {
    await pyodide.loadPackage(names, {
      messageCallback: () => {},
      errorCallback: (message) => problems.push(message),
      checkIntegrity: true,
    });
  } finally {
    self.fetch = original;
    for (const url of files.keys()) packages.delete(url); // its bytes are in Pyodide now
  }
  const missing = names.filter((name) => !(name in pyodide.loadedPackages));
  if (problems.length || missing.length) {
    throw new Error(`Could not load ${missing.join(", ") || "a package"}: ${problems.join(" ") || "no reason given"}`);
  }
}

// Pure wheels need no resolver: unpack them straight into site-packages.
async function unpack(pyodide, indices) {
  for (const index of indices) {
    const bytes = await fetched[index];
    try {
      pyodide.unpackArchive(bytes, "wheel", {extractDir: SITE.site_packages});
    } catch (error) {
      throw new Error(`${SITE.wheels[index].path} could not be unpacked: ${describe(error).msg}`);
    }
  }
}

async function boot() {
  await allowed;
  RUNTIME.state = "starting";
  const timings = RUNTIME.timings;
  timings["waited for the paint"] = since(born);
  stage("Starting Python", 1);
  let t = performance.now();
  const pyodide = await loadCheckedPyodide({indexURL: here(SITE.pyodide), fullStdLib: false});
  emscripten = pyodide._module;
  timings["start pyodide"] = since(t);
  stage("Installing packages", 2);
  t = performance.now();
  try {
    await loadChecked(pyodide, SITE.numpy.packages);
    await unpack(pyodide, SITE.numpy.wheels);
    compute = pyodide.pyimport("posviz.runtime.compute");
  } catch (error) {
    numpyReady.reject(error);
    throw error;
  }
  timings["numpy tier"] = since(t);
  timings["numpy tier ready"] = since(born);
  RUNTIME.numpy = true;
  numpyReady.resolve();
  for (const connection of connections.values()) connection.numpy();
  await panelWanted;
  await turn();
  t = performance.now();
  await loadChecked(pyodide, SITE.lock_packages.filter((name) => !SITE.numpy.packages.includes(name)));
  await unpack(pyodide, SITE.wheels.map((_, index) => index).filter((index) => !SITE.numpy.wheels.includes(index)));
  timings["install packages"] = since(t);
  await turn();
  t = performance.now();
  // Panel's tier, a module at a time: the pages' requests are answered between two.
  const start = pyodide.pyimport("posviz.runtime.boot");
  start.prepare(SITE.cdn_root);
  for (const name of start.STEPS.toJs()) {
    start.step(name);
    await turn();
  }
  python = start.runtime();
  timings["import panel and holoviews"] = since(t);
  RUNTIME.state = "ready";
  timings["runtime ready"] = since(born);
}

// Panel's tier: boot() goes on past the numpy tier. Once asked, for good.
function panel() {
  if (RUNTIME.panel) return;
  RUNTIME.panel = true;
  wantPanel();
  for (const connection of connections.values()) {
    if (!connection.rendered) connection.progress();
  }
}

// Tier 2 is up (boot() started, once a page has painted).
function numpyTier() {
  runtime().catch(() => {});
  return numpy;
}

let booting = null;
function runtime() {
  if (!booting) {
    booting = boot().catch((error) => {
      RUNTIME.state = "failed";
      console.error("posviz: the Python runtime could not start:", describe(error).detail);
      throw error;
    });
  }
  return booting;
}

class Connection {
  constructor(port) {
    this.port = port;
    this.id = ++RUNTIME.connections;
    RUNTIME.open += 1;
    this.joined = RUNTIME.state; // "ready": this page found Python running
    this.rendered = false;
    this.awaiting = false; // between its hello and its document sent (or its failure)
    this.closed = false;
    this.painted = false; // the page said "start": its preview is on screen
    this.hidden = false; // the page is behind another tab, or minimised: it paints nothing
    this.near = null; // ids of the figures near the reader's viewport (lazy.js), once it says
    this.holding = false; // the reader is at a figure's controls (lazy.js, "hold"): fills wait
    this.started = new Promise((resolve) => {
      this.start = () => { this.painted = true; resolve(); };
    });
    this.chain = Promise.resolve();
    this.connected = performance.now();
    connections.set(this.id, this);
  }

  post(message) {
    if (!this.closed) this.port.postMessage(message);
  }

  // Tier 2 is up; ``panel``: whether Panel's tier follows (else only when asked).
  numpy() {
    this.post({type: "numpy", ms: since(this.connected), timings: {...RUNTIME.timings},
               panel: Boolean(RUNTIME.panel), runtime: runtimeInfo(this)});
  }

  progress() {
    if (RUNTIME.stage) {
      this.post({type: "progress", ...RUNTIME.stage, ms: since(this.connected),
                 runtime: runtimeInfo(this)});
    }
  }

  error(error) {
    const {msg, detail} = describe(error);
    console.error(`posviz: page ${this.route} (connection ${this.id}):`, detail);
    this.post({type: "error", msg, detail, runtime: runtimeInfo(this)});
  }

  // Messages of one page are handled in order, each in its own try: one bad
  // message cannot leave the page waiting for an answer that never comes.
  receive(message) {
    const refused = Protocol.refusal(message);
    if (refused) {
      this.error(new Error(refused));
      return;
    }
    if (message.type === "visibility") { // not in the chain: a hello may be waiting ahead of it
      this.hidden = Boolean(message.hidden);
      allowWhenPainted();
      wake();
      return;
    }
    if (message.type === "hold") { // not in the chain either: it decides when the next fill starts
      this.holding = message.holding;
      wake();
      return;
    }
    this.chain = this.chain.then(() => this.handle(message)).catch((error) => this.error(error));
  }

  async handle(message) {
    switch (message.type) {
      case "hello":
        // One connection, one page, one document: a second hello would build
        // another document and orphan the first.
        if (this.route !== undefined) {
          throw new Error(`posviz worker: page ${this.route} said hello twice; it keeps its document`);
        }
        this.route = String(message.route);
        this.awaiting = true; // its document: the pages that fill wait for it (mayFill)
        await holding;
        this.post({type: "hello", runtime: runtimeInfo(this)});
        if (RUNTIME.numpy) this.numpy(); // tier 2 is up already
        // The page holds this lock while it lives: once it is ours, the page is
        // gone, or another page took its lock; if it is still there, it is told.
        if (message.lock && locks) {
          locks.request(String(message.lock), () => {
            this.post({type: "lost", msg: "Python closed this page's connection: another page took over its lock"});
            this.close();
          }).catch(() => {});
        }
        this.render();
        return;
      case "panel": // an action the faster tiers cannot serve: Panel's tier loads
        panel();
        return;
      case "start":
        this.start();
        if (message.panel) panel();
        // Once every page that has connected and is on screen has painted, Pyodide
        // may take the link and the cores (a page hidden or gone later says so).
        startAsked = true;
        allowWhenPainted();
        return;
      case "rendered":
        python.link(this.id, (patch, buffers) => this.post({type: "patch", patch, buffers}));
        void this.fill();
        return;
      case "near":
        this.near = message.figures.filter((id) => Number.isInteger(id));
        return;
      case "patch":
        try {
          python.patch(this.id, message.patch);
        } finally {
          this.post({type: "idle"});
        }
        return;
      case "location":
        python.location(this.id, String(message.location));
        return;
      case "compute":
        this.compute(message); // not in the chain: it waits for numpy, not for this page's turn
        return;
      case "search":
        // The slider values on the page's preview (frames.js): the page is built with them.
        this.search = String(message.search);
        return;
      default: // Protocol.refusal let it through: a type listed there and not handled here
        throw new Error(`posviz worker: no handler for message type ${JSON.stringify(message.type)}`);
    }
  }

  // Build this page's document as soon as Python is ready; send it once the
  // page has painted its preview (the live figures replace the preview).
  async render() {
    try {
      this.progress();
      await runtime();
      if (this.closed) return;
      // Which figures are near the reader's viewport: a page that lazy.js draws says
      // so before it paints. Python builds those now and the others after (fill).
      if (this.near === null) await this.started;
      if (this.closed) return;
      this.stageBuilding();
      const t = performance.now();
      const [docs_json, render_items, root_ids, timings] = JSON.parse(
        python.render(this.id, this.route, this.search || "", JSON.stringify(this.near)));
      timings["build page"] = since(t);
      // Awaiting even a settled promise would let the next page's build run
      // first: a page that has painted gets its document the moment it is built.
      if (!this.painted) await this.started;
      timings["worker total"] = since(born);
      timings["connection total"] = since(this.connected);
      this.rendered = true;
      this.post({type: "render", docs_json, render_items, root_ids,
                 timings: {...RUNTIME.timings, ...timings}, runtime: runtimeInfo(this)});
    } catch (error) {
      this.error(error);
      if (RUNTIME.state === "failed") this.failed();
    } finally {
      this.awaiting = false;
      wake();
    }
  }

  // The figures the page's build left for later, one at a time, nearest first;
  // between two, the event loop runs: a reader's change waits for one figure at most.
  // Only while this page may (mayFill): it pauses while hidden, while another waits,
  // or while a reader's pointer rests on a figure's controls.
  async fill() {
    const t = performance.now();
    let left = 1;
    while (left > 0 && !this.closed) {
      await behindMessages();
      while (!this.closed && !mayFill(this)) await fills.changed();
      if (this.closed) return;
      try {
        left = python.fill(this.id, JSON.stringify(this.near || []));
      } catch (error) {
        this.error(error);
        return;
      }
    }
    if (!this.closed) this.post({type: "filled", ms: since(t)});
  }

  // Tier 2: a frame for a state the page holds none for, computed numpy only.
  async compute(message) {
    try {
      await numpyTier();
    } catch {
      return; // the page hears why from render()
    }
    if (this.closed) return;
    const t = performance.now();
    const result = compute.answer(JSON.stringify(message.request));
    let answer;
    let pool;
    try {
      [answer, pool] = result.toJs();
    } finally {
      result.destroy();
    }
    this.post({type: "frame", figure: message.figure, answer, pool, ms: since(t)});
  }

  stageBuilding() {
    this.post({type: "progress", stage: "Building the page", step: 3, of: 3,
               ms: since(this.connected), runtime: runtimeInfo(this)});
  }

  failed() {
    // A runtime that could not start is of no use to the next page: end it so
    // that a reload starts a fresh one (every open page has been told why).
    if (SHARED) setTimeout(() => self.close(), 100);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    RUNTIME.open -= 1;
    connections.delete(this.id);
    allowWhenPainted(); // it held the others back if it had not painted
    wake();
    if (python) {
      try { python.close(this.id); } catch (error) { console.error(error); }
    }
  }
}

function accept(port) {
  const connection = new Connection(port);
  port.onmessage = (event) => connection.receive(event.data || {});
  // Chromium fires "close" when the page is gone; its document can go too.
  port.addEventListener("close", () => connection.close());
  return connection;
}

if (SHARED) {
  self.onconnect = (event) => accept(event.ports[0]);
} else {
  accept(self);
}
