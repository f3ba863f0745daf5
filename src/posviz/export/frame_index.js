// posviz: which precomputed frame a figure's state is, and which of the page's
// Bokeh models a figure has. A figure's frames index (export/frames.py,
// figure_frames) keys each state by the values of its sliders that no other
// slider implies (JSON, as Python's key_of writes it); an implied slider (a
// preset) moves the state by its ``moves``. frames.js uses these with the page's
// models; tests/js/frame_index.test.mjs imports them, and
// tests/test_frame_index.py holds them to Python's keys on real figures.
/**
 * @typedef {{name: string, label: string, implied: boolean, kind: string,
 *   labels?: string[], options?: unknown[], bounds?: number[]}} Slider
 * @typedef {{values: Record<string, unknown>, [field: string]: unknown}} Frame
 * @typedef {{figure: number | string, prefix: string, sliders: Slider[],
 *   states: Record<string, number>, moves?: Record<string, Record<string, string | null>>,
 *   frames: Frame[], opening?: string}} FrameIndex
 * @typedef {{id: unknown, properties: Record<string, {is_unset: boolean, get_value(): unknown}>,
 *   [attribute: string]: any}} Model  a BokehJS model, as far as these read it
 * @typedef {{get_model_by_name(name: string): Model | null, all_models: Iterable<Model>}} Doc
 */
// The key of a state: the values of the sliders no other slider implies.
/** @type {(index: Pick<FrameIndex, "sliders">, values: Record<string, unknown>) => string} */
const keyOf = (index, values) => JSON.stringify(
  index.sliders.filter((s) => !s.implied).map((s) => values[s.name]));

// The values with each implied slider (a preset) as the others imply it: the
// option whose move leads to this state, else the one that keeps any (custom).
// Null when the figure has implied sliders but no frames to say which.
/**
 * @param {Pick<FrameIndex, "sliders" | "moves">} index @param {Record<string, unknown>} values
 * @returns {Record<string, unknown> | null}
 */
function settled(index, values) {
  const implied = index.sliders.filter((s) => s.implied);
  if (!implied.length) return {...values};
  if (!index.moves) return null;
  const key = keyOf(index, values);
  const found = {...values};
  for (const slider of implied) {
    const moves = index.moves[slider.name] || {};
    const options = Object.keys(moves);
    const named = options.find((option) => moves[option] === key)
      ?? options.find((option) => moves[option] === null);
    if (named === undefined) return null;
    found[slider.name] = (slider.options || []).find((o) => String(o) === named);
  }
  return found;
}

// The frame for ``values``, reached by moving slider ``moved`` (null: by a link
// or a restore) from the state ``current``, if the build computed it; else null.
/**
 * @param {FrameIndex} index @param {Record<string, unknown>} values
 * @param {string | null} moved @param {Record<string, unknown>} current
 * @returns {Frame | null}
 */
function frameFor(index, values, moved, current) {
  const slider = index.sliders.find((s) => s.name === moved);
  let key;
  if (slider?.implied && moved !== null) {
    const target = index.moves?.[moved]?.[String(values[moved])];
    key = target === null ? keyOf(index, current) : target;
  } else {
    key = keyOf(index, values);
  }
  const at = key === undefined ? undefined : index.states[key];
  return at === undefined ? null : index.frames[at];
}

// A deep link's values, set one slider at a time in the sliders' order, as
// Python sets them (a preset before the sizes it implies), from the opening
// state: the frame the last step reaches when every step reaches one; else
// no frame, and the values the link asks (for the numpy tier to compute).
/**
 * @param {FrameIndex} index @param {Record<string, unknown>} link
 * @returns {{frame: Frame | null, values: Record<string, unknown>}}
 */
function linkState(index, link) {
  const opening = index.frames[index.states[/** @type {string} */ (index.opening)]];
  let current = {...opening.values};
  let values = {...current};
  let frame = opening; // a link that names no slider stays at the opening state
  let framed = true;
  for (const slider of index.sliders) {
    if (!(slider.name in link)) continue;
    values = {...values, [slider.name]: link[slider.name]};
    const next = framed ? frameFor(index, values, slider.name, current) : null;
    if (next) {
      frame = next;
      current = {...next.values};
      values = {...next.values};
    } else {
      framed = false;
    }
  }
  return framed ? {frame, values: {...frame.values}} : {frame: null, values};
}

