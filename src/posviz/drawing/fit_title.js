// posviz: a plot title that fits its plot (drawing/titles.py attaches it as a
// Bokeh CustomJS, so the pre-rendered page, the frames tier and live Python all
// run it). Its args: plot, title, base (px), pad (px), smallest (px). When the
// plot's width or the title's text changes, a title that would pass the canvas's
// right edge starts at its left edge instead, and shrinks until it fits, never
// below `smallest`. Uses BokehJS's view manager (Bokeh.index) and a view's
// boxes: internals, declared in posviz/internals.py JS_SEAMS.
// An ES module: titles.py calls it as its module object's fitTitle (assets.module_object).
export function fitTitle(plot, title, base, pad, smallest) {
  const view = [...Bokeh.index.find(plot)].find((each) => each.frame);
  if (!view || !title.text) return;
  const canvas = view.bbox.width, left = view.frame.bbox.x0;
  const font = typeof title.text_font === "string" ? title.text_font : title.text_font.value;
  if (!window.__posvizTitleMeasure) {
    window.__posvizTitleMeasure = document.createElement("canvas").getContext("2d");
  }
  const measure = window.__posvizTitleMeasure;
  measure.font = `${title.text_font_style} ${base}px ${font}`;
  const width = Math.max(...title.text.split("\n").map((line) => measure.measureText(line).width));
  let offset = 0, size = base;
  if (left + width > canvas - pad) {
    offset = pad - left;
    const fitting = Math.floor((10 * base * (canvas - 2 * pad)) / width) / 10;
    size = Math.max(smallest, Math.min(base, fitting));
  }
  const changed = {};
  if (title.offset !== offset) changed.offset = offset;
  if (title.text_font_size !== `${size}px`) changed.text_font_size = `${size}px`;
  if (Object.keys(changed).length) title.setv(changed);
}
