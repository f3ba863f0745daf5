// posviz.widget.Figure in the page: native controls for the sliders, the plots drawn
// by BokehJS. The kernel runs the figure; this module shows what it sends:
//   _bokeh_js, _bokeh_version  BokehJS, loaded once per page and version (Bokeh's own
//                              registry, window.Bokeh[version], keeps other copies as they are)
//   _plots                     the drawn plots, as bokeh.embed.json_item, drawn once
//   _sliders                   each slider: label, kind, bounds and step now, shown or not
//   _frame, _columns, _pool    what the values put on screen, its arrays in one buffer,
//                              applied to the drawn models as export/frames.js applies a frame
//   _readout, _alt, refused    the readout (HTML the kernel escaped), the plots' text
//                              alternative, why the last value was refused
// A control sets its slider's trait; the kernel answers with the new frame, or sends
// the old value back with `refused` when the figure refuses the new one.

const LOADING = "__posvizBokeh";

// BokehJS of `version`: the page's if it has that version, else the kernel's copy.
function bokehOf(model) {
  const version = model.get("_bokeh_version");
  const present = globalThis.Bokeh?.[version];
  if (present) return Promise.resolve(present);
  globalThis[LOADING] ??= {};
  const loading = globalThis[LOADING];
  loading[version] ??= new Promise((resolve, reject) => {
    // A blob: script, as anywidget loads this module: no network, no eval.
    const blob = new Blob([model.get("_bokeh_js")], {type: "text/javascript"});
    const script = document.createElement("script");
    script.src = URL.createObjectURL(blob);
    script.onload = () => {
      URL.revokeObjectURL(script.src);
      const loaded = globalThis.Bokeh?.[version];
      if (loaded) resolve(loaded);
      else reject(new Error(`BokehJS ${version} did not load`));
    };
    script.onerror = () => reject(new Error(`BokehJS ${version} did not load`));
    document.head.append(script);
  });
  return loading[version];
}

// The pool's bytes as an ArrayBuffer of its own: typed arrays need aligned offsets.
function bufferOf(pool) {
  if (pool instanceof ArrayBuffer) return pool;
  if (ArrayBuffer.isView(pool)) {
    return new Uint8Array(pool.buffer, pool.byteOffset, pool.byteLength).slice().buffer;
  }
  return new ArrayBuffer(0);
}

// export/frame_apply.js (the static site's frame step), a UMD module handed a
// CommonJS `module` to fill: a frame is applied as the site applies one.
const FrameApply = __FRAME_APPLY__; // export/frame_apply.js (posviz.assets.module_object)

// The named model `name` in the drawn documents, or null.
function named(documents, name) {
  for (const doc of documents) {
    const model = doc.get_model_by_name(name);
    if (model) return model;
  }
  return null;
}

function element(tag, attributes = {}, children = []) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") made.textContent = value;
    else made.setAttribute(name, value);
  }
  made.append(...children);
  return made;
}

// A control per slider: a range input with its value, or a group of buttons.
// The kernel answers each value with its whole state, the value included; answers
// to earlier values of a fast drag may arrive after a later one was sent. Until the
// kernel's value is the one the reader sent last (or it refused it), the control
// keeps the reader's value: a stale answer never moves it back.
function buildControl(model, spec, id) {
  let sent = null;
  const send = (value) => {
    sent = value;
    model.set(spec.name, value);
    model.save_changes();
  };
  const settled = () => {
    if (sent !== null && model.get(spec.name) !== sent && !model.get("refused")) return false;
    sent = null;
    return true;
  };
  if (spec.kind === "buttons") {
    const buttons = spec.options.map(([text, value]) => {
      const button = element("button", {type: "button", text});
      button.addEventListener("click", () => send(value));
      return button;
    });
    const group = element("fieldset", {class: "posviz-widget-buttons", "data-slider": spec.name},
      [element("legend", {text: spec.label}), ...buttons]);
    const show = () => {
      if (!settled()) return;
      spec.options.forEach(([, value], n) => {
        buttons[n].setAttribute("aria-pressed", String(value === model.get(spec.name)));
      });
    };
    return {root: group, show, spec};
  }
  const input = element("input", {type: "range", id});
  const output = element("output", {for: id});
  input.addEventListener("input", () => {
    output.textContent = input.value;
    send(Number(input.value));
  });
  const row = element("div", {class: "posviz-widget-slider", "data-slider": spec.name},
    [element("label", {for: id, text: spec.label}), output, input]);
  const show = () => {
    const current = row.spec;
    Object.assign(input, {min: current.start, max: current.end, step: current.step});
    if (!settled()) return;
    input.value = model.get(spec.name);
    output.textContent = String(model.get(spec.name));
  };
  row.spec = spec;
  return {root: row, show, spec, input};
}

