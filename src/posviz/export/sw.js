// posviz: the site's service worker (posviz-sw.js, at the site's root; its
// scope is the site's folder). It keeps the pages a reader opened and the
// runtime files they used, and on request the whole site, so that the pages
// read and answer with the network off. The build fills in OFFLINE: the
// build's content hash and every file of the site with its sha256 and size.
// Rules:
// - One cache per build, named by its hash; activating deletes the others of
//   this folder, so a rebuilt site replaces the offline copy whole.
// - A listed file is answered from this build's cache first, then from the
//   network; only bytes whose sha256 matches the listing are kept.
// - "Remove offline copy" is the reader's choice until they save again: the
//   cache goes, and nothing is kept any more, not even what a page still open
//   fetches or asks to keep afterwards.
// - A page the network hands over that is not this build's (the site was
//   rebuilt) is shown, never kept, and it and its workers get nothing of this
//   build's cache: a page of one build never runs the files of another.
import {sha256} from "./checked.js";
import {bytesOf, cacheName, declinedName, isOlder, keepSet, pathOf} from "./offline_core.js";

const OFFLINE = __OFFLINE__;
const FILES = OFFLINE.files;
const SCOPE = self.registration.scope;
const CACHE = cacheName(SCOPE, OFFLINE.build);
const DECLINED = declinedName(SCOPE);
const TOTAL = bytesOf(FILES, Object.keys(FILES));
const canonical = (path) => new URL(path, SCOPE).href;
// Clients (pages, workers) of another build: their requests go to the network.
// A page's verdict is pending while its HTML is checked (see navigate).
const foreign = new Set();
const verdicts = new Map();
let saving = null; // the running "save" (a promise), if any
let savedBytes = 0; // how far the running save has come: what its progress says
// Every message to a page is numbered as it is made: "progress" goes out through
// clients.matchAll and an answer straight back, so an older one can arrive after a
// newer one; the page drops what is older than what it showed (offline.js).
const INSTANCE = `${Date.now()}-${Math.random()}`;
let sequence = 0;
const numbered = (message) => ({...message, instance: INSTANCE, seq: ++sequence});

// Keep a response for ``path`` if its bytes are the build's; whether they were.
// Checked but not kept once the reader has removed the copy.
async function keep(cache, path, response) {
  const bytes = await response.arrayBuffer();
  if ((await sha256(bytes)) !== FILES[path].sha256) return false;
  if (await caches.has(DECLINED)) return true;
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.set("content-length", String(bytes.byteLength));
  await cache.put(canonical(path), new Response(bytes, {status: 200, headers}));
  return true;
}

// Fetch ``path`` and keep it; throws naming the file on failure. ``mode`` is
// the HTTP cache's say: "force-cache" for what a page has just used (its bytes
// are there, and the copy costs the link nothing), "no-cache" otherwise. Bytes
// that are not this build's are asked for again from the server, then refused.
/** @param {Cache} cache @param {string} path @param {RequestCache} [mode] */
async function fetchAndKeep(cache, path, mode = "no-cache") {
  for (const each of /** @type {RequestCache[]} */ (mode === "no-cache" ? [mode] : [mode, "no-cache"])) {
    let response;
    try {
      response = await fetch(canonical(path), {cache: each});
    } catch (error) {
      throw new Error(`${path} could not be fetched (${(error?.message) || error})`);
    }
    if (!response.ok) throw new Error(`${path} could not be fetched (HTTP ${response.status})`);
    if (await keep(cache, path, response)) return;
  }
  self.registration.update().catch(() => {});
  throw new Error(`${path} is not the file this build wrote (its sha256 differs); reload the page`);
}

// The listed paths this build's cache holds.
async function kept() {
  const cache = await caches.open(CACHE);
  const found = new Set();
  for (const request of await cache.keys()) {
    const path = pathOf(request.url, SCOPE);
    if (path in FILES) found.add(path);
  }
  return found;
}

// Fetch each of ``paths`` that is not kept yet, a few at a time; ``step`` hears each one.
/**
 * @param {string[]} paths @param {(path: string) => void} [step] @param {RequestCache} [mode]
 * @param {Set<string> | null} [known]
 */
async function fill(paths, step = () => {}, mode = "no-cache", known = null) {
  const cache = await caches.open(CACHE);
  const have = known || (await kept());
  const pending = paths.filter((path) => !have.has(path));
  const run = async () => {
    while (pending.length) {
      const path = pending.shift();
      await fetchAndKeep(cache, path, mode);
      step(path);
    }
  };
  await Promise.all([run(), run(), run(), run()]);
}

// While a save runs, what is kept is the save's own count, as its progress says: the
// cache's keys can list a file whose bytes are still being written, so they run
// ahead of the count, and the bar would step back at the next progress message.
async function state() {
  const have = await kept();
  const paths = [...have];
  const bytes = bytesOf(FILES, paths);
  return numbered({
    type: "state", build: OFFLINE.build, cache: CACHE, total: TOTAL, files: Object.keys(FILES).length,
    kept: saving ? savedBytes : bytes, keptFiles: paths.length, saving: saving !== null,
    declined: await caches.has(DECLINED),
  });
}

async function tell(message) {
  for (const client of await self.clients.matchAll({type: "window", includeUncontrolled: true})) {
    client.postMessage(message);
  }
}

