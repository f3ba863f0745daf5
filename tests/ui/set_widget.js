([id, name, value]) => {
  // One widget of figure `id` set to `value`, as the reader would set it.
  const f = posvizFrames.figures[id];
  const s = f.index.sliders.find((x) => x.name === name);
  const w = f.models.widgets[name];
  if (s.kind === "buttons") w.active = s.options.indexOf(value);
  else w.value = value;
}
