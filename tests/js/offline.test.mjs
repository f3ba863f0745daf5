// The offline copy's pure rules (export/offline_core.js), which posviz-sw.js runs:
// which file a URL is, which cache is whose, what a visit keeps.
import test from "node:test";
import assert from "node:assert/strict";
import * as Offline from "../../src/posviz/export/offline_core.js";

const SCOPE = "https://example.org/docs/_static/posviz/";
const FILES = {
  "index.html": {bytes: 100},
  "figure-710.html": {bytes: 200},
  "posviz-worker.js": {bytes: 10},
  "pyodide/pyodide.asm.wasm": {bytes: 5000},
  "wheels/posviz-0.1.0-py3-none-any.whl": {bytes: 700},
  "static/panel/x.css": {bytes: 3},
};

test("a URL of the site is its listed path; its query and fragment are the page's state", () => {
  assert.equal(Offline.pathOf(`${SCOPE}figure-710.html?pos=13#top`, SCOPE), "figure-710.html");
  assert.equal(Offline.pathOf(`${SCOPE}pyodide/pyodide.asm.wasm`, SCOPE), "pyodide/pyodide.asm.wasm");
  assert.equal(Offline.pathOf(SCOPE, SCOPE), "index.html");
  assert.equal(Offline.pathOf(`${SCOPE}static/panel/1.9.4/dist/bundled/es-module-shims%40%5E1.10.0/a.js`, SCOPE),
    "static/panel/1.9.4/dist/bundled/es-module-shims@^1.10.0/a.js");
});

test("a URL outside the site's folder or origin is no file of it", () => {
  assert.equal(Offline.pathOf("https://example.org/docs/index.html", SCOPE), null);
  assert.equal(Offline.pathOf("https://example.org/docs/_static/posviz2/index.html", SCOPE), null);
  assert.equal(Offline.pathOf("https://cdn.example.com/docs/_static/posviz/index.html", SCOPE), null);
  assert.equal(Offline.pathOf(`${SCOPE}%E0%A4%A`, SCOPE), null); // not decodable
});

test("a cache is one build's of one folder: another build of it is older, another folder's is not", () => {
  const mine = Offline.cacheName(SCOPE, "aaaa");
  assert.equal(mine, "posviz /docs/_static/posviz/ aaaa");
  assert.equal(Offline.isOlder(mine, SCOPE, "aaaa"), false);
  assert.equal(Offline.isOlder(Offline.cacheName(SCOPE, "bbbb"), SCOPE, "aaaa"), true);
  const other = Offline.cacheName("https://example.org/blog/posviz/", "bbbb");
  assert.equal(Offline.isOlder(other, SCOPE, "aaaa"), false);
  assert.equal(Offline.isOlder("someone else's cache", SCOPE, "aaaa"), false);
});

test("the reader's removal is remembered under a name no build's cache has, so no build deletes it", () => {
  const declined = Offline.declinedName(SCOPE);
  for (const build of ["aaaa", "bbbb"]) {
    assert.notEqual(declined, Offline.cacheName(SCOPE, build));
    assert.equal(Offline.isOlder(declined, SCOPE, build), false);
  }
  assert.notEqual(declined, Offline.declinedName("https://example.org/blog/posviz/"));
});

test("a visit keeps its listed files, and with the runtime every file Python fetches", () => {
  const page = ["figure-710.html", "static/panel/x.css", "not-listed.js", null];
  assert.deepEqual(Offline.keepSet(FILES, page, false), ["figure-710.html", "static/panel/x.css"]);
  assert.deepEqual(Offline.keepSet(FILES, page, true), [
    "figure-710.html", "posviz-worker.js", "pyodide/pyodide.asm.wasm", "static/panel/x.css",
    "wheels/posviz-0.1.0-py3-none-any.whl",
  ]);
  assert.equal(Offline.bytesOf(FILES, Offline.keepSet(FILES, page, true)), 5913);
});

