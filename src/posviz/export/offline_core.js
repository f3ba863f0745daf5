// posviz: the pure rules of the offline copy, shared by the service worker
// (export/sw.js imports it; the build bundles both into posviz-sw.js) and node's
// tests (tests/js/offline.test.mjs). Nothing here touches a cache or the network.

// The files every page's Python runtime fetches (export/worker.js): a page
// that ran it kept them all, though the page's own timings never list them.
const RUNTIME = [/^posviz-worker\.js$/, /^pyodide\//, /^wheels\//];

// The file of the site a URL names, as the listing spells it, or null when
// the URL is outside the site (another origin, another folder). The query
// and fragment are a page's state, not another file; the folder is index.html.
function pathOf(url, scope) {
  const target = new URL(url);
  const base = new URL(scope);
  if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) return null;
  let path;
  try {
    path = decodeURIComponent(target.pathname.slice(base.pathname.length));
  } catch {
    return null;
  }
  return path === "" || path.endsWith("/") ? `${path}index.html` : path;
}

// Caches are the origin's, and another posviz site may live in another
// folder of it: a cache name carries the folder (scope) and the build.
const cacheName = (scope, build) => `posviz ${new URL(scope).pathname} ${build}`;
const isOlder = (name, scope, build) =>
  name.startsWith(`posviz ${new URL(scope).pathname} `) && name !== cacheName(scope, build);
// The reader's "Remove offline copy", kept as an empty cache of this name: the
// choice outlives the service worker (its globals do not) and a rebuild (the
// name is no build's, so isOlder never takes it for an old copy).
const declinedName = (scope) => `posviz-declined ${new URL(scope).pathname}`;

// What a page asks to keep, as listed paths: its own files, and with
// ``runtime`` every file the Python runtime fetches.
function keepSet(files, paths, runtime) {
  const wanted = new Set(paths.filter((path) => path in files));
  if (runtime) {
    for (const path of Object.keys(files)) {
      if (RUNTIME.some((pattern) => pattern.test(path))) wanted.add(path);
    }
  }
  return [...wanted].sort();
}

// Bytes of a list of paths, as the listing gives them.
const bytesOf = (files, paths) => paths.reduce((sum, path) => sum + files[path].bytes, 0);

export {RUNTIME, pathOf, cacheName, isOlder, declinedName, keepSet, bytesOf};
