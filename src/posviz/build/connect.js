// posviz: connect this page to the site's Python runtime, first thing in <head>.
// One SharedWorker runs Pyodide for every posviz page and figure iframe of the
// origin; each page talks to it over its own MessagePort and gets its own Bokeh
// document. extendedLifetime keeps it alive while the reader follows a link
// (Chromium 148+). Without SharedWorker, each page starts a dedicated worker
// as before. window.posvizWorker stands in for the worker in Panel's page script.
(function () {
  const ROUTE = __ROUTE__;
  const BUILD = __BUILD__;
  const worker = (window.posvizWorker = {early: [], onmessage: null, attempt: 0});
  // Messages wait here until Panel's handler exists (the loader replays them).
  const deliver = (event) => (worker.onmessage ? worker.onmessage(event) : worker.early.push(event));
  const local = (data) => deliver({data});
  worker.postMessage = (message) => worker.port.postMessage(message);
  // Web Locks say when either side is gone (a lock is released when its holder
  // ends): the page holds one while it lives, the runtime another.
  const locks = typeof navigator !== "undefined" && navigator.locks;
  const page = `posviz page ${Math.random().toString(36).slice(2)}`;
  const living = locks
    ? new Promise((held) => locks.request(page, () => { held(); return new Promise(() => {}); }))
        .then(() => page)
    : Promise.resolve(null);
  worker.watch = (runtime) => {
    const port = worker.port;
    if (locks) {
      locks.request(`posviz runtime ${runtime}`, () => {
        if (worker.port === port) local({type: "lost"});
      });
    }
  };
  worker.connect = () => {
    worker.attempt += 1;
    let host = null;
    let port = null;
    if (typeof SharedWorker === "function") {
      try {
        host = new SharedWorker("./posviz-worker.js", {name: `posviz ${BUILD}`, extendedLifetime: true});
        port = host.port;
      } catch (error) {
        host = null;
      }
    }
    worker.shared = host !== null;
    if (!host) port = host = new Worker("./posviz-worker.js");
    const mine = (handler) => (event) => { if (worker.port === port) handler(event); };
    port.onmessage = mine(deliver);
    host.onerror = mine((event) => local({type: "error",
      msg: `The Python worker failed: ${event.message || "its script could not be loaded"}.`}));
    port.addEventListener("close", mine(() => local({type: "lost"})));
    worker.port = port;
    worker.host = host;
    living.then((lock) => port.postMessage({type: "hello", route: ROUTE, lock}));
  };
  worker.connect();
})();
