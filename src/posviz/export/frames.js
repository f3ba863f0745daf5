// posviz: sliders that answer from the first paint, before Python is up.
// The build computed each figure's frames (posviz/export/frames.py): for every
// state a reader reaches from the opening one by moving one slider, the
// properties of each named Bokeh model, and the readout, text alternative,
// deep link and table as Panel writes them. This script loads them after the
// paint, checks their sha256, and applies a frame to the pre-rendered models
// when the reader moves a slider. A state without a frame (two sliders moved,
// files missing or corrupt) hides the plots and says "Computing…" until Python
// takes over: never a plot that does not match its sliders. Every value set
// here goes into the URL and to the worker, so Python starts from it. Each
// figure listens from the paint on its own: one whose frames are late says
// "Computing…" and hands the value on, and never waits for another's files.
// Deep links are read and written by the grammar Python uses (links.js).
import * as Checked from "./checked.js";
import * as Apply from "./frame_apply.js";
import * as Index from "./frame_index.js";
import * as Links from "./links.js";
import {whenPainted} from "./signals.js";

(() => {
  const settings = document.getElementById("posviz-frames");
  if (!settings) return;
  const CONFIG = JSON.parse(settings.textContent);
  const PAGE = CONFIG.links;
  // Opened as a file there is no Python: a state without a frame says how to get one.
  const COMPUTING = location.protocol === "file:"
    ? "This state needs Python: serve this page's folder (see the note at the top)"
    : "Computing… (waiting for Python)";
  const body = document.body;
  const api = {figures: {}, state: {}, loaded: {}, asked: {}, computed: {}, profile: {}};
  window.posvizFrames = api; // loader.js hands it the worker's frames; tests read it
  body.dataset.posvizFrames = "loading";
  const live = () => body.dataset.posviz === "live";

  const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");


  // A page opened as a file: browsers refuse fetch there, so each figure's files
  // come as one script beside them (frames/<id>.js, base64), checked alike.
  const asFile = location.protocol === "file:";
  const scripts = {};
  function fromScript(file) {
    const src = file.path.replace(/\.(json|bin)\.gz$/, ".js");
    const id = src.slice(src.lastIndexOf("/") + 1, -3);
    scripts[src] = scripts[src] || new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = src;
      tag.onload = () => resolve(self.posvizFrameFiles?.[id]);
      tag.onerror = () => reject(new Error(`${src} could not be loaded`));
      document.head.appendChild(tag);
    });
    return scripts[src].then((packed) => {
      const kind = file.path.endsWith(".json.gz") ? "json" : "bin";
      if (!packed || typeof packed[kind] !== "string") throw new Error(`${src} lacks its ${kind} file`);
      return Uint8Array.from(atob(packed[kind]), (c) => c.charCodeAt(0)).buffer;
    });
  }

  async function fetchChecked(file) {
    let packed;
    if (asFile) {
      packed = await Checked.verify(file.path, await fromScript(file), file.sha256);
    } else {
      const url = new URL(file.path, document.baseURI);
      packed = (await Checked.fetchChecked(url, file.path, file.sha256)).bytes;
    }
    return Checked.gunzip(packed);
  }

  // One frame onto the models of one figure (export/frame_apply.js, concatenated
  // before this file); its arrays are in ``pool``, as ``columns`` say.
  function applyModels(figure, part, columns, pool) {
    const {named} = figure.models;
    Apply.applyFrame((key) => named[figure.index.prefix + key], part, columns, pool);
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

  // The widgets at `values`; their bounds as `bounds` says (null: left as they are).
  function setWidgets(figure, values, bounds) {
    figure.applying = true;
    try {
      for (const slider of figure.index.sliders) {
        const widget = figure.models.widgets[slider.name];
        if (slider.kind === "buttons") {
          const active = slider.options.indexOf(values[slider.name]);
          if (widget.active !== active) widget.active = active;
        } else {
          const [start, end] = bounds === null ? [widget.start, widget.end]
            : (bounds[slider.name] || slider.bounds);
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
    show(figure, {values: frame.values, bounds: frame.bounds || {}, part: index.parts[frame.models],
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
    setWidgets(figure, frame.values, frame.bounds || {});
    figure.values = {...frame.values};
    figure.good = {...frame.values}; // the last state shown, for a refusal to return to
  }

  // Tier 2: ask the worker's numpy tier for the frame of the figure's values.
  // The answer comes as a "frame" message (receive); a newer question wins.
  function askPython(figure) {
    const worker = window.posvizWorker;
    const files = CONFIG.figures[figure.id];
    if (!worker?.port || live() || !files || !files.module) return;
    const values = Index.settled(figure.index, figure.values);
    if (!values) return;
    figure.asked = Index.keyOf(figure.index, values);
    api.asked[figure.id] = (api.asked[figure.id] || 0) + 1;
    worker.postMessage({type: "compute", figure: figure.id, request: {
      module: files.module, figure: figure.id, values, link: files.link}});
  }

  // The worker's answer (loader.js hands it over): shown if the reader is still there.
  api.receive = (message) => {
    const figure = api.figures[message.figure];
    if (!figure || live()) return;
    const answer = JSON.parse(message.answer);
    if (answer.refused) {
      refused(figure, answer.refused);
      return;
    }
    if (!answer.text || Index.keyOf(figure.index, answer.values) !== Index.keyOf(figure.index, figure.values)) return;
    const pool = message.pool.buffer.slice(message.pool.byteOffset, message.pool.byteOffset + message.pool.byteLength);
    show(figure, {...answer, pool});
    api.state[figure.id] = "python";
    api.computed[figure.id] = performance.now();
    writeUrl(figure, figure.values);
  };
  // The numpy tier refused the figure's values: say why, as Python's notice would,
  // and go back to the last state shown (a frame's, when there is one).
  function refused(figure, why) {
    const written = Object.values(linkAsked.written?.[figure.id] || {});
    const what = written.length ? written.join(", ") : `figure ${figure.id}`;
    console.warn(`posviz frames: ${what}: ${why}`);
    showNotice([...linkAsked.problems, `${what}: ${why}`]);
    figure.refusedLink = true;
    const frame = figure.index.frames ? Index.frameFor(figure.index, figure.good, null, figure.values) : null;
    if (frame) showFrame(figure, frame);
    else restorePaint(figure);
    api.state[figure.id] = "refused";
    // The URL keeps what the link said: Python reads it alike, and refuses it alike.
  }

  // The figure as the paint drew it (its frames not in yet): plots, texts and widgets.
  function restorePaint(figure) {
    const {paint, models} = figure;
    showPlots(figure, true);
    for (const plot of models.plots) plot.title.text = figure.saved.get(plot).title;
    for (const [role, text] of Object.entries(paint.text)) models.text[role].text = text;
    setWidgets(figure, paint.values, null);
    figure.values = {...paint.values};
  }

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

  // The URL: every change is written at once, and the page's URL gate
  // (compose/url_gate.js, installed by the page script before the paint) paces
  // what reaches the browser, the last value always. Until it lands, the gate's
  // waiting URL is the truth.
  const currentSearch = () => {
    const waiting = history.posvizGate?.waiting();
    return waiting ? new URL(String(waiting), window.location.href).search : window.location.search;
  };

  function setSearch(search) {
    const url = new URL(window.location.href);
    url.search = search;
    // A write the browser refuses is tried again by the gate.
    if (url.href !== window.location.href || history.posvizGate?.waiting()) {
      history.replaceState(history.state, "", url.href);
    }
    tellPython();
  }

  // Write into the URL the sliders of `figure` that differ from `before`.
  function writeUrl(figure, before) {
    const moved = Index.changed(figure.index, before, figure.values);
    if (Object.keys(moved).length) setSearch(Links.write(currentSearch(), PAGE, {[figure.id]: moved}));
  }

  function tellPython() {
    const worker = window.posvizWorker;
    if (worker?.port) worker.postMessage({type: "search", search: currentSearch()});
  }

  // The page's deep-link notice (Python's DeepLinks.notice), with `problems`.
  function showNotice(problems) {
    const doc = window.Bokeh && Bokeh.documents?.[0];
    if (!doc || !problems.length) return;
    const notice = [...doc.all_models].find((model) => Index.hasClass(model, "posviz-notice"));
    if (!notice) return;
    notice.text = escapeHtml(Links.noticeHtml(problems));
    notice.visible = true;
  }

  // The reader moved a widget on the preview.
  function moved(figure, name, value) {
    if (figure.applying || live()) return;
    figure.touched = true;
    const before = {...figure.values};
    const values = {...figure.values, [name]: value};
    const frame = figure.index.frames ? Index.frameFor(figure.index, values, name, figure.values) : null;
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

  // What the page's link asks (Links.read at the paint): values, problems, as written.
  let linkAsked = {values: {}, problems: [], written: {}};

  // A deep link's values on a figure with frames (Index.linkState): the frame
  // the link reaches, else "Computing…" and the numpy tier.
  function applyLink(figure, link) {
    const {frame, values} = Index.linkState(figure.index, link);
    if (frame) {
      showFrame(figure, frame);
      return;
    }
    figure.values = values;
    setWidgets(figure, values, null);
    showComputing(figure);
    askPython(figure);
  }

  // The frames are the second tier of bytes: they are asked for once the page's
  // own scripts have arrived (their Resource Timing entries; at the latest
  // DOMContentLoaded), so that on a slow link they never share it with BokehJS,
  // and they arrive while BokehJS runs and draws. In page order, AHEAD figures
  // at a time: the first figures' frames, which a reader moves first, are in
  // soonest, and one response's latency overlaps another's bytes. Read after the paint.
  const AHEAD = 2;
  const fetched = {};
  const ids = Object.keys(CONFIG.figures);
  const ask = {};
  for (const id of ids) {
    fetched[id] = new Promise((resolve) => { ask[id] = resolve; })
      .then(() => Promise.all([fetchChecked(CONFIG.figures[id].json), fetchChecked(CONFIG.figures[id].bin)]));
    fetched[id].catch(() => {}); // reported by load()
  }
  const next = (at) => {
    if (at >= ids.length) return;
    ask[ids[at]]();
    const after = () => next(at + AHEAD);
    fetched[ids[at]].then(after, after);
  };
  const fetchAll = () => { for (let at = 0; at < AHEAD; at += 1) next(at); };
  afterPageScripts(fetchAll);

  // ``then`` once every script the page pins (#posviz-page, connect.js) has
  // arrived, or at DOMContentLoaded, whichever comes first; once.
  function afterPageScripts(then) {
    let done = false;
    const once = () => { if (!done) { done = true; then(); } };
    if (document.readyState !== "loading") return once();
    document.addEventListener("DOMContentLoaded", once, {once: true});
    const page = document.getElementById("posviz-page");
    if (!page || typeof PerformanceObserver !== "function") return undefined;
    const wanted = (JSON.parse(page.textContent).pinned || []).map((src) => new URL(src, document.baseURI).href);
    const arrived = new Set();
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) arrived.add(entry.name);
      if (wanted.every((url) => arrived.has(url))) {
        observer.disconnect();
        once();
      }
    });
    observer.observe({type: "resource", buffered: true});
    return undefined;
  }

  async function load(id) {
    const doc = window.Bokeh && Bokeh.documents?.[0];
    try {
      const [indexBytes, pool] = await fetched[id];
      const t = performance.now();
      const index = JSON.parse(new TextDecoder().decode(indexBytes));
      const parsed = performance.now();
      const models = Index.findModels(doc, index);
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

  // A figure as the paint leaves it, before its frames: its widgets from the page's
  // settings, so what the reader sets goes into the URL and to Python at once.
  function bare(id, files, doc) {
    const index = {figure: Number(id), prefix: files.prefix, sliders: files.sliders, frames: null};
    const figure = {id: Number(id), index, saved: new Map(), applying: false, text: null};
    try {
      figure.models = Index.findModels(doc, index);
    } catch (error) {
      console.error("posviz frames:", error);
      return null;
    }
    figure.values = {};
    for (const slider of index.sliders) figure.values[slider.name] = widgetValue(figure, slider);
    figure.good = {...figure.values};
    const text = {};
    for (const [role, model] of Object.entries(figure.models.text)) text[role] = model.text;
    figure.paint = {values: {...figure.values}, text};
    return figure;
  }

  // The figure's frames arrived: from now on a move it has a frame for is shown at
  // once. What the reader or the link set meanwhile is kept. False if they failed.
  async function upgrade(id) {
    const figure = api.figures[id];
    const result = await load(id);
    if (!result) return false;
    if (!figure || live()) return true;
    const opening = result.index.frames[result.index.states[result.index.opening]];
    Object.assign(figure, result);
    api.loaded[id] = "ready";
    const link = linkAsked.values[id];
    if (link && !figure.touched && !figure.refusedLink) {
      applyLink(figure, link);
    } else if (Index.keyOf(figure.index, figure.values) !== Index.keyOf(figure.index, opening.values)) {
      const frame = Index.frameFor(figure.index, figure.values, null, figure.values);
      if (frame) showFrame(figure, frame); // else it says "Computing…" and asked Python
    } else {
      figure.text = Object.fromEntries(Object.entries(opening.text).map(([r, at]) => [r, result.index.strings[at]]));
      figure.good = {...opening.values};
      api.state[id] = "frame";
    }
    return true;
  }

  async function start() {
    const doc = window.Bokeh && Bokeh.documents?.[0];
    if (!doc) return;
    api.startedAt = performance.now();
    linkAsked = Links.read(window.location.search, PAGE);
    showNotice(linkAsked.problems);
    const entries = Object.entries(CONFIG.figures);
    for (const [id, files] of entries) {
      const figure = bare(id, files, doc);
      if (!figure) continue;
      api.figures[id] = figure;
      listen(figure);
      const link = linkAsked.values[id];
      if (link) { // the pre-render shows the opening state, not the link's
        figure.values = {...figure.values, ...link};
        setWidgets(figure, figure.values, null);
        showComputing(figure);
        askPython(figure);
      }
    }
    api.listeningAt = performance.now(); // every figure answers a move from here on
    tellPython();
    const upgraded = await Promise.all(entries.map(([id]) => upgrade(id)));
    if (live()) return;
    api.readyAt = performance.now(); // when every frame is in (benchmarks read it)
    body.dataset.posvizFrames = upgraded.every(Boolean) ? "ready" : "failed";
  }

  // After the paint, as Python's start is: the frames never delay the figures.
  whenPainted(window, () => {
    if (live()) return;
    start().catch((error) => {
      console.error("posviz frames:", error);
      body.dataset.posvizFrames = "failed";
    });
  });
})();
