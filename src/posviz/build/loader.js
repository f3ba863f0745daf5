// posviz: what the reader sees while Python starts, and if it fails.
// Wraps the message handler panel convert wrote; body[data-posviz] is
// "loading", then "live" or "error" (tests and benchmarks wait on it).
(function () {
  const body = document.body;
  body.dataset.posviz = "loading";
  const bar = document.createElement("div");
  bar.className = "posviz-status";
  bar.setAttribute("role", "status");
  bar.textContent = "Preview · starting Python (1/3)";
  body.appendChild(bar);
  body.classList.remove("pn-loading");

  function fail(message) {
    if (body.dataset.posviz === "error") return;
    body.dataset.posviz = "error";
    body.classList.remove("pn-loading");
    bar.className = "posviz-status posviz-error";
    bar.textContent = "";
    const title = document.createElement("strong");
    title.textContent = "The live figures could not start. ";
    const detail = document.createElement("span");
    detail.textContent = message + " The preview above is not interactive; reload to try again.";
    bar.append(title, detail);
  }

  // A runtime file that never arrives can leave Pyodide waiting forever: give up
  // with a message rather than spin. Each progress message restarts the clock.
  const STALL_MS = 90000;
  let stage = "starting Python";
  let watchdog = setTimeout(stalled, STALL_MS);
  function stalled() {
    if (body.dataset.posviz === "loading") fail(`Loading stopped while ${stage}.`);
  }

  const original = pyodideWorker.onmessage;
  pyodideWorker.onmessage = async (event) => {
    const msg = event.data;
    if (msg.type === "progress") {
      stage = msg.stage.toLowerCase();
      clearTimeout(watchdog);
      watchdog = setTimeout(stalled, STALL_MS);
      bar.textContent = `Preview · ${msg.stage.toLowerCase()} (${msg.step}/${msg.of})`;
      return;
    }
    if (msg.type === "error") {
      fail(msg.msg);
      return;
    }
    if (msg.type === "status") return;
    try {
      await original(event);
    } catch (error) {
      fail(String(error));
      return;
    }
    if (msg.type === "render") {
      clearTimeout(watchdog);
      body.classList.remove("pn-loading");
      body.dataset.posviz = "live";
      window.posvizLiveMs = performance.now();
      window.posvizTimings = msg.timings;
      bar.remove();
    }
  };
  // Let Python start once the pre-rendered figures are on screen (or after a
  // short wait if there is nothing to draw).
  let startSent = false;
  const start = () => {
    if (!startSent) { startSent = true; pyodideWorker.postMessage({type: "start"}); }
  };
  const whenPainted = () => {
    const roots = window.Bokeh && Bokeh.index && Bokeh.index.roots;
    if (roots && roots.length && roots.every(v => v.has_finished && v.has_finished())) {
      requestAnimationFrame(start);
    } else if (!startSent) {
      requestAnimationFrame(whenPainted);
    }
  };
  requestAnimationFrame(whenPainted);
  setTimeout(start, 2000);

  for (const event of pyodideWorker.early || []) pyodideWorker.onmessage(event);
  pyodideWorker.early = [];
  pyodideWorker.onerror = (event) => fail(`The Python worker failed: ${event.message || "it could not be loaded"}.`);
})();
