// posviz: the messages between a page and the Python runtime's worker, in one
// place. The page (connect.js, loader.js, frames.js) sends TO_WORKER's types
// with the fields listed; the worker (worker.js) refuses any other message by
// name before it reaches Python, and answers with TO_PAGE's types. A "compute"
// request carries COMPUTE_REQUEST's fields, which Python's numpy tier reads
// (posviz.runtime.compute.REQUEST_FIELDS; tests/test_protocol.py holds the two
// alike). worker.js imports it (the pages need only its names);
// tests/js/protocol.test.mjs imports it.

// A page cannot hand the runtime more than this in one message (characters of
// text plus bytes of buffers); a slider step's patch is well under a kilobyte.
const MESSAGE_LIMIT = 1000000;

// Each type a page may send, with its fields: a kind each ("string",
// "boolean", "object", "list", "key": a string or a finite number, as a figure's
// id is; "?" after it: the field may be left out, or null).
const TO_WORKER = {
  hello: {route: "string", lock: "string?"}, // a page joins, with its route
  visibility: {hidden: "boolean"}, // the page was hidden or shown again
  start: {panel: "boolean?"}, // painted: the runtime may take the link (and load Panel)
  panel: {}, // a page needs Panel's tier
  rendered: {}, // the live document is embedded: send patches
  patch: {patch: "object"}, // a reader's change, as Panel's pyodide target sends it
  location: {location: "string"}, // the page's URL changed
  compute: {figure: "key", request: "object"}, // the numpy tier's frame for a state
  search: {search: "string"}, // the slider values the preview holds (the URL's query)
  near: {figures: "list"}, // ids of the figures near the viewport: Python builds them first
  hold: {holding: "boolean"}, // the reader's pointer is on a figure's controls: no fill starts
};

// What the worker (and connect.js, for what a page learns without it) tells a page.
const TO_PAGE = [
  "hello", "progress", "numpy", "frame", "render", "patch", "idle",
  "filled", "error", "lost", "file", "status",
];

const COMPUTE_REQUEST = ["module", "figure", "values", "link"];

// Characters of text and bytes of buffers in a message, counted only up to
// just past ``limit`` (a huge message costs no more to refuse than a small one).
/** @param {unknown} value @param {number} [limit] @returns {number} */
function sizeOf(value, limit = MESSAGE_LIMIT) {
  let total = 0;
  const pending = [value];
  const seen = new Set();
  while (pending.length && total <= limit) {
    /** @type {any} */
    const item = pending.pop();
    if (typeof item === "string") {
      total += item.length;
    } else if (item instanceof ArrayBuffer || ArrayBuffer.isView(item)) {
      total += item.byteLength;
    } else if (item && typeof item === "object") {
      if (seen.has(item)) continue;
      seen.add(item);
      for (const key in item) {
        total += key.length + 1;
        pending.push(item[key]);
        if (total > limit) break;
      }
    } else {
      total += 8;
    }
  }
  return total;
}

/** @type {Record<string, (value: unknown) => boolean>} */
const KINDS = {
  string: (value) => typeof value === "string",
  boolean: (value) => typeof value === "boolean",
  object: (value) => value !== null && typeof value === "object",
  list: (value) => Array.isArray(value),
  key: (value) => typeof value === "string" || Number.isFinite(value),
};

/** @type {Record<string, string>} */
const NAMES = {
  string: "a string", boolean: "a boolean", object: "an object", list: "a list", key: "a string or number",
};

// Why the worker refuses ``message`` from a page, or null when it is one of TO_WORKER's.
/** @param {any} message @param {number} [limit] @returns {string | null} */
function refusal(message, limit = MESSAGE_LIMIT) {
  if (message === null || typeof message !== "object") {
    return `posviz worker: refused a message that is not an object (${typeof message})`;
  }
  const type = JSON.stringify(String(message.type));
  if (sizeOf(message, limit) > limit) {
    return `posviz worker: refused a ${type} message of more than ${limit} bytes`;
  }
  /** @type {Record<string, Record<string, string>>} */
  const types = TO_WORKER;
  const fields = Object.hasOwn(types, message.type) ? types[message.type] : null;
  if (!fields) return `posviz worker: unknown message type ${type}`;
  for (const [field, kind] of Object.entries(fields)) {
    const optional = kind.endsWith("?");
    const value = message[field];
    if ((value === undefined || value === null) && optional) continue;
    if (!KINDS[kind.replace("?", "")](value)) {
      return `posviz worker: a ${type} message needs ${field} as ${NAMES[kind.replace("?", "")]}`
        + `, not ${value === null ? "null" : typeof value}`;
    }
  }
  if (message.type === "compute") {
    const missing = COMPUTE_REQUEST.filter((field) => !(field in message.request));
    if (missing.length) return `posviz worker: a "compute" request lacks ${missing.join(", ")}`;
  }
  return null;
}

// A reader's line for an error (a Python traceback's last line) and the whole of it.
/** @param {unknown} error @returns {{msg: string, detail: string}} */
function describe(error) {
  const text = String((error instanceof Error && error.message) || error);
  const lines = text.trim().split("\n").filter((line) => line.trim());
  return {msg: lines.length ? lines[lines.length - 1].trim() : text, detail: text};
}

export {MESSAGE_LIMIT, TO_WORKER, TO_PAGE, COMPUTE_REQUEST, sizeOf, refusal, describe};
