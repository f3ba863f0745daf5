// The browser modules import each other (ES modules, bundled by the build:
// posviz.assets.bundle); nothing of theirs is a global. What is declared here
// is what a built page's scripts share through the window.
// What a built page's scripts share through the window (connect.js, loader.js,
// frames.js, lazy.js, offline.js), and what Panel's and BokehJS's scripts put there.
// Their shapes are the scripts' own business: these say only that each exists.
interface Window {
  Bokeh: any; // BokehJS: its private parts are registered in posviz/internals.py (JS_SEAMS)
  posvizWorker: any; // connect.js: the port to the runtime, standing in for Panel's worker
  posvizFrames: any; // frames.js: the preview's state (loader.js hands it the worker's frames)
  posvizFrameFiles: Record<string, {json?: string, bin?: string}>; // frames/<id>.js, opened as a file
  posvizLazy: any; // lazy.js: waiting, joined and filled figures
  posvizLazyOff?: boolean; // benchmarks/lazy.py: every figure at once
  posvizPanel?: string; // "eager": the test harness loads Panel's tier at once
  posvizNeedPanel: () => void; // loader.js: Panel's tier, from now on
  posvizRuntime: any; // worker.js's runtime info, as the page last heard it
  posvizLiveMs: number;
  posvizFilled?: {ms: number; at: number}; // loader.js: Python filled the shells lazy.js waits on
  posvizTimings: Record<string, number>;
  posvizOffline: any; // offline.js: the offline copy's control
  posvizPaint?: {done: boolean, waiting: Array<() => void>}; // signals.js: the one paint poll
}
declare var Bokeh: any;
declare var pyodideWorker: any; // Panel's page script: the worker it talks to (connect.js's)

interface WorkerOptions {
  extendedLifetime?: boolean; // Chromium 148+: a SharedWorker kept alive across a link
}

// Filled in by the build (posviz.assets.render) before a script ships.
declare const __CSS__: string; // offline.js: its control's stylesheet

interface History {
  // compose/url_gate.js: the page's URL writes, paced; its counts and the URL still waiting.
  posvizGate?: {writes: number, refused: number, merged: number, waiting: () => string | URL | null};
}
