// posviz figures in MyST / Jupyter Book 2: a `posviz-figure` directive.
//
//   ```{posviz-figure} 710
//   :pos: 24
//   :height: 560
//   :caption: Drag pos: the right curve stays put.
//   ```
//
// `posviz myst-plugin --out posviz.mjs` (posviz/myst/__init__.py) writes this
// file with every figure's sliders (deeplinks.figure_spec) and the deep-link
// grammar (export/links.js) baked in, so a docs build runs no Python. The
// directive checks the figure id and each slider value with the rules the
// figure pages and posviz.sphinx use; a bad one is an error at its file and
// line (`myst build --strict` then stops), and the page shows it in a red box.
//
// What it writes is a MyST widget (an `anywidget` node): MyST's theme runs no
// other script, and its `iframe` node has a fixed 60% aspect ratio. The
// widget's module, posviz-embed.mjs next to this file, draws the iframe and
// sizes it to the height the figure's page reports.
import path from "node:path";
import {fileURLToPath} from "node:url";

const FIGURES = __FIGURES__;
const SITE = __SITE__;
const DEFAULT_HEIGHT = __DEFAULT_HEIGHT__;
const MAX_HEIGHT = __MAX_HEIGHT__;
const WIDGET = fileURLToPath(new URL(__WIDGET__, import.meta.url));
const OWN_OPTIONS = ["height", "caption", "title"];
// A figure id longer than this is no figure (as posviz.sphinx says).
const MAX_ID_DIGITS = 18;
// MyST's own rule ids, so `error_rules` in myst.yml can tune them as for any directive.
const ARGUMENT_RULE = "directive-argument-correct";
const OPTIONS_RULE = "directive-options-correct";

// export/links.js, a UMD module, handed a CommonJS `module` to fill.
const links = __LINKS__; // export/links.js (posviz.assets.module_object)

// A directive the author must fix: the message, and the node it is about (its line).
class Refusal extends Error {
  constructor(message, node, ruleId) {
    super(message);
    this.node = node;
    this.ruleId = ruleId;
  }
}

const known = () => FIGURES.map((figure) => figure.id).join(", ");

// The figure the directive's argument names; throws a Refusal saying why not.
function figureOf(argument, node) {
  const text = String(argument ?? "").trim();
  const shown = text.length <= 24 ? text : `${text.slice(0, 20)}… (${text.length} characters)`;
  if (!/^[0-9]+$/.test(text)) {
    throw new Refusal(`posviz-figure: '${shown}' is not a figure id (a number)`, node, ARGUMENT_RULE);
  }
  const figure = text.length <= MAX_ID_DIGITS && FIGURES.find((f) => f.id === Number(text));
  if (!figure) {
    throw new Refusal(`posviz-figure: there is no figure ${shown}; the figures are ${known()}`, node, ARGUMENT_RULE);
  }
  return figure;
}

// The directive's options as written, each with its own node (its own line).
const optionsOf = (node) =>
  (node.children || [])
    .filter((child) => child.type === "mystOption")
    .map((option) => ({name: option.name, raw: String(option.value ?? "").trim(), node: option}));

// The `:height:` in px; throws a Refusal naming the allowed range.
function heightOf(option, prefix) {
  if (!option) return DEFAULT_HEIGHT;
  const short = /^[0-9]+$/.test(option.raw) && option.raw.length <= String(MAX_HEIGHT).length;
  if (!short || Number(option.raw) < 1 || Number(option.raw) > MAX_HEIGHT) {
    const why = `must be a whole number of px from 1 to ${MAX_HEIGHT}`;
    throw new Refusal(`${prefix}: :height: ${option.raw}: ${why}`, option.node, OPTIONS_RULE);
  }
  return Number(option.raw);
}

