// posviz: connect this page to the site's Python runtime, before its other scripts.
// One SharedWorker runs Pyodide for every posviz page and figure iframe of the
// origin; each page talks to it over its own MessagePort and gets its own Bokeh
// document. extendedLifetime keeps it alive while the reader follows a link
// (Chromium 148+). Without SharedWorker, or when the browser refuses this page
// one (a frame on another site whose storage it blocks), the page starts a
// dedicated worker. window.posvizWorker stands in for the worker in Panel's
// page script. Every page loads this one file; the page's own settings come
// just before it (#posviz-page): its route, the build's id, and its scripts that
// carry an integrity sha256 (export/adapter.py, rewrite_page).
import {webLocks} from "./signals.js";

(() => {
  const settings = JSON.parse(document.getElementById("posviz-page").textContent);
  const {route: ROUTE, build: BUILD, pinned: PINNED} = settings;
  const worker = {early: [], onmessage: null, attempt: 0, dedicated: false};
  window.posvizWorker = worker; // the page's other scripts (loader.js, frames.js) talk through it
  // Messages wait here until Panel's handler exists (the loader replays them).
  const deliver = (event) => (worker.onmessage ? worker.onmessage(event) : worker.early.push(event));
  const local = (data) => deliver({data});
  worker.postMessage = (message) => worker.port.postMessage(message);

  // A script the build pinned (integrity attribute) that fails to load or to match.
  window.addEventListener("error", (event) => {
    const script = /** @type {HTMLScriptElement | null} */ (event.target);
    if (script && script.tagName === "SCRIPT" && script.integrity && location.protocol !== "file:") {
      const file = script.getAttribute("src");
      local({type: "error", msg: `${file} could not be loaded, or is not the file this build wrote (its sha256 differs)`});
    }
  }, true);

  if (location.protocol === "file:") {
    // A file has no CORS, so the browser refuses every script that carries an
    // integrity sha256: load them here, in order, without it (the pinned tags
    // that follow then fail their check and do not run).
    for (const src of PINNED) document.write(`<script src="${src}"></script>`);
    // Browsers start no worker for a page opened as a file: say how to serve it.
    const path = decodeURIComponent(location.pathname);
    const folder = path.slice(0, path.lastIndexOf("/")) || "/";
    const name = path.slice(path.lastIndexOf("/") + 1);
    worker.port = {postMessage() {}};
    worker.watch = () => {};
    worker.connect = () => {};
    local({type: "file", msg: "Opened as a file: the sliders answer from precomputed states. "
      + "For any state and live Python, serve this folder "
      + `(python3 -m http.server -d '${folder}') and open http://localhost:8000/${name}`});
    return;
  }

  // Web Locks say when either side is gone (a lock is released when its holder
  // ends): the page holds one while it lives, the runtime another. A browser
  // may lack them or refuse them (blocked third-party storage): then there are none.
  const locks = webLocks(window);
  const page = `posviz page ${Math.random().toString(36).slice(2)}`;
  const living = !locks ? Promise.resolve(null) : new Promise((resolve) => {
    locks.request(page, () => { resolve(page); return new Promise(() => {}); })
      .catch(() => resolve(null)); // refused: no lock (a no-op once it was held)
  });
  worker.watch = (runtime) => {
    const port = worker.port;
    if (locks) {
      locks.request(`posviz runtime ${runtime}`, () => {
        if (worker.port === port) local({type: "lost"});
      }).catch(() => {});
    }
  };
  // The runtime's generation, in the SharedWorker's name: each replacement of a
  // runtime that ended takes the next one, because Firefox hands back the dead
  // worker of a name it has seen. The origin's pages keep it in localStorage, so
  // every page (and one opened later) joins the same replacement.
  const GENERATION = "posviz-worker-generation";
  const stored = () => {
    try { return Number(localStorage.getItem(GENERATION)) || 0; } catch { return 0; }
  };
  worker.generation = stored();
  worker.connect = () => {
    worker.attempt += 1;
    if (worker.attempt > 1 && !worker.dedicated) {
      // Every page that lost generation g moves to g + 1, or later if one already has.
      worker.generation = Math.max(stored(), worker.generation + 1);
      try { localStorage.setItem(GENERATION, String(worker.generation)); } catch { /* none */ }
    }
    let host = null;
    let port = null;
    if (!worker.dedicated && typeof SharedWorker === "function") {
      try {
        const name = worker.generation ? `posviz ${BUILD} ${worker.generation}` : `posviz ${BUILD}`;
        host = new SharedWorker("./posviz-worker.js", {name, extendedLifetime: true});
        port = host.port;
      } catch {
        host = null;
      }
    }
    const shared = host !== null;
    worker.shared = shared;
    if (!host) port = host = new Worker("./posviz-worker.js");
    let heard = false;
    const mine = (handler) => (event) => { if (worker.port === port) handler(event); };
    port.onmessage = mine((event) => { heard = true; deliver(event); });
    host.onerror = mine((event) => {
      if (shared && !heard) {
        // Refused before it said a word (a frame whose storage the browser
        // blocks, for one): a dedicated worker needs no storage.
        worker.dedicated = true;
        worker.connect();
        return;
      }
      local({type: "error", msg: `The Python worker failed: ${event.message || "its script could not be loaded"}.`});
    });
    // "heard": whether this connection's runtime ever spoke. One that closes
    // silently may be the dead runtime the browser handed back while it ended.
    port.addEventListener("close", mine(() => local({type: "lost", heard})));
    worker.port = port;
    worker.host = host;
    living.then((lock) => {
      if (worker.port !== port) return;
      port.postMessage({type: "hello", route: ROUTE, lock});
      port.postMessage({type: "visibility", hidden: document.hidden});
    });
  };
  // A page behind another tab paints nothing: it must not hold back the runtime's
  // start for the pages on screen (export/worker.js, allowWhenPainted).
  document.addEventListener("visibilitychange", () => {
    if (worker.port) worker.port.postMessage({type: "visibility", hidden: document.hidden});
  });
  worker.connect();
})();
