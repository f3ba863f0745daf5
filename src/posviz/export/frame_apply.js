// posviz: one frame onto drawn Bokeh models, the same step as Python's
// drawing.apply_frame. A frame is {element key: {property path: value}}; a data
// source's columns come as references {$: n} into one binary pool, described by
// `columns[n]` = [byte offset, length, dtype, shape]. Used by the static site
// (frames.js imports it) and by posviz.widget (widget.js, as assets.module_object);
// tests/js/frame_apply.test.mjs imports it.

const TYPES = {u1: Uint8Array, i4: Int32Array, f8: Float64Array};

// The column `ref` points at, as float64 (Bokeh's number type).
function column(columns, pool, ref) {
  const [offset, length, dtype] = columns[ref.$];
  const Type = TYPES[dtype];
  if (!Type) throw new Error(`column ${ref.$}: unknown dtype ${dtype}`);
  return Float64Array.from(new Type(pool, offset, length));
}

// An image: Bokeh's own array type when the drawn column has one (`like`), else rows.
function image(columns, pool, ref, like) {
  const values = column(columns, pool, ref);
  const shape = columns[ref.$][3];
  if (like?.shape && like.constructor !== Array) {
    try { return new like.constructor(values, shape); } catch (_error) { /* rows below */ }
  }
  const rows = [];
  for (let r = 0; r < shape[0]; r++) rows.push(Array.from(values.subarray(r * shape[1], (r + 1) * shape[1])));
  return rows;
}

// A column's value: a list of image references, a plain list, a reference, or as it is.
function decode(columns, pool, value, like) {
  if (Array.isArray(value)) {
    if (value.length && value[0] && value[0].$ !== undefined) {
      return value.map((ref, n) => image(columns, pool, ref, like && (like[n] || like[0])));
    }
    return value.slice();
  }
  if (value && value.$ !== undefined) return column(columns, pool, value);
  return value;
}

// The source's data with `changed` columns replaced: a new object, so Bokeh redraws.
function withColumns(data, changed) {
  if (data instanceof Map) {
    const next = new Map(data);
    for (const [name, value] of Object.entries(changed)) next.set(name, value);
    return next;
  }
  return {...data, ...changed};
}

// `frame` onto the models `modelOf(key)` finds (null: not drawn, skipped). Each
// owner's properties are set in one setv, as one change.
function applyFrame(modelOf, frame, columns, pool) {
  for (const [key, changes] of Object.entries(frame)) {
    const model = modelOf(key);
    if (!model) continue;
    const owners = new Map();
    for (const [path, value] of Object.entries(changes)) {
      if (path === "data") {
        const old = (name) => (model.data instanceof Map ? model.data.get(name) : model.data[name]);
        const changed = {};
        for (const [name, encoded] of Object.entries(value)) {
          changed[name] = decode(columns, pool, encoded, old(name));
        }
        model.data = withColumns(model.data, changed);
        continue;
      }
      const parts = path.split(".");
      const last = parts.pop();
      let owner = model;
      for (const step of parts) owner = owner[step];
      if (!owners.has(owner)) owners.set(owner, {});
      owners.get(owner)[last] = last === "label" ? {value} : value;
    }
    for (const [owner, attrs] of owners) owner.setv(attrs);
  }
}

export {column, image, decode, withColumns, applyFrame};
