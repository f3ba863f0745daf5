// posviz: the one way the browser side reads a file of the site: fetched (or
// handed over), then checked against the sha256 the build wrote, and refused by
// name if it differs. The runtime worker (worker.js), the frames (frames.js) and
// the service worker (sw.js) are each joined after this file by the build;
// Node require()s it for its unit tests (tests/js/checked.test.js).
((root, factory) => {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.posvizChecked = factory();
})(typeof self !== "undefined" ? self : this, () => {
  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function sha256(buffer) {
    return hex(await crypto.subtle.digest("SHA-256", buffer));
  }

  // ``bytes`` if their sha256 is ``expected``; else an error naming ``path`` and both digests.
  async function verify(path, bytes, expected) {
    const actual = await sha256(bytes);
    if (actual !== expected) {
      throw new Error(`${path} is corrupt: its sha256 is ${actual}, the build wrote ${expected}`);
    }
    return bytes;
  }

  // The response for ``url``, refused by name unless it is a 2xx: what went
  // wrong (the network, a missing file, another status) in the error's words.
  async function fetchOk(url, path, init, fetcher = fetch) {
    let response;
    try {
      response = await fetcher(url, init);
    } catch (error) {
      throw new Error(`${path} could not be fetched: ${String((error?.message) || error)}`);
    }
    if (response.status === 404) throw new Error(`${path} is missing from the site (HTTP 404)`);
    if (!response.ok) throw new Error(`${path} could not be fetched (HTTP ${response.status})`);
    return response;
  }

  // {response, bytes} of ``path`` at ``url``, its bytes checked against ``expected``.
  // With ``keep`` the response stays unread (a clone gave the bytes), so that a
  // caller may hand it on: a fetched response keeps its URL, by which browsers
  // cache compiled wasm. Without, it is read once (no second copy held).
  async function fetchChecked(url, path, expected, keep = false, fetcher = fetch) {
    const response = await fetchOk(url, path, undefined, fetcher);
    const bytes = await (keep ? response.clone() : response).arrayBuffer();
    await verify(path, bytes, expected);
    return {response, bytes};
  }

  // The bytes of a gzip member (the frames' files are stored gzipped).
  function gunzip(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).arrayBuffer();
  }

  return {hex, sha256, verify, fetchOk, fetchChecked, gunzip};
});