// The deep link's query for the slider options, checked by the grammar. The sliders
// that move others' bounds are read first, so the order written does not matter, and
// each moved slider is checked against the bounds they give it (as posviz.embed does).
function queryOf(figure, sliders, prefix) {
  const names = figure.sliders.map((slider) => slider.name);
  const moved = (option) => Object.hasOwn(figure.moves, option.name);
  const unknown = sliders.find((option) => !names.includes(option.name));
  if (unknown) {
    const why = `figure ${figure.id} has no slider '${unknown.name}'; its sliders are ${names.join(", ")}`;
    throw new Refusal(`${prefix}: ${why}`, unknown.node, OPTIONS_RULE);
  }
  const values = {};
  for (const option of [...sliders.filter((o) => !moved(o)), ...sliders.filter(moved)]) {
    const spec = figure.sliders.find((slider) => slider.name === option.name);
    try {
      values[option.name] = links.parse(option.raw, spec);
      if (moved(option)) links.checkMoved(values[option.name], figure.moves[option.name], values);
    } catch (error) {
      throw new Refusal(`${prefix}: :${option.name}: ${option.raw}: ${error.message}`, option.node, OPTIONS_RULE);
    }
  }
  return new URLSearchParams(sliders.map((option) => [option.name, option.raw])).toString();
}

// The options by name; an option given twice is refused rather than guessed at.
function byName(options, prefix) {
  const found = {};
  for (const option of options) {
    if (Object.hasOwn(found, option.name)) {
      throw new Refusal(`${prefix}: :${option.name}: is given twice`, option.node, OPTIONS_RULE);
    }
    found[option.name] = option;
  }
  return found;
}

// The widget node for one directive. The caption is plain text, as in posviz.sphinx:
// MyST 1.8 refuses a widget inside a figure container.
function embed(data, vfile) {
  const figure = figureOf(data.arg, data.node);
  const prefix = `posviz-figure ${figure.id}`;
  const options = byName(optionsOf(data.node), prefix);
  const sliders = Object.values(options).filter((option) => !OWN_OPTIONS.includes(option.name));
  const query = queryOf(figure, sliders, prefix);
  const widget = {
    type: "anywidget",
    // MyST copies the module into the site; a path relative to the page it is on.
    esm: path.relative(path.dirname(path.resolve(vfile.path)), WIDGET),
    model: {
      site: SITE,
      path: `figure-${figure.id}.html${query ? `?${query}` : ""}`,
      title: options.title ? options.title.raw : figure.title,
      height: heightOf(options.height, prefix),
      caption: options.caption ? options.caption.raw : "",
    },
    class: "posviz-embed",
    id: `posviz-${figure.id}-${data.node.position ? data.node.position.start.line : 0}`,
  };
  return widget;
}

// The red box a refused directive leaves on the page, carrying its refusal to `refusals`.
const errorBox = (refusal) => ({
  type: "admonition",
  kind: "error",
  position: refusal.node.position,
  posvizRefusal: {message: refusal.message, ruleId: refusal.ruleId},
  children: [
    {type: "admonitionTitle", children: [{type: "text", value: "posviz-figure"}]},
    {type: "paragraph", children: [{type: "text", value: refusal.message}]},
  ],
});

// Each refusal in a page's tree, reported as myst-common's fileError does: an
// error at its line, with a rule id. Reported here, not in the directive's run:
// MyST 1.8 drops what a directive reports from the count `--strict` stops on.
function reportRefusals(tree, vfile) {
  const pending = [tree];
  while (pending.length) {
    const node = pending.pop();
    if (node.posvizRefusal) {
      const message = vfile.message(node.posvizRefusal.message, node);
      message.fatal = true;
      message.ruleId = node.posvizRefusal.ruleId;
    }
    pending.push(...(node.children || []).slice().reverse()); // in reading order
  }
}

const refusals = {
  name: "posviz-figure refusals",
  doc: "Reports each refused posviz-figure directive as an error at its file and line.",
  stage: "document",
  plugin: () => reportRefusals,
};

const sliderOptions = {};
for (const figure of FIGURES) {
  for (const slider of figure.sliders) {
    sliderOptions[slider.name] = {type: String, doc: `a slider's value (${slider.name}), checked per figure`};
  }
}

const posvizFigure = {
  name: "posviz-figure",
  doc: "A live posviz figure in a self-sizing iframe, its sliders set by the options.",
  arg: {type: String, required: true, doc: `The figure id: ${known()}.`},
  options: {
    ...sliderOptions,
    height: {type: String, doc: `The least height in px (default ${DEFAULT_HEIGHT}).`},
    caption: {type: String, doc: "A caption under the figure (plain text)."},
    title: {type: String, doc: "The iframe's title, for screen readers (default: the figure's)."},
  },
  run(data, vfile) {
    try {
      return [embed(data, vfile)];
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return [errorBox(error)];
    }
  },
};

export default {name: "posviz figures", directives: [posvizFigure], transforms: [refusals]};
