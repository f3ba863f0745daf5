// posviz: sliders that answer from the first paint, before Python is up.
// The build computed each figure's frames (posviz/build/frames.py): for every
// state a reader reaches from the opening one by moving one slider, the
// properties of each named Bokeh model, and the readout, text alternative,
// deep link and table as Panel writes them. This script loads them after the
// paint, checks their sha256, and applies a frame to the pre-rendered models
// when the reader moves a slider. A state without a frame (two sliders moved,
// files missing or corrupt) hides the plots and says "Computing…" until Python
// takes over: never a plot that does not match its sliders. Every value set
// here goes into the URL and to the worker, so Python starts from it.
(function () {
  const settings = document.getElementById("posviz-frames");
  if (!settings) return;
  const CONFIG = JSON.parse(settings.textContent);
  const COMPUTING = "Computing… (waiting for Python)";
  const body = document.body;
  const api = (window.posvizFrames = {
    figures: {}, state: {}, loaded: {}, asked: {}, computed: {}, profile: {}});
  body.dataset.posvizFrames = "loading";
  const live = () => body.dataset.posviz === "live";

  const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");

  async function sha256(buffer) {
    const digest = await crypto.subtle.digest("SHA-256", buffer);
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function fetchChecked(file) {
    const response = await fetch(new URL(file.path, document.baseURI), {priority: "low"});
    if (!response.ok) throw new Error(`${file.path}: HTTP ${response.status}`);
    const packed = await response.arrayBuffer();
    const actual = await sha256(packed);
    if (actual !== file.sha256) throw new Error(`${file.path} is corrupt (sha256 ${actual})`);
    const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).arrayBuffer();
  }

  // Every model reachable from `root` through its properties.
  function subtree(root) {
    const seen = new Set();
    const stack = [root];
    const visit = (value) => {
      if (value == null || typeof value !== "object") return;
      if (value.properties && value.id !== undefined) stack.push(value);
      else if (Array.isArray(value)) value.forEach(visit);
      else if (value instanceof Map) value.forEach(visit);
      else if (Object.getPrototypeOf(value) === Object.prototype) Object.values(value).forEach(visit);
    };
    while (stack.length) {
      const model = stack.pop();
      if (seen.has(model)) continue;
      seen.add(model);
      for (const property of Object.values(model.properties)) {
        if (!property.is_unset) visit(property.get_value());
      }
    }
    return seen;
  }

  // A Bokeh plot (a legend entry has renderers too, but no title).
  const isPlot = (model) => Boolean(model.properties.renderers && model.properties.title);
  const hasClass = (model, css) =>
    model.properties.css_classes && (model.css_classes || []).includes(css);

  // The pre-rendered models of one figure: widgets, named plots and text panes.
  function findModels(doc, index) {
    const root = doc.get_model_by_name(`figure-${index.figure}`);
    if (!root) throw new Error(`figure ${index.figure} is not on the page`);
    const models = [...subtree(root)];
    const found = {widgets: {}, text: {}, named: {}, plots: [], toggle: null};
    for (const model of models) {
      const name = model.properties.name ? model.name : null;
      if (name && name.startsWith(index.prefix)) found.named[name] = model;
      if (name && name.startsWith(index.prefix) && isPlot(model)) found.plots.push(model);
      if (hasClass(model, "posviz-readout")) found.text.readout = model;
      if (hasClass(model, "posviz-alt")) found.text.alt = model;
      if (hasClass(model, "posviz-numbers")) found.text.numbers = model;
      if (hasClass(model, "posviz-numbers-toggle")) found.toggle = model;
      if (model.properties.text && typeof model.text === "string" && model.text.includes("posviz-deeplink")) {
        found.text.link = model;
      }
    }
    const isWidget = (slider) => (model) => slider.kind === "buttons"
      ? model.properties.labels && model.properties.active
        && JSON.stringify(model.labels) === JSON.stringify(slider.labels)
      : model.properties.value && model.properties.title && model.title === slider.label
        && model.properties.start;
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

  function column(index, pool, ref) {
    const [offset, length, dtype] = index.columns[ref.$];
    const Type = {u1: Uint8Array, i4: Int32Array, f8: Float64Array}[dtype];
    return Float64Array.from(new Type(pool, offset, length));
  }

  function image(index, pool, ref, like) {
    const values = column(index, pool, ref);
    const shape = index.columns[ref.$][3];
    if (like && like.shape && like.constructor !== Array) {
      try { return new like.constructor(values, shape); } catch (error) { /* below */ }
    }
    const rows = [];
    for (let r = 0; r < shape[0]; r++) rows.push(Array.from(values.subarray(r * shape[1], (r + 1) * shape[1])));
    return rows;
  }

  function decode(index, pool, value, like) {
    if (Array.isArray(value)) {
      if (value.length && value[0] && value[0].$ !== undefined) {
        return value.map((ref, n) => image(index, pool, ref, like && like[n] ? like[n] : like && like[0]));
      }
      return value.slice();
    }
    if (value && value.$ !== undefined) return column(index, pool, value);
    return value;
  }

  function setData(source, columns) {
    const data = source.data;
    if (data instanceof Map) {
      const next = new Map(data);
      for (const [key, value] of Object.entries(columns)) next.set(key, value);
      source.data = next;
    } else {
      source.data = {...data, ...columns};
    }
  }

  // One frame onto the models of one figure (the same step as Python's apply_frame);
  // its arrays are in ``pool``, as ``columns`` (offset, length, type, shape) say.
  function applyModels(figure, part, columns, pool) {
    const {models} = figure;
    const index = {columns};
    const prefix = figure.index.prefix;
    for (const [key, changes] of Object.entries(part)) {
      const model = models.named[prefix + key];
      if (!model) continue;
      const owners = new Map();
      for (const [path, value] of Object.entries(changes)) {
        if (path === "data") {
          const old = model.data instanceof Map ? (k) => model.data.get(k) : (k) => model.data[k];
          const columns = {};
          for (const [name, encoded] of Object.entries(value)) {
            columns[name] = decode(index, pool, encoded, old(name));
          }
          setData(model, columns);
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

  function showPlots(figure, shown) {
    for (const plot of figure.models.plots) {
      if (!figure.saved.has(plot)) {
        figure.saved.set(plot, {title: plot.title.text,
          renderers: plot.renderers.map((r) => [r, r.visible])});
      }
      const saved = figure.saved.get(plot);
      if (shown) {
        for (const [renderer, visible] of saved.renderers) renderer.visible = visible;
      } else {
        for (const [renderer] of saved.renderers) renderer.visible = false;
        plot.title.text = COMPUTING;
      }
    }
  }

  function setWidgets(figure, values, bounds) {
    figure.applying = true;
    try {
      for (const slider of figure.index.sliders) {
        const widget = figure.models.widgets[slider.name];
        if (slider.kind === "buttons") {
          const active = slider.options.indexOf(values[slider.name]);
          if (widget.active !== active) widget.active = active;
        } else {
          const [start, end] = (bounds && bounds[slider.name]) || slider.bounds;
          if (widget.start !== start || widget.end !== end) widget.setv({start, end});
          if (widget.value !== values[slider.name]) widget.value = values[slider.name];
        }
      }
    } finally {
      figure.applying = false;
    }
  }

  // A precomputed frame.
  function showFrame(figure, frame) {
    const {index} = figure;
    const text = {};
    for (const [role, at] of Object.entries(frame.text)) text[role] = index.strings[at];
    show(figure, {values: frame.values, bounds: frame.bounds, part: index.parts[frame.models],
                  columns: index.columns, pool: figure.pool, text});
    api.state[index.figure] = "frame";
  }

  // A frame: its models' properties, texts, slider values and bounds.
  function show(figure, frame) {
    const {models} = figure;
    showPlots(figure, true);
    for (const plot of models.plots) plot.title.text = figure.saved.get(plot).title;
    applyModels(figure, frame.part, frame.columns, frame.pool);
    figure.text = frame.text;
    for (const role of ["readout", "alt", "link"]) {
      if (models.text[role]) models.text[role].text = figure.text[role];
    }
    showNumbers(figure);
    setWidgets(figure, frame.values, frame.bounds);
    figure.values = {...frame.values};
  }

  // Tier 2: ask the worker's numpy tier for the frame of the figure's values.
  // The answer comes as a "frame" message (receive); a newer question wins.
  function askPython(figure) {
    const worker = window.posvizWorker;
    const files = CONFIG.figures[figure.id];
    if (!worker || !worker.port || live() || !files || !files.module) return;
    const values = settled(figure, figure.values);
    if (!values) return;
    figure.asked = keyOf(figure, values);
    api.asked[figure.id] = (api.asked[figure.id] || 0) + 1;
    worker.postMessage({type: "compute", figure: figure.id, request: {
      module: files.module, figure: figure.id, values, link: files.link}});
  }

  // The values with each implied slider (a preset) as the others imply it: the
  // option whose move leads to this state, else the one that keeps any (custom).
  // Null when the figure has implied sliders but no frames to say which.
  function settled(figure, values) {
    const implied = figure.index.sliders.filter((s) => s.implied);
    if (!implied.length) return {...values};
    if (!figure.index.moves) return null;
    const key = keyOf(figure, values);
    const found = {...values};
    for (const slider of implied) {
      const moves = figure.index.moves[slider.name];
      const options = Object.keys(moves);
      const named = options.find((option) => moves[option] === key)
        ?? options.find((option) => moves[option] === null);
      if (named === undefined) return null;
      found[slider.name] = slider.options.find((o) => String(o) === named);
    }
    return found;
  }

  // The worker's answer (loader.js hands it over): shown if the reader is still there.
  api.receive = (message) => {
    const figure = api.figures[message.figure];
    if (!figure || live()) return;
    const answer = JSON.parse(message.answer);
    if (answer.refused) {
      console.warn(`posviz frames: figure ${message.figure}: Python cannot compute this state (${answer.refused}); waiting for the full page`);
      return;
    }
    if (!answer.text || keyOf(figure, answer.values) !== keyOf(figure, figure.values)) return;
    const pool = message.pool.buffer.slice(message.pool.byteOffset, message.pool.byteOffset + message.pool.byteLength);
    show(figure, {...answer, pool});
    api.state[figure.id] = "python";
    api.computed[figure.id] = performance.now();
    writeUrl(figure, figure.values);
  };
  api.numpy = (message) => {
    api.numpyAt = performance.now();
    api.numpyTimings = message.timings; // the worker's stages so far (benchmarks read them)
    body.dataset.posvizNumpy = "ready";
  };

  function showNumbers(figure) {
    const {models} = figure;
    if (!models.text.numbers || !models.toggle) return;
    const on = Boolean(models.toggle.active);
    models.text.numbers.visible = on;
    models.text.numbers.text = on && figure.text ? figure.text.numbers : "";
  }

  function showComputing(figure) {
    showPlots(figure, false);
    figure.text = null;
    const notes = {readout: `<p>${COMPUTING}</p>`, alt: `<p class="posviz-sr">${COMPUTING}</p>`};
    for (const [role, note] of Object.entries(notes)) {
      if (figure.models.text[role]) figure.models.text[role].text = escapeHtml(note);
    }
    showNumbers(figure);
    api.state[figure.id] = "computing";
  }

  const keyOf = (figure, values) => JSON.stringify(
    figure.index.sliders.filter((s) => !s.implied).map((s) => values[s.name]));

  // The frame for the figure's values, if the build computed it.
  function frameFor(figure, values, moved) {
    const {index} = figure;
    const slider = index.sliders.find((s) => s.name === moved);
    let key;
    if (slider && slider.implied) {
      const target = index.moves[moved][String(values[moved])];
      key = target === null ? keyOf(figure, figure.values) : target;
    } else {
      key = keyOf(figure, values);
    }
    const at = key === undefined ? undefined : index.states[key];
    return at === undefined ? null : index.frames[at];
  }

  function urlKey(figure, name) {
    return CONFIG.single ? name : `${figure.id}.${name}`;
  }

  function writeUrl(figure, before) {
    const url = new URL(window.location.href);
    for (const slider of figure.index.sliders) {
      const value = figure.values[slider.name];
      if (before[slider.name] !== value || url.searchParams.has(urlKey(figure, slider.name))) {
        url.searchParams.set(urlKey(figure, slider.name), String(value));
      }
    }
    if (url.href !== window.location.href) history.replaceState(history.state, "", url.href);
    tellPython();
  }

  function tellPython() {
    const worker = window.posvizWorker;
    if (worker && worker.port) worker.postMessage({type: "search", search: window.location.search});
  }

  // The reader moved a widget on the preview.
  function moved(figure, name, value) {
    if (figure.applying || live()) return;
    const before = {...figure.values};
    const values = {...figure.values, [name]: value};
    const frame = figure.index.frames ? frameFor(figure, values, name) : null;
    if (frame) {
      showFrame(figure, frame);
    } else {
      figure.values = values;
      showComputing(figure);
      askPython(figure);
    }
    writeUrl(figure, before);
  }

  function widgetValue(figure, slider) {
    const widget = figure.models.widgets[slider.name];
    return slider.kind === "buttons" ? slider.options[widget.active] : widget.value;
  }

  function listen(figure) {
    for (const slider of figure.index.sliders) {
      const widget = figure.models.widgets[slider.name];
      const property = slider.kind === "buttons" ? widget.properties.active : widget.properties.value;
      property.change.connect(() => moved(figure, slider.name, widgetValue(figure, slider)));
    }
    if (figure.models.toggle) {
      figure.models.toggle.properties.active.change.connect(() => { if (!live()) showNumbers(figure); });
    }
  }

  // Values a deep link asks for, as the page's Python would read them.
  function linked(figure) {
    const query = new URLSearchParams(window.location.search);
    const values = {...figure.values};
    let any = false;
    for (const slider of figure.index.sliders) {
      const raw = query.get(urlKey(figure, slider.name)) ?? (CONFIG.single ? null : query.get(slider.name));
      if (raw === null) continue;
      any = true;
      if (slider.kind === "buttons") {
        if (slider.options.map(String).includes(raw)) values[slider.name] = slider.options.find((o) => String(o) === raw);
      } else if (/^-?[0-9]+$/.test(raw)) {
        values[slider.name] = Number(raw);
      }
    }
    return any ? values : null;
  }

  // Fetching costs the page no CPU: it starts at once, while BokehJS parses, at a low
  // priority (the page's own scripts come first); the frames are read after the paint.
  const fetched = {};
  for (const [id, files] of Object.entries(CONFIG.figures)) {
    fetched[id] = Promise.all([fetchChecked(files.json), fetchChecked(files.bin)]);
    fetched[id].catch(() => {}); // reported by load()
  }

  async function load(id) {
    const doc = window.Bokeh && Bokeh.documents && Bokeh.documents[0];
    try {
      const [indexBytes, pool] = await fetched[id];
      const t = performance.now();
      const index = JSON.parse(new TextDecoder().decode(indexBytes));
      const parsed = performance.now();
      const models = findModels(doc, index);
      // Where the time goes after the paint (benchmarks read it).
      api.profile[id] = {fetched: Math.round(t), parse: Math.round(parsed - t),
                         find: Math.round(performance.now() - parsed)};
      return {index, pool, models};
    } catch (error) {
      console.error("posviz frames:", error);
      api.loaded[id] = `failed: ${error.message || error}`;
      return null;
    }
  }

  // A figure whose frames failed still keeps what the reader sets (URL, Python),
  // and says "Computing…" until Python takes over.
  function bare(id, files, doc) {
    const index = {figure: Number(id), prefix: files.prefix, sliders: files.sliders, frames: null};
    const figure = {id: Number(id), index, saved: new Map(), applying: false, text: null};
    try {
      figure.models = findModels(doc, index);
    } catch (error) {
      console.error("posviz frames:", error);
      return null;
    }
    figure.values = {};
    for (const slider of index.sliders) figure.values[slider.name] = widgetValue(figure, slider);
    return figure;
  }

  async function start() {
    const doc = window.Bokeh && Bokeh.documents && Bokeh.documents[0];
    if (!doc) return;
    api.startedAt = performance.now();
    tellPython();
    const entries = Object.entries(CONFIG.figures);
    const results = await Promise.all(entries.map(([id]) => load(id)));
    if (live()) return;
    let failed = 0;
    entries.forEach(([id], n) => {
      const result = results[n];
      if (!result) {
        failed += 1;
        const figure = bare(id, CONFIG.figures[id], doc);
        if (figure) {
          api.figures[id] = figure;
          listen(figure);
          if (linked(figure)) {  // a deep link no frame can show
            figure.values = {...figure.values, ...linked(figure)};
            showComputing(figure);
            askPython(figure);
          }
        }
        return;
      }
      const figure = {id: Number(id), ...result, saved: new Map(), applying: false, text: null};
      const opening = result.index.frames[result.index.states[result.index.opening]];
      figure.values = {...opening.values};
      figure.text = Object.fromEntries(Object.entries(opening.text).map(([r, at]) => [r, result.index.strings[at]]));
      // What the reader did before the frames arrived counts.
      const now = {};
      for (const slider of result.index.sliders) now[slider.name] = widgetValue(figure, slider);
      const asked = linked(figure);
      api.figures[id] = figure;
      api.loaded[id] = "ready";
      listen(figure);
      const changed = result.index.sliders.filter((s) => now[s.name] !== figure.values[s.name]);
      if (changed.length) {
        for (const slider of changed) moved(figure, slider.name, now[slider.name]);
      } else if (asked) {
        const frame = frameFor(figure, asked, null);
        if (frame) showFrame(figure, frame);
        else {
          figure.values = asked;
          setWidgets(figure, asked, null);
          showComputing(figure);
          askPython(figure);
        }
      } else {
        api.state[id] = "frame";
      }
    });
    api.readyAt = performance.now(); // when a press first answers (benchmarks read it)
    body.dataset.posvizFrames = failed ? "failed" : "ready";
  }

  // After the paint, as Python's start is: the frames never delay the figures.
  const whenPainted = () => {
    const roots = window.Bokeh && Bokeh.index && Bokeh.index.roots;
    if (roots && roots.length && roots.every((v) => v.has_finished && v.has_finished())) {
      start().catch((error) => {
        console.error("posviz frames:", error);
        body.dataset.posvizFrames = "failed";
      });
    } else if (!live()) {
      requestAnimationFrame(whenPainted);
    }
  };
  requestAnimationFrame(whenPainted);
})();