// The sliders whose value differs between ``before`` and ``after``, with ``after``'s values.
/**
 * @param {Pick<FrameIndex, "sliders">} index
 * @param {Record<string, unknown>} before @param {Record<string, unknown>} after
 * @returns {Record<string, unknown>}
 */
function changed(index, before, after) {
  /** @type {Record<string, unknown>} */
  const found = {};
  for (const slider of index.sliders) {
    if (before[slider.name] !== after[slider.name]) found[slider.name] = after[slider.name];
  }
  return found;
}

// Every model reachable from `root` through its properties (BokehJS models:
// ``properties`` of {is_unset, get_value()}, declared in posviz/internals.py).
/** @param {Model} root @returns {Set<Model>} */
function subtree(root) {
  /** @type {Set<Model>} */
  const seen = new Set();
  const stack = [root];
  /** @param {any} value */
  const visit = (value) => {
    if (value == null || typeof value !== "object") return;
    if (value.properties && value.id !== undefined) stack.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value instanceof Map) value.forEach(visit);
    else if (Object.getPrototypeOf(value) === Object.prototype) Object.values(value).forEach(visit);
  };
  while (stack.length) {
    const model = /** @type {Model} */ (stack.pop());
    if (seen.has(model)) continue;
    seen.add(model);
    for (const property of Object.values(model.properties)) {
      if (!property.is_unset) visit(property.get_value());
    }
  }
  return seen;
}

// A Bokeh plot (a legend entry has renderers too, but no title).
/** @param {Model} model */
const isPlot = (model) => Boolean(model.properties.renderers && model.properties.title);
/** @param {Model} model @param {string} css */
const hasClass = (model, css) =>
  Boolean(model.properties.css_classes && (model.css_classes || []).includes(css));

// The pre-rendered models of one figure: widgets, named plots and text panes.
/**
 * @param {Doc} doc @param {Pick<FrameIndex, "figure" | "prefix" | "sliders">} index
 * @returns {{widgets: Record<string, Model>, text: Record<string, Model>,
 *   named: Record<string, Model>, plots: Model[], toggle: Model | null}}
 */
function findModels(doc, index) {
  const root = doc.get_model_by_name(`figure-${index.figure}`);
  if (!root) throw new Error(`figure ${index.figure} is not on the page`);
  const models = [...subtree(root)];
  /** @type {ReturnType<typeof findModels>} */
  const found = {widgets: {}, text: {}, named: {}, plots: [], toggle: null};
  for (const model of models) {
    const name = model.properties.name ? model.name : null;
    if (name?.startsWith(index.prefix)) found.named[name] = model;
    if (name?.startsWith(index.prefix) && isPlot(model)) found.plots.push(model);
    if (hasClass(model, "posviz-readout")) found.text.readout = model;
    if (hasClass(model, "posviz-alt")) found.text.alt = model;
    if (hasClass(model, "posviz-numbers")) found.text.numbers = model;
    if (hasClass(model, "posviz-numbers-toggle")) found.toggle = model;
    if (model.properties.text && typeof model.text === "string" && model.text.includes("posviz-deeplink")) {
      found.text.link = model;
    }
  }
  /** @type {(slider: Slider) => (model: Model) => boolean} */
  const isWidget = (slider) => (model) => slider.kind === "buttons"
    ? Boolean(model.properties.labels && model.properties.active)
      && JSON.stringify(model.labels) === JSON.stringify(slider.labels)
    : Boolean(model.properties.value && model.properties.title && model.properties.start)
      && model.title === slider.label;
  for (const slider of index.sliders) {
    let widget = models.find(isWidget(slider));
    if (!widget) {  // not reached from the figure's column: unique on the page, then
      const everywhere = [...doc.all_models].filter(isWidget(slider));
      if (everywhere.length === 1) widget = everywhere[0];
    }
    if (!widget) throw new Error(`figure ${index.figure}: no widget for ${slider.name} on the page`);
    found.widgets[slider.name] = widget;
  }
  return found;
}

export {keyOf, settled, frameFor, linkState, changed, subtree, isPlot, hasClass, findModels};
