// posviz: the one way the browser side reads a file of the site: fetched (or
// handed over), then checked against the sha256 the build wrote, and refused by
// name if it differs. The runtime worker (worker.js), the frames (frames.js) and
// the service worker (sw.js) import it, and their bundles carry it;
// tests/js/checked.test.mjs imports it.

/** @param {ArrayBuffer | ArrayBufferView} buffer */
function hex(buffer) {
  const bytes = ArrayBuffer.isView(buffer)
    ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {BufferSource} buffer @returns {Promise<string>} */
async function sha256(buffer) {
  return hex(await crypto.subtle.digest("SHA-256", buffer));
}

// ``bytes`` if their sha256 is ``expected``; else an error naming ``path`` and both digests.
/**
 * @template {BufferSource} T
 * @param {string} path @param {T} bytes @param {string} expected @returns {Promise<T>}
 */
async function verify(path, bytes, expected) {
  const actual = await sha256(bytes);
  if (actual !== expected) {
    throw new Error(`${path} is corrupt: its sha256 is ${actual}, the build wrote ${expected}`);
  }
  return bytes;
}

// The response for ``url``, refused by name unless it is a 2xx: what went
// wrong (the network, a missing file, another status) in the error's words.
/**
 * @param {string | URL} url @param {string} path @param {RequestInit | undefined} init
 * @param {typeof fetch} [fetcher] @returns {Promise<Response>}
 */
async function fetchOk(url, path, init, fetcher = fetch) {
  let response;
  try {
    response = await fetcher(url, init);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`${path} could not be fetched: ${why}`);
  }
  if (response.status === 404) throw new Error(`${path} is missing from the site (HTTP 404)`);
  if (!response.ok) throw new Error(`${path} could not be fetched (HTTP ${response.status})`);
  return response;
}

// {response, bytes} of ``path`` at ``url``, its bytes checked against ``expected``.
// With ``keep`` the response stays unread (a clone gave the bytes), so that a
// caller may hand it on: a fetched response keeps its URL, by which browsers
// cache compiled wasm. Without, it is read once (no second copy held).
/**
 * @param {string | URL} url @param {string} path @param {string} expected
 * @param {boolean} [keep] @param {typeof fetch} [fetcher]
 * @returns {Promise<{response: Response, bytes: ArrayBuffer}>}
 */
async function fetchChecked(url, path, expected, keep = false, fetcher = fetch) {
  const response = await fetchOk(url, path, undefined, fetcher);
  const bytes = await (keep ? response.clone() : response).arrayBuffer();
  await verify(path, bytes, expected);
  return {response, bytes};
}

// The bytes of a gzip member (the frames' files are stored gzipped).
/** @param {BufferSource} bytes @returns {Promise<ArrayBuffer>} */
function gunzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}

export {hex, sha256, verify, fetchOk, fetchChecked, gunzip};
