// Where a cold start goes, inside the site's own Pyodide under Node.js (no
// browser): start, numpy, unpacking the wheels, the worker's start (posviz.runtime.boot: imports)
// and one render per route, as CPU ms of this process. With IMPORTTIME=<file>,
// Python's `-X importtime` report is written there.
//   node benchmarks/pyodide_stages.mjs <built site> [route,route...]
// Compare two builds by running it alternately on each (the machine's load
// falls on both alike); CPU time is steadier than wall time on a busy machine.

// panel.io.pyodide imports XMLHttpRequest from js at import time; Node has none.
globalThis.XMLHttpRequest = class { open() {} send() {} };
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
const siteDir = path.resolve(process.argv[2]);
const routes = (process.argv[3] || "topic-positional-encoding").split(",");
const src = fs.readFileSync(`${siteDir}/posviz-worker.js`, "utf8");
// The build writes SITE as indented JSON: it ends at the first line that is "};".
const siteStart = src.indexOf("const SITE = ") + 13;
const site = JSON.parse(src.slice(siteStart, src.indexOf("\n};", siteStart) + 2));
// The site ships pyodide.js, not the ES module (its worker runs it with importScripts).
const { loadPyodide } = createRequire(import.meta.url)(`${siteDir}/pyodide/pyodide.js`);
const T = {};
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
let c = cpu();
const mark = (name) => { T[name] = Math.round(cpu() - c); c = cpu(); };
const err = []; const py = await loadPyodide({ indexURL: `${siteDir}/pyodide/`, args: process.env.IMPORTTIME ? ["-X", "importtime"] : [], stderr: (s) => err.push(s) });
mark("start");
await py.loadPackage(site.lock_packages, { messageCallback: () => {} });
py.runPython("import numpy");
mark("numpy");
for (const w of site.wheels) py.unpackArchive(new Uint8Array(fs.readFileSync(`${siteDir}/${w.path}`)), "wheel", { extractDir: site.site_packages });
mark("wheels");
py.runPython(`from posviz.runtime import boot; posviz_runtime = boot.start(${JSON.stringify(site.cdn_root)})`);
mark("prelude");
routes.forEach((route, i) => {
  py.runPython(`posviz_runtime.render(${i + 1}, ${JSON.stringify(route)})`);
  mark(`render ${route}`);
});
T.loaded = py.runPython("import sys; ' '.join(sorted(m for m in ('unittest.mock', 'urllib.request', 'pyodide_http') if m in sys.modules))");
console.log(JSON.stringify(T));
if (process.env.IMPORTTIME) fs.writeFileSync(process.env.IMPORTTIME, err.join("\n"));