// The whole site into the cache, with progress for every open page.
function save() {
  if (saving) return saving;
  savedBytes = 0; // until the cache is read: never a count of an earlier save
  saving = (async () => {
    await caches.delete(DECLINED); // the reader wants a copy again
    const have = await kept();
    savedBytes = bytesOf(FILES, [...have]);
    let last = 0;
    let over = false; // failed: the fetches still running report no more progress
    try {
      const step = (path) => {
        if (over) return;
        savedBytes += FILES[path].bytes;
        const now = Date.now();
        if (now - last > 150) { // at most a few messages a second
          last = now;
          tell(numbered({type: "progress", done: savedBytes, total: TOTAL}));
        }
      };
      await fill(Object.keys(FILES), step, "no-cache", have);
    } catch (error) {
      over = true;
      tell(numbered({type: "failed", msg: String((error?.message) || error)}));
    } finally {
      saving = null;
      tell(await state());
    }
  })();
  return saving;
}

// The choice first, then the cache: a keep that has not put its bytes by then
// either sees the choice, or puts into the Cache it opened before the delete,
// which the delete has taken out of every listing.
async function remove() {
  await caches.open(DECLINED);
  await caches.delete(CACHE);
  await tell(await state());
}

self.addEventListener("install", (event) => {
  // A rebuilt site: what the reader kept of the last build, this build's files now.
  event.waitUntil((async () => {
    const carried = new Set();
    for (const name of await caches.keys()) {
      if (!isOlder(name, SCOPE, OFFLINE.build)) continue;
      const older = await caches.open(name);
      for (const request of await older.keys()) carried.add(pathOf(request.url, SCOPE));
    }
    await fill([...carried].filter((path) => path in FILES));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    // Pages open before this build took over are another build's, or nobody's.
    for (const client of await self.clients.matchAll({type: "all", includeUncontrolled: true})) {
      foreign.add(client.id);
    }
    for (const name of await caches.keys()) {
      if (isOlder(name, SCOPE, OFFLINE.build)) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  const message = event.data || {};
  const source = event.source;
  // The answer names the message it answers, when that has an id.
  const answer = async () => source?.postMessage({...(await state()), reply: message.id ?? null});
  if (message.type === "keep") {
    const paths = keepSet(FILES, (message.paths || []).map((url) => pathOf(url, SCOPE)), message.runtime);
    const keeping = async () => {
      if (await caches.has(DECLINED)) return; // the reader removed the copy
      await fill(paths, undefined, "force-cache");
    };
    event.waitUntil(keeping().catch((error) => console.warn("posviz offline:", error.message)).then(answer));
  } else if (message.type === "save") {
    event.waitUntil(save());
  } else if (message.type === "remove") {
    event.waitUntil(remove());
  } else if (message.type === "state") {
    event.waitUntil(answer());
  }
});

// A page not kept, and no network: say so, in the site's words.
function notKept(path) {
  const html = `<!DOCTYPE html><html lang="en"><meta charset="utf-8">`
    + `<meta name="viewport" content="width=device-width, initial-scale=1"><title>Offline · posviz</title>`
    + `<p>You are offline, and ${path.replace(/[<&"]/g, "")} was not saved for offline reading.</p>`
    + `<p>Pages you opened before, and every page once you choose “Save for offline reading”, `
    + `open without a network. <a href="index.html">The site's first page</a></p></html>`;
  return new Response(html, {status: 503, headers: {"content-type": "text/html; charset=utf-8"}});
}

// A navigation: the kept page, else the network's. The network's page is
// checked against the listing while it streams; until the verdict, the
// requests of the page it makes wait (see answer).
async function navigate(event, path) {
  const cache = await caches.open(CACHE);
  const found = await cache.match(canonical(path));
  if (found) return found;
  let response;
  try {
    response = await fetch(event.request);
  } catch {
    return notKept(path);
  }
  if (!response.ok) return response;
  const verdict = keep(cache, path, response.clone()).catch(() => false).then((ours) => {
    if (!ours) {
      foreign.add(event.resultingClientId);
      self.registration.update().catch(() => {});
    }
    verdicts.delete(event.resultingClientId);
  });
  if (event.resultingClientId) verdicts.set(event.resultingClientId, verdict);
  event.waitUntil(verdict);
  return response;
}

// Any other file of the listing: kept, else the network's (kept when it is this build's).
async function answer(event, path) {
  const pending = verdicts.get(event.clientId);
  if (pending) await pending;
  if (foreign.has(event.clientId)) {
    if (event.resultingClientId) foreign.add(event.resultingClientId); // its worker too
    return fetch(event.request);
  }
  const cache = await caches.open(CACHE);
  const found = await cache.match(canonical(path));
  if (found) return found;
  const response = await fetch(event.request);
  if (response.ok && response.status === 200) {
    event.waitUntil(keep(cache, path, response.clone()).then((ours) => {
      if (!ours) self.registration.update().catch(() => {});
    }));
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || request.headers.has("range")) return;
  const path = pathOf(request.url, SCOPE);
  if (path === null || !(path in FILES)) return; // not the site's: the browser's own way
  if (request.mode === "navigate") event.respondWith(navigate(event, path));
  else event.respondWith(answer(event, path));
});
