// posviz: what the reader sees while Python starts, and whenever it fails.
// Wraps the message handler panel convert wrote; body[data-posviz] is
// "loading", then "numpy" (every figure answers any state from the numpy tier;
// Panel is not needed, so not loaded), "live" (Panel's document) or "error"
// (tests and benchmarks wait on it), or "file" for a page opened as a file (no
// Python; its frames still answer). Panel's tier loads only when the page needs
// it: a figure without a frame module, or window.posvizPanel === "eager" (the
// test harness sets it), or a call of window.posvizNeedPanel().
// window.posvizRuntime tells which runtime this page joined (see worker.js). A page
// without figures starts Python too, for the next page to join, and shows no bar.
import {ISLANDS, whenPainted} from "./signals.js";

(() => {
  const body = document.body;
  const worker = pyodideWorker;
  body.dataset.posviz = "loading";
  const bar = document.createElement("div");
  bar.className = "posviz-status";
  bar.setAttribute("role", "status");
  body.classList.remove("pn-loading");
  let note = ""; // why this start is not an ordinary first start
  let stage = {stage: "Starting Python", step: 1, of: 3};
  let numpyReady = false; // the figures answer any state now; Panel is still loading
  // Figures whose states only Panel's Python can draw: no frame module.
  const framesSettings = document.getElementById("posviz-frames");
  const withModule = new Set(Object.entries(
    framesSettings ? JSON.parse(framesSettings.textContent).figures : {})
    .filter(([, files]) => files.module).map(([id]) => id));
  const islands = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(ISLANDS))];
  let panelAsked = window.posvizPanel === "eager"
    || islands.some((island) => !withModule.has(island.dataset.figure));
  // A page without figures (home, a tag's list) starts Python for the next page
  // to join, and says nothing about it: nothing on it turns live. Its failures go
  // to the console; a page with figures that meets them says so.
  const quiet = islands.length === 0;
  /** @param {"appendChild" | "prepend"} [place] */
  const showBar = (place = "appendChild") => {
    if (!quiet && !bar.isConnected) body[place](bar);
  };
  showBar();
  const lower = (text) => text.charAt(0).toLowerCase() + text.slice(1); // keeps "Python"
  const sentence = (text) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
  const show = () => {
    const why = note ? `${note} · ` : "";
    const tier = numpyReady ? "figures answer · the rest: " : "";
    bar.textContent = `Preview · ${why}${tier}${lower(stage.stage)} (${stage.step}/${stage.of})`;
  };
  show();

  function fail(message) {
    const live = body.dataset.posviz === "live";
    if (body.dataset.posviz === "error" || quiet) console.error("posviz:", message);
    if (body.dataset.posviz === "error") return;
    body.dataset.posviz = "error";
    body.classList.remove("pn-loading");
    bar.className = "posviz-status posviz-error";
    bar.textContent = "";
    const title = document.createElement("strong");
    const detail = document.createElement("span");
    if (live) {
      title.textContent = "The live figures stopped working. ";
      detail.textContent = `${sentence(message)} Reload the page to start them again.`;
    } else {
      title.textContent = "The live figures could not start. ";
      detail.textContent = `${sentence(message)} The preview above is not interactive; reload to try again.`;
    }
    bar.append(title, detail);
    showBar(); // it left the page when it went live
  }

  // Which runtime started last in this browser, and whether it got as far as a
  // live page: a start that never finished is worth telling the reader about.
  const KEY = "posviz-runtime";
  const remember = (id, state) => {
    try { localStorage.setItem(KEY, JSON.stringify({id, state})); } catch { /* private mode */ }
  };
  const recall = () => {
    try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch { return {}; }
  };

  // A runtime file that never arrives can leave Pyodide waiting forever: give up
  // with a message rather than spin. Each progress message restarts the clock.
  const STALL_MS = 90000;
  let watchdog = setTimeout(stalled, STALL_MS);
  function stalled() {
    if (body.dataset.posviz === "loading") fail(`Loading stopped while ${lower(stage.stage)}.`);
  }

  const RESTARTS = 2;
  let restarts = 0;
  let silent = 0; // connections that closed before their runtime spoke
  let startSent = false;
  const original = worker.onmessage;
  worker.onmessage = async (event) => {
    const msg = event.data;
    try {
      if (msg.type === "hello") {
        window.posvizRuntime = msg.runtime;
        worker.watch(msg.runtime.id);
        const last = recall();
        if (msg.runtime.state === "waiting" && last.id && last.id !== msg.runtime.id
            && last.state === "starting" && !note) {
          note = "the last start of Python did not finish, so a new one starts";
        }
        if (msg.runtime.state !== "ready") remember(msg.runtime.id, "starting");
        if (startSent) worker.postMessage({type: "start", panel: panelAsked}); // a new runtime after a restart
        return;
      }
      if (msg.type === "progress") {
        window.posvizRuntime = msg.runtime;
        if (body.dataset.posviz === "error") return; // the message stays; no "Preview" over it
        stage = msg;
        clearTimeout(watchdog);
        watchdog = setTimeout(stalled, STALL_MS);
        show();
        return;
      }
      if (msg.type === "lost") {
        // Python closed this page's connection, and said why.
        if (msg.msg) {
          fail(msg.msg);
          return;
        }
        // A connection closed before its runtime said a word: the browser
        // handed back the runtime that was ending. Ask again, a moment later.
        if (msg.heard === false && silent < RESTARTS) {
          silent += 1;
          setTimeout(() => worker.connect(), 250 * silent);
          return;
        }
        // The runtime went away (it crashed, or the browser ended it).
        if (["loading", "numpy"].includes(body.dataset.posviz) && restarts < RESTARTS) {
          body.dataset.posviz = "loading";
          showBar();
          restarts += 1;
          note = "Python stopped while starting, so it starts again";
          stage = {stage: "Starting Python", step: 1, of: 3};
          show();
          worker.connect();
        } else {
          fail("The Python runtime stopped.");
        }
        return;
      }
      if (msg.type === "file") { // no Python for a file: the frames answer, and it says why
        body.dataset.posviz = "file";
        bar.textContent = msg.msg;
        // A note that stays, so it takes its own line at the top rather than float over text.
        bar.classList.add("posviz-note");
        bar.remove();
        showBar("prepend");
        return;
      }
      if (msg.type === "error") {
        if (msg.runtime) window.posvizRuntime = msg.runtime;
        if (msg.detail) console.error("posviz:", msg.detail);
        fail(msg.msg);
        return;
      }
      if (msg.type === "status") return;
      // Python has built the figures it left for later (export/lazy.js shows each as it comes).
      if (msg.type === "filled") {
        window.posvizFilled = {ms: msg.ms, at: performance.now()};
        return;
      }
      // Tier 2 (the numpy tier): posviz-frames.js shows what it computed.
      if (msg.type === "numpy" || msg.type === "frame") {
        const frames = window.posvizFrames;
        if (frames) (msg.type === "numpy" ? frames.numpy : frames.receive)(msg);
        if (msg.type === "numpy") {
          if (msg.runtime) window.posvizRuntime = msg.runtime;
          numpyReady = true;
          show();
          if (!msg.panel && !panelAsked) settle();
        }
        return;
      }
      await original(event);
      if (msg.type === "render") {
        clearTimeout(watchdog);
        body.classList.remove("pn-loading");
        body.dataset.posviz = "live";
        window.posvizLiveMs = performance.now();
        window.posvizTimings = msg.timings;
        window.posvizRuntime = msg.runtime;
        remember(msg.runtime.id, "ready");
        bar.remove();
      }
    } catch (error) {
      fail(String((error?.message) || error));
    }
  };
  // The numpy tier answers every figure here and no one asked for Panel: the
  // page is as live as it gets without Panel's 7.6 MB. The bar goes, as at "live".
  function settle() {
    if (body.dataset.posviz !== "loading") return;
    clearTimeout(watchdog);
    body.dataset.posviz = "numpy";
    remember(window.posvizRuntime ? window.posvizRuntime.id : "", "ready");
    bar.remove();
  }

  // Panel's tier, from now on: the worker loads it once its numpy tier is in.
  window.posvizNeedPanel = () => {
    if (panelAsked) return;
    panelAsked = true;
    if (body.dataset.posviz === "numpy") {
      body.dataset.posviz = "loading";
      showBar();
      show();
      watchdog = setTimeout(stalled, STALL_MS);
    }
    if (startSent) worker.postMessage({type: "panel"});
  };

  // Python's start, and every byte it fetches, waits for the pre-rendered
  // figures on screen and their frames in: on a slow link the runtime's files
  // would take the link from them, and its start the cores. No timer: a page
  // with nothing to draw starts once its own files are in.
  const start = () => {
    if (!startSent) { startSent = true; worker.postMessage({type: "start", panel: panelAsked}); }
  };
  const framesIn = () => !framesSettings
    || (body.dataset.posvizFrames && body.dataset.posvizFrames !== "loading");
  const framesThenStart = () => {
    if (framesIn()) requestAnimationFrame(start);
    else if (!startSent) requestAnimationFrame(framesThenStart);
  };
  whenPainted(window, framesThenStart);

  for (const event of worker.early.splice(0)) worker.onmessage(event);
})();
