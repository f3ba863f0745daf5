// posviz: the one Python worker every page of the static site shares.
// The page names its route in the hash: new Worker("posviz-worker.js#figure-710").
// Every byte comes from the site's own folder; the build fills in SITE.
const SITE = __SITE__;
const ROUTE = decodeURIComponent(self.location.hash.slice(1));
const here = (path) => new URL(path, self.location.href).href;
const started = performance.now();
// Pyodide's start fills both cores; wait until the page has painted its
// pre-rendered figures (the page says "start") so that they appear at once.
let go;
const allowed = new Promise((resolve) => { go = resolve; });

function progress(stage, step) {
  self.postMessage({type: "progress", stage, step, of: 3,
                    ms: Math.round(performance.now() - started)});
}

function sendPatch(patch, buffers) {
  self.postMessage({type: "patch", patch, buffers});
}

async function startApplication() {
  try {
    // Fetching costs no CPU: start it while the page is still painting.
    const fetched = SITE.wheels.map((wheel) => fetch(here(wheel)).then((response) => {
      if (!response.ok) throw new Error(`${wheel}: HTTP ${response.status}`);
      return response.arrayBuffer();
    }));
    await allowed;
    const timings = {};
    const lap = (name, since) => { timings[name] = Math.round(performance.now() - since); };
    progress("Starting Python", 1);
    let since = performance.now();
    importScripts(here(SITE.pyodide + "pyodide.js"));
    self.pyodide = await loadPyodide({indexURL: here(SITE.pyodide), fullStdLib: false});
    self.pyodide.globals.set("sendPatch", sendPatch);
    lap("start pyodide", since);
    progress("Installing packages", 2);
    since = performance.now();
    await self.pyodide.loadPackage(SITE.lock_packages,
                                   {messageCallback: () => {}, checkIntegrity: true});
    // Pure wheels need no resolver: unpack them straight into site-packages.
    for (const wheel of await Promise.all(fetched)) {
      self.pyodide.unpackArchive(wheel, "wheel", {extractDir: SITE.site_packages});
    }
    lap("install packages", since);
    progress("Building the page", 3);
    self.pyodide.runPython(SITE.prelude);
    const result = await self.pyodide.runPythonAsync(
      SITE.render.replace("__ROUTE__", JSON.stringify(ROUTE)));
    const [docs_json, render_items, root_ids, python] = result.toJs();
    result.destroy();
    Object.assign(timings, JSON.parse(python));
    timings["worker total"] = Math.round(performance.now() - started);
    self.postMessage({type: "render", docs_json, render_items, root_ids, timings});
  } catch (error) {
    self.postMessage({type: "error", msg: String(error && error.message || error)});
  }
}

async function run(code) {
  try {
    await self.pyodide.runPythonAsync(code);
  } catch (error) {
    self.postMessage({type: "error", msg: String(error && error.message || error)});
  }
}

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.type === "start") {
    go();
  } else if (msg.type === "rendered") {
    await run(`
from panel.io.state import state
from panel.io.pyodide import _link_docs_worker
_link_docs_worker(state.curdoc, sendPatch, setter="js")
`);
  } else if (msg.type === "patch") {
    self.pyodide.globals.set("patch", msg.patch);
    await run(`
from panel.io.pyodide import _convert_json_patch
state.curdoc.apply_json_patch(_convert_json_patch(patch), setter="js")
`);
    self.postMessage({type: "idle"});
  } else if (msg.type === "location") {
    self.pyodide.globals.set("location", msg.location);
    await run(`
import json
from panel.io.state import state
from panel.util import edit_readonly
if state.location:
    loc_data = json.loads(location)
    with edit_readonly(state.location):
        state.location.param.update({
            k: v for k, v in loc_data.items() if k in state.location.param
        })
`);
  }
};

startApplication();
