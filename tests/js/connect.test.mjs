// How a page joins the site's Python runtime (export/connect.js), run as the page
// runs it, in a stand-in page: SharedWorker and Worker classes that record what
// was made, Web Locks the test grants, and localStorage shared between pages.
import test from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import {bundled} from "./bundled.mjs";

// As a page has it: connect.js bundled with the modules it imports.
const SOURCE = bundled("connect.js");
const settle = () => new Promise((resolve) => setImmediate(resolve));

function port() {
  const made = {sent: [], listeners: {}, onmessage: null};
  made.postMessage = (message) => made.sent.push(message);
  made.addEventListener = (name, run) => { made.listeners[name] = run; };
  return made;
}

// A page of route ``route``; ``storage`` is the origin's localStorage (pages share it).
function page({storage = new Map(), shared = true, refuse = false, locks = true, protocol = "http:"} = {}) {
  const made = {workers: [], written: [], listeners: {}, held: []};
  const window = {
    location: {protocol, pathname: "/site/figure-710.html"},
    localStorage: {getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => storage.set(k, String(v))},
    navigator: {},
    document: {
      hidden: false,
      getElementById: () => ({textContent: JSON.stringify(
        {route: "figure-710", build: "b1", pinned: ["static/bokeh.js"]})}),
      addEventListener: (name, run) => { made.listeners[`document ${name}`] = run; },
      write: (html) => made.written.push(html),
    },
    addEventListener: (name, run) => { made.listeners[name] = run; },
    Worker: class {
      constructor(url) {
        Object.assign(this, port(), {url, dedicated: true});
        made.workers.push(this);
      }
    },
  };
  if (shared) {
    window.SharedWorker = class {
      constructor(url, options) {
        if (refuse) throw new Error("SecurityError");
        Object.assign(this, {url, options, port: port()});
        made.workers.push(this);
      }
    };
  }
  if (locks) {
    window.navigator.locks = {request: (name, run) => {
      made.held.push(name);
      return Promise.resolve(name.startsWith("posviz page") ? run() : new Promise(() => {}));
    }};
  }
  window.window = window;
  vm.runInContext(SOURCE, vm.createContext(window));
  made.window = window;
  made.worker = window.posvizWorker;
  made.received = [];
  made.worker.onmessage = (event) => made.received.push({...event.data});
  made.portOf = (w) => w.port || w;
  return made;
}

test("a page joins one SharedWorker named by the build, keeps it across links, and says hello", async () => {
  const p = page();
  assert.equal(p.workers.length, 1);
  const [shared] = p.workers;
  assert.equal(shared.url, "./posviz-worker.js");
  assert.deepEqual({...shared.options}, {name: "posviz b1", extendedLifetime: true});
  assert.equal(p.worker.shared, true);
  await settle();
  const sent = shared.port.sent.map((m) => ({...m}));
  assert.equal(sent[0].type, "hello");
  assert.equal(sent[0].route, "figure-710");
  assert.match(sent[0].lock, /^posviz page /);
  assert.deepEqual(sent[1], {type: "visibility", hidden: false});
});

test("without Web Locks the hello carries no lock", async () => {
  const p = page({locks: false});
  await settle();
  assert.equal(p.workers[0].port.sent[0].lock, null);
});

test("a browser without SharedWorker, or one that refuses it, gets a dedicated worker", () => {
  for (const options of [{shared: false}, {refuse: true}]) {
    const p = page(options);
    assert.equal(p.workers.length, 1);
    assert.equal(p.workers[0].dedicated, true);
    assert.equal(p.worker.shared, false);
  }
});

test("a shared worker that errs before it said a word is replaced by a dedicated one", () => {
  const p = page();
  p.workers[0].onerror({message: "blocked"});
  assert.equal(p.workers.length, 2);
  assert.equal(p.workers[1].dedicated, true);
  assert.equal(p.worker.dedicated, true);
  assert.deepEqual(p.received, []);
});

test("a worker that errs after it spoke is an error for the page, in words", () => {
  const p = page();
  p.workers[0].port.onmessage({data: {type: "hello"}});
  p.workers[0].onerror({message: ""});
  assert.deepEqual(p.received.at(-1), {type: "error", msg: "The Python worker failed: its script could not be loaded."});
});

test("each replacement takes the next generation, shared with the origin's other pages", () => {
  const storage = new Map();
  const one = page({storage});
  one.worker.connect(); // its runtime ended
  assert.equal(one.workers[1].options.name, "posviz b1 1");
  assert.equal(storage.get("posviz-worker-generation"), "1");
  const two = page({storage}); // a page opened later joins the replacement
  assert.equal(two.workers[0].options.name, "posviz b1 1");
  storage.set("posviz-worker-generation", "3"); // another page moved on meanwhile
  one.worker.connect(); // it joins that page's replacement, not a fourth of its own
  assert.equal(one.workers[2].options.name, "posviz b1 3");
  one.worker.connect();
  assert.equal(one.workers[3].options.name, "posviz b1 4");
});

test("a connection closing says whether its runtime ever spoke; an old port is ignored", () => {
  const p = page();
  const first = p.workers[0].port;
  first.listeners.close();
  assert.deepEqual(p.received.at(-1), {type: "lost", heard: false});
  p.worker.connect();
  const second = p.workers[1].port;
  second.onmessage({data: {type: "hello"}});
  second.listeners.close();
  assert.deepEqual(p.received.at(-1), {type: "lost", heard: true});
  const before = p.received.length;
  first.onmessage({data: {type: "render"}}); // the replaced port: not delivered
  assert.equal(p.received.length, before);
});

test("messages before the loader's handler wait, in order", () => {
  const p = page();
  p.worker.onmessage = null;
  p.workers[0].port.onmessage({data: {type: "hello"}});
  p.workers[0].port.onmessage({data: {type: "progress"}});
  assert.deepEqual([...p.worker.early.map((e) => e.data.type)], ["hello", "progress"]);
});

test("a pinned script that fails its check is named; the page's own posts go to the port", () => {
  const p = page();
  p.listeners.error({target: {tagName: "SCRIPT", integrity: "sha256-x", getAttribute: () => "static/bokeh.js"}});
  assert.match(p.received.at(-1).msg, /^static\/bokeh\.js could not be loaded, or is not the file this build wrote/);
  p.listeners.error({target: {tagName: "IMG", getAttribute: () => "x.png"}});
  assert.equal(p.received.length, 1);
  p.worker.postMessage({type: "panel"});
  assert.deepEqual(p.workers[0].port.sent.at(-1), {type: "panel"});
});

test("a hidden page says so, so that it holds no one's start back", () => {
  const p = page();
  p.window.document.hidden = true;
  p.listeners["document visibilitychange"]();
  assert.deepEqual({...p.workers[0].port.sent.at(-1)}, {type: "visibility", hidden: true});
});

test("a page opened as a file starts no worker, loads its pinned scripts and says how to serve it", () => {
  const p = page({protocol: "file:"});
  assert.equal(p.workers.length, 0);
  assert.deepEqual(p.written, ['<script src="static/bokeh.js"></script>']);
  const [said] = p.worker.early; // before the loader's handler exists: it waits there
  assert.equal(said.data.type, "file");
  assert.match(said.data.msg, /python3 -m http\.server -d '\/site'\) and open http:\/\/localhost:8000\/figure-710\.html/);
});