let widgets = 0;

async function render({model, el}) {
  const number = ++widgets;
  const prefix = `posviz-${model.get("figure_id")}-`;
  const controls = element("div", {class: "posviz-widget-controls"});
  const plots = element("div", {class: "posviz-widget-plots", role: "img"});
  const readout = element("div", {class: "posviz-widget-readout", "aria-live": "polite"});
  const refused = element("p", {class: "posviz-widget-refused", role: "alert"});
  const caption = element("p", {class: "posviz-widget-caption"});
  caption.innerHTML = model.get("_caption"); // escaped by the kernel
  // Two plots or more take the width under a row of controls, as on the site.
  const wide = model.get("_plots").length > 1 ? " posviz-widget-wide" : "";
  const root = element("div", {class: `posviz-widget${wide}`},
    [controls, element("div", {class: "posviz-widget-main"}, [plots, readout, refused]), caption]);
  el.append(root);
  el.dataset.posvizWidget = "loading";

  const built = new Map();
  const showControls = () => {
    for (const spec of model.get("_sliders")) {
      let control = built.get(spec.name);
      if (!control) {
        control = buildControl(model, spec, `posviz-widget-${number}-${spec.name}`);
        built.set(spec.name, control);
        controls.append(control.root);
      }
      control.root.spec = spec;
      control.root.hidden = !spec.shown;
      control.show();
    }
  };
  const showTexts = () => {
    readout.innerHTML = model.get("_readout"); // escaped by the kernel (frames/texts.py)
    plots.setAttribute("aria-label", model.get("_alt"));
    refused.textContent = model.get("refused");
    refused.hidden = !model.get("refused");
  };
  showControls();
  showTexts();

  const documents = [];
  let pending = false;
  const redraw = () => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => { // the frame, its columns and its pool arrive in one message
      pending = false;
      if (documents.length) {
        FrameApply.applyFrame((key) => named(documents, prefix + key), model.get("_frame"),
          model.get("_columns"), bufferOf(model.get("_pool")));
        el.dataset.posvizFrames = String(Number(el.dataset.posvizFrames || 0) + 1);
      }
      showTexts();
    });
  };
  const handlers = [["change:_sliders", showControls], ["change:_frame", redraw],
    ["change:_pool", redraw], ["change:_readout", showTexts], ["change:refused", showTexts]];
  for (const spec of model.get("_sliders")) handlers.push([`change:${spec.name}`, showControls]);
  for (const [event, handler] of handlers) model.on(event, handler);

  try {
    const Bokeh = await bokehOf(model);
    for (const plot of model.get("_plots")) {
      const box = element("div", {class: "posviz-widget-plot"});
      for (const [name, value] of Object.entries(plot.styles)) box.style.setProperty(name, value);
      plots.append(box);
      const views = await Bokeh.embed.embed_item(structuredClone(plot.item), box);
      documents.push(...views.roots.map((view) => view.model.document));
    }
    el.posvizDocuments = documents; // for a test, or a reader's console
    redraw(); // values set while BokehJS loaded
    el.dataset.posvizWidget = "drawn";
  } catch (error) {
    console.error("posviz widget:", error);
    refused.textContent = `The plots could not be drawn: ${error.message || error}`;
    refused.hidden = false;
    el.dataset.posvizWidget = "failed";
  }
  return () => {
    for (const [event, handler] of handlers) model.off(event, handler);
  };
}

export default {render};
