// Checked fetching (export/checked.js), which the runtime worker, the frames and
// the service worker share: against node's own sha256 and gzip, with stand-in
// fetches that fail each way a host can.
import test from "node:test";
import assert from "node:assert/strict";
import {createHash} from "node:crypto";
import {gzipSync} from "node:zlib";
import * as Checked from "../../src/posviz/export/checked.js";

const bytesOf = (text) => new TextEncoder().encode(text).buffer;
const digestOf = (text) => createHash("sha256").update(text).digest("hex");

// A fetch that answers every URL with ``body`` and ``status``, and records what it was asked.
function host(body, status = 200) {
  const asked = [];
  const fetcher = async (url, init) => {
    asked.push({url: String(url), init});
    return new Response(status === 204 ? null : body, {status});
  };
  return {fetcher, asked};
}

test("a digest is hex, two digits a byte", () => {
  assert.equal(Checked.hex(new Uint8Array([0, 15, 255]).buffer), "000fff");
});

test("sha256 agrees with node's crypto", async () => {
  for (const text of ["", "posviz", "x".repeat(100000)]) {
    assert.equal(await Checked.sha256(bytesOf(text)), digestOf(text));
  }
});

test("verify hands back the bytes the build wrote, and names the file and both digests otherwise", async () => {
  const bytes = bytesOf("wheel");
  assert.equal(await Checked.verify("wheels/a.whl", bytes, digestOf("wheel")), bytes);
  await assert.rejects(Checked.verify("wheels/a.whl", bytes, digestOf("other")), {
    message: `wheels/a.whl is corrupt: its sha256 is ${digestOf("wheel")}, the build wrote ${digestOf("other")}`,
  });
});

test("a checked fetch gives the bytes, and with keep an unread response too", async () => {
  const {fetcher, asked} = host("core");
  const got = await Checked.fetchChecked("https://h/site/pyodide/x.wasm", "pyodide/x.wasm",
    digestOf("core"), false, fetcher);
  assert.equal(new TextDecoder().decode(got.bytes), "core");
  assert.equal(got.response.bodyUsed, true); // read once: no second copy is held
  assert.deepEqual(asked.map((a) => a.url), ["https://h/site/pyodide/x.wasm"]);
  const kept = await Checked.fetchChecked("u", "p", digestOf("core"), true, host("core").fetcher);
  assert.equal(kept.response.bodyUsed, false);
  assert.equal(await kept.response.text(), "core");
});

test("each way a fetch fails is refused in words that name the file", async () => {
  const refused = (fetcher, expected = digestOf("a")) =>
    Checked.fetchChecked("u", "pyodide/lock.json", expected, false, fetcher);
  await assert.rejects(refused(host("a", 404).fetcher), {message: "pyodide/lock.json is missing from the site (HTTP 404)"});
  await assert.rejects(refused(host("a", 503).fetcher), {message: "pyodide/lock.json could not be fetched (HTTP 503)"});
  await assert.rejects(refused(async () => { throw new TypeError("Failed to fetch"); }),
    {message: "pyodide/lock.json could not be fetched: Failed to fetch"});
  await assert.rejects(refused(host("b").fetcher), /pyodide\/lock\.json is corrupt: its sha256 is /);
});

test("fetchOk passes the request's options through and refuses what is not 2xx", async () => {
  const {fetcher, asked} = host("a");
  const response = await Checked.fetchOk("u", "index.html", {cache: "no-cache"}, fetcher);
  assert.equal(await response.text(), "a");
  assert.deepEqual(asked[0].init, {cache: "no-cache"});
  await assert.rejects(Checked.fetchOk("u", "index.html", undefined, host("", 500).fetcher), /HTTP 500/);
});

test("gunzip undoes gzip, as the frames' files are stored", async () => {
  const text = JSON.stringify({frames: [1, 2, 3], text: "é ✓"});
  const packed = gzipSync(Buffer.from(text));
  const unpacked = await Checked.gunzip(packed.buffer.slice(packed.byteOffset, packed.byteOffset + packed.length));
  assert.equal(new TextDecoder().decode(unpacked), text);
  await assert.rejects(Checked.gunzip(bytesOf("not gzip")));
});
