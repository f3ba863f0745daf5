// The page ↔ worker messages (export/protocol.js): what the worker lets through
// to Python, what it refuses and in which words, and the size it counts.
import test from "node:test";
import assert from "node:assert/strict";
import * as Protocol from "../../src/posviz/export/protocol.js";

// One message of each type, as the pages (and Panel's pyodide handler) send them.
const SENT = [
  {type: "hello", route: "topic-positional-encoding", lock: "posviz page 1"},
  {type: "hello", route: "figure-710", lock: null}, // no Web Locks
  {type: "visibility", hidden: false},
  {type: "start", panel: true},
  {type: "start"},
  {type: "panel"},
  {type: "rendered"},
  {type: "patch", patch: {events: []}},
  {type: "location", location: JSON.stringify({href: "http://h/x"})},
  {type: "compute", figure: 710, request: {module: "m", figure: 710, values: {pos: 3}, link: "l"}},
  {type: "compute", figure: "710", request: {module: "m", figure: "710", values: {pos: 3}, link: "l"}},
  {type: "search", search: "?pos=3"},
  {type: "near", figures: [96, 710]},
  {type: "near", figures: []},
  {type: "hold", holding: true},
  {type: "hold", holding: false},
];

test("every message a page sends passes, and each type of TO_WORKER is among them", () => {
  for (const message of SENT) assert.equal(Protocol.refusal(message), null, JSON.stringify(message));
  assert.deepEqual(new Set(SENT.map((m) => m.type)), new Set(Object.keys(Protocol.TO_WORKER)));
});

test("an unknown type, or one of Object's own names, is refused by name", () => {
  assert.equal(Protocol.refusal({type: "shutdown"}), 'posviz worker: unknown message type "shutdown"');
  assert.equal(Protocol.refusal({type: "toString"}), 'posviz worker: unknown message type "toString"');
  assert.equal(Protocol.refusal({}), 'posviz worker: unknown message type "undefined"');
  assert.match(Protocol.refusal(null), /not an object \(object\)/);
  assert.match(Protocol.refusal("hello"), /not an object \(string\)/);
});

test("a field of the wrong kind, or a required one left out, is refused naming it", () => {
  assert.equal(Protocol.refusal({type: "hello"}),
    'posviz worker: a "hello" message needs route as a string, not undefined');
  assert.equal(Protocol.refusal({type: "hello", route: 7}),
    'posviz worker: a "hello" message needs route as a string, not number');
  assert.equal(Protocol.refusal({type: "visibility", hidden: "yes"}),
    'posviz worker: a "visibility" message needs hidden as a boolean, not string');
  assert.equal(Protocol.refusal({type: "patch", patch: null}),
    'posviz worker: a "patch" message needs patch as an object, not null');
  assert.equal(Protocol.refusal({type: "compute", figure: Infinity, request: {}}),
    'posviz worker: a "compute" message needs figure as a string or number, not number');
  assert.equal(Protocol.refusal({type: "hold", holding: "yes"}),
    'posviz worker: a "hold" message needs holding as a boolean, not string');
  assert.equal(Protocol.refusal({type: "hold"}),
    'posviz worker: a "hold" message needs holding as a boolean, not undefined');
  assert.equal(Protocol.refusal({type: "start", panel: 1}),
    'posviz worker: a "start" message needs panel as a boolean, not number');
  assert.equal(Protocol.refusal({type: "near", figures: {0: 96}}),
    'posviz worker: a "near" message needs figures as a list, not object');
  assert.equal(Protocol.refusal({type: "near"}),
    'posviz worker: a "near" message needs figures as a list, not undefined');
});

test("a compute request lacking a field Python reads is refused, naming each", () => {
  const request = {module: "m", figure: "710"};
  assert.equal(Protocol.refusal({type: "compute", figure: "710", request}),
    'posviz worker: a "compute" request lacks values, link');
});

test("sizeOf counts characters, keys and buffer bytes, and stops just past the limit", () => {
  assert.equal(Protocol.sizeOf("abc"), 3);
  assert.equal(Protocol.sizeOf({ab: "cd"}), 2 + 1 + 2);
  assert.equal(Protocol.sizeOf([new Uint8Array(10), new ArrayBuffer(6)]), 2 * 2 + 10 + 6);
  assert.equal(Protocol.sizeOf({a: 1, b: true}), 2 * 2 + 8 + 8);
  const loop = {name: "x"};
  loop.self = loop;
  assert.equal(Protocol.sizeOf(loop), ("name".length + 1 + 1) + ("self".length + 1)); // itself once
  const huge = {type: "patch", patch: {text: "x".repeat(50)}};
  assert.ok(Protocol.sizeOf(huge, 10) > 10 && Protocol.sizeOf(huge, 10) < 80);
});

test("a message over the limit is refused before its fields are read", () => {
  const message = {type: "patch", patch: {text: "x".repeat(Protocol.MESSAGE_LIMIT)}};
  assert.equal(Protocol.refusal(message),
    `posviz worker: refused a "patch" message of more than ${Protocol.MESSAGE_LIMIT} bytes`);
  assert.equal(Protocol.refusal({type: "hello", route: "x".repeat(20)}, 10),
    'posviz worker: refused a "hello" message of more than 10 bytes');
});

test("describe keeps a traceback's last line for the reader and all of it for the console", () => {
  const traceback = "Traceback (most recent call last):\n  File x\nValueError: pos = 400 is out of range\n\n";
  assert.deepEqual(Protocol.describe(new Error(traceback)),
    {msg: "ValueError: pos = 400 is out of range", detail: traceback});
  assert.deepEqual(Protocol.describe("plain"), {msg: "plain", detail: "plain"});
  assert.deepEqual(Protocol.describe(new Error("")), {msg: "Error", detail: "Error"}); // never blank
});
