// What the named models and text panes of one figure hold, comparable with Python's.
(args) => {
  const [id, prefix] = args;
  const doc = Bokeh.documents[Bokeh.documents.length - 1];
  const figure = window.posvizFrames && posvizFrames.figures[id];
  const plain = (value) => {
    if (value == null) return value;
    if (ArrayBuffer.isView(value)) return {shape: value.shape || [value.length], flat: Array.from(value)};
    if (Array.isArray(value)) {
      if (value.length && (ArrayBuffer.isView(value[0]) || Array.isArray(value[0]))) {
        return value.map((v) => (ArrayBuffer.isView(v) ? {shape: v.shape, flat: Array.from(v)} : {shape: [v.length, v[0].length], flat: v.flat()}));
      }
      return value.slice();
    }
    return value;
  };
  const state = {};
  for (const model of doc.all_models) {
    const name = model.properties.name ? model.name : null;
    if (!name?.startsWith(prefix)) continue;
    const p = model.properties;
    if (p.data) {
      const data = model.data instanceof Map ? Object.fromEntries(model.data) : model.data;
      for (const [key, value] of Object.entries(data)) state[`${name} data.${key}`] = plain(value);
    } else if (p.location) {
      state[`${name} location`] = model.location;
    } else if (p.label) {
      state[`${name} label`] = model.label.value;
    } else if (p.renderers) {
      state[`${name} title.text`] = model.title.text;
      for (const axis of ["x_range", "y_range"]) {
        const range = model[axis];
        if (range.properties.factors) state[`${name} ${axis}.factors`] = range.factors.slice();
        else { state[`${name} ${axis}.start`] = range.start; state[`${name} ${axis}.end`] = range.end; }
      }
    }
  }
  if (figure?.models) {
    for (const [role, model] of Object.entries(figure.models.text)) {
      if (role !== "numbers") state[`text ${role}`] = model.text;
    }
  }
  return state;
}
