// The frame step (export/frame_apply.js) that the static site and posviz.widget share,
// on stand-in models: a frame's pool and columns are built here by hand, byte by byte.
import test from "node:test";
import assert from "node:assert/strict";
import * as Apply from "../../src/posviz/export/frame_apply.js";

// A pool holding the typed arrays in order, and the columns entry of each.
function pooled(...arrays) {
  const size = arrays.reduce((sum, a) => sum + a.byteLength + 8, 0);
  const pool = new ArrayBuffer(size);
  const columns = [];
  let offset = 0;
  for (const array of arrays) {
    offset = Math.ceil(offset / 8) * 8; // aligned, as the build writes them
    new Uint8Array(pool, offset, array.byteLength).set(new Uint8Array(array.buffer));
    const dtype = {Uint8Array: "u1", Int32Array: "i4", Float64Array: "f8"}[array.constructor.name];
    columns.push([offset, array.length, dtype]);
    offset += array.byteLength;
  }
  return {pool, columns};
}

// A model whose setv records each call, as BokehJS sets several properties as one change.
function model(properties = {}) {
  const made = {...properties, calls: []};
  made.setv = (attrs) => { made.calls.push(attrs); Object.assign(made, attrs); };
  return made;
}

test("a column of each dtype comes back as float64 with its values", () => {
  const {pool, columns} = pooled(new Uint8Array([1, 255]), new Int32Array([-3, 7]), new Float64Array([0.5, -2.25]));
  assert.deepEqual([...Apply.column(columns, pool, {$: 0})], [1, 255]);
  assert.deepEqual([...Apply.column(columns, pool, {$: 1})], [-3, 7]);
  assert.deepEqual([...Apply.column(columns, pool, {$: 2})], [0.5, -2.25]);
  assert.ok(Apply.column(columns, pool, {$: 1}) instanceof Float64Array);
});

test("an unknown dtype is named, not read as garbage", () => {
  assert.throws(() => Apply.column([[0, 1, "c16"]], new ArrayBuffer(16), {$: 0}), /column 0: unknown dtype c16/);
});

test("an image comes back as rows of its shape, or in the drawn column's own type", () => {
  const {pool, columns} = pooled(new Float64Array([1, 2, 3, 4, 5, 6]));
  columns[0].push([2, 3]);
  assert.deepEqual(Apply.image(columns, pool, {$: 0}, null), [[1, 2, 3], [4, 5, 6]]);
  class NDArray { constructor(values, shape) { this.values = [...values]; this.shape = shape; } }
  const like = new NDArray([], [2, 3]);
  const kept = Apply.image(columns, pool, {$: 0}, like);
  assert.ok(kept instanceof NDArray);
  assert.deepEqual([kept.values, kept.shape], [[1, 2, 3, 4, 5, 6], [2, 3]]);
});

test("decode: lists are copied, references read, other values kept", () => {
  const {pool, columns} = pooled(new Int32Array([4, 5]));
  const list = [1, 2];
  const copied = Apply.decode(columns, pool, list, null);
  assert.deepEqual(copied, [1, 2]);
  assert.notEqual(copied, list);
  assert.deepEqual([...Apply.decode(columns, pool, {$: 0}, null)], [4, 5]);
  assert.equal(Apply.decode(columns, pool, "text", null), "text");
});

test("a frame sets data columns, nested properties in one setv per owner, and labels as values", () => {
  const {pool, columns} = pooled(new Float64Array([9, 8, 7]));
  const title = model({text: "old"});
  const plot = model({title});
  const source = model({data: {x: [0, 1, 2], y: [0, 0, 0]}});
  const entry = model({label: {value: "old"}});
  const drawn = {"posviz-1-plot": plot, "posviz-1-src": source, "posviz-1-entry": entry};
  const frame = {
    plot: {"title.text": "new", "title.align": "left"},
    src: {data: {y: {$: 0}}},
    entry: {label: "hand 8"},
    gone: {"title.text": "not drawn"},
  };
  Apply.applyFrame((key) => drawn[`posviz-1-${key}`] || null, frame, columns, pool);
  assert.deepEqual(title.calls, [{text: "new", align: "left"}]); // one change, both properties
  assert.deepEqual(source.data.x, [0, 1, 2]); // untouched column kept
  assert.deepEqual([...source.data.y], [9, 8, 7]);
  assert.deepEqual(entry.calls, [{label: {value: "hand 8"}}]);
});

test("a source whose data is a Map gets a new Map with the changed columns", () => {
  const {pool, columns} = pooled(new Float64Array([3]));
  const before = new Map([["x", [1]], ["y", [2]]]);
  const source = model({data: before});
  Apply.applyFrame(() => source, {src: {data: {y: {$: 0}}}}, columns, pool);
  assert.ok(source.data instanceof Map);
  assert.notEqual(source.data, before); // a new object: Bokeh sees a change
  assert.deepEqual([source.data.get("x"), [...source.data.get("y")]], [[1], [3]]);
});
