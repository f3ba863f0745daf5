// posviz: the deep-link grammar, as Python's posviz/deeplinks.py has it.
// The preview (frames.js) reads and writes the URL with these rules before
// Python is up, so the state it shows is the state Python then shows. Both
// sides pass the same test vectors (tests/data/link_vectors.json): a change
// here without the same change there fails both suites. A page describes its
// sliders as data (deeplinks.page_spec): {single, figures: [{id, sliders}]}.
// frames.js imports it, posviz.myst's plugin takes it as a module object, and
// tests/js/links.test.mjs imports it.

const MAX_FIELDS = 50;
const MAX_SHOWN = 10;
const MAX_TEXT = 40;
const FIGURE_PREFIX = /^[0-9]{1,9}$/;
const WHOLE = /^-?[0-9]{1,9}$/;
const DECIMAL = /^-?[0-9]{1,9}(?:\.[0-9]{1,9})?$/;
const TRUTH = {true: true, 1: true, false: false, 0: false};
const NOTICE_TITLE = "Some link settings were ignored";

// URL text cut short for a message (by characters, as Python counts them).
function clip(text) {
  const chars = Array.from(text);
  return chars.length <= MAX_TEXT ? text : `${chars.slice(0, MAX_TEXT).join("")}…`;
}

const lower = (text) => text.toLowerCase();
const has = (object, key) => Object.hasOwn(object, key);

// The value `raw` stands for by its type's grammar; throws Error saying what is allowed.
function parseText(raw, spec) {
  switch (spec.type) {
    case "choice": {
      const aliases = spec.aliases || {};
      const text = has(aliases, raw) ? aliases[raw] : raw;
      const found = spec.choices.find(([choice]) => choice === text);
      if (found) return found[1];
      throw new Error(`must be one of ${spec.choices.map(([choice]) => choice).join(", ")}`);
    }
    case "boolean":
      if (!has(TRUTH, lower(raw))) throw new Error("must be true or false");
      return TRUTH[lower(raw)];
    case "integer":
      if (!WHOLE.test(raw)) throw new Error(`must be a whole number ${spec.span}`);
      return Number.parseInt(raw, 10);
    case "number":
      if (!DECIMAL.test(raw)) throw new Error(`must be a number ${spec.span}`);
      return Number.parseFloat(raw);
    case "text":
      if (Array.from(raw).length > MAX_TEXT) throw new Error(`must be at most ${MAX_TEXT} characters`);
      return raw;
    default:
      throw new Error("cannot be set from a link");
  }
}

// Throws if `value` is outside the slider's bounds, off its step, or odd when even.
function check(value, spec) {
  if (spec.type !== "integer" && spec.type !== "number") return;
  const [low, high] = spec.bounds || [null, null];
  if ((low !== null && value < low) || (high !== null && value > high)) {
    throw new Error(`must be ${spec.span}`);
  }
  if (spec.even && value % 2) throw new Error("must be even");
  if (spec.step && (value - spec.start) % spec.step) {
    throw new Error(`must be in steps of ${spec.step} ${spec.span}`);
  }
}

// A moved-bounds table key for movers' values (deeplinks.state_key).
const stateKey = (values) => values.map(String).join("|");

// Throws if `value` is outside the bounds its movers' `values` give it: `moves`
// is one slider's entry of Figure.moving_bounds(); a missing mover keeps its opening value.
function checkMoved(value, moves, values) {
  const state = moves.by.map((name) => (Object.hasOwn(values, name) ? values[name] : moves.at[name]));
  const bounds = moves.bounds[stateKey(state)];
  if (bounds && (value < bounds[0] || value > bounds[1])) {
    const when = moves.by.map((name, n) => `${name} is ${state[n]}`).join(" and ");
    throw new Error(`must be from ${bounds[0]} to ${bounds[1]} when ${when}`);
  }
}

function parse(raw, spec) {
  const value = parseText(raw, spec);
  check(value, spec);
  return value;
}

const sliderNames = (figure) => figure.sliders.map((slider) => slider.name);

// [figure id, slider name] a query key names on `page`; throws otherwise.
function resolve(key, page) {
  const dot = key.indexOf(".");
  if (dot >= 0) {
    const prefix = key.slice(0, dot);
    const name = key.slice(dot + 1);
    const figure = FIGURE_PREFIX.test(prefix)
      ? page.figures.find((f) => f.id === Number.parseInt(prefix, 10)) : undefined;
    if (!figure) throw new Error(`there is no figure ${clip(prefix)} on this page`);
    if (!sliderNames(figure).includes(name)) throw new Error(`figure ${prefix} has no slider '${clip(name)}'`);
    return [figure.id, name];
  }
  const owners = page.figures.filter((f) => sliderNames(f).includes(key));
  if (!owners.length) throw new Error("no figure on this page has that slider");
  if (owners.length > 1) {
    throw new Error(`more than one figure here has it; write ${owners.map((f) => `${f.id}.${key}`).join(" or ")}`);
  }
  return [owners[0].id, key];
}

const fields = (search) => search.replace(/^\?+/, "").split("&").filter((field) => field);

// One setting decoded as Python's parse_qsl does: "+" is a space, each run of
// %XX escapes is UTF-8 (a bad byte becomes U+FFFD), a lone "%" stays.
const decode = (text) => text.replace(/\+/g, " ").replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
  const bytes = run.slice(1).split("%").map((hex) => Number.parseInt(hex, 16));
  return new TextDecoder("utf-8").decode(new Uint8Array(bytes));
});

function pairOf(field) {
  const at = field.indexOf("=");
  return at < 0 ? [decode(field), ""] : [decode(field.slice(0, at)), decode(field.slice(at + 1))];
}

const sliderOf = (page, id, name) =>
  page.figures.find((f) => f.id === id).sliders.find((s) => s.name === name);

// {values: {figure id: {slider: value}}, problems: [...], written: {id: {slider: "pos=30"}}}
// that a link asks of `page` (deeplinks.read).
function read(search, page) {
  const all = fields(search);
  const given = all.slice(0, MAX_FIELDS).map(pairOf);
  const targets = new Map(); // "id\u0000name" → settings as written
  for (const [key, raw] of given) {
    try {
      const [id, name] = resolve(key, page);
      const at = `${id}\u0000${name}`;
      if (!targets.has(at)) targets.set(at, []);
      targets.get(at).push(`${clip(key)}=${clip(raw)}`);
    } catch (_error) { /* reported below */ }
  }
  const found = new Map();
  const writtenAs = {};
  const problems = [];
  const reported = new Set();
  for (const [key, raw] of given) {
    const written = `${clip(key)}=${clip(raw)}`;
    try {
      const [id, name] = resolve(key, page);
      const settings = targets.get(`${id}\u0000${name}`);
      if (settings.length > 1) {
        if (!reported.has(`${id}\u0000${name}`)) {
          reported.add(`${id}\u0000${name}`);
          problems.push(`${settings.join(", ")}: the link sets ${id}.${name} ${settings.length} times; none of them is applied`);
        }
        continue;
      }
      const value = parse(raw, sliderOf(page, id, name));
      if (!found.has(id)) found.set(id, {});
      found.get(id)[name] = value;
      writtenAs[id] = {...(writtenAs[id] || {}), [name]: written};
    } catch (error) {
      problems.push(`${written}: ${error.message}`);
    }
  }
  if (all.length > MAX_FIELDS) {
    problems.unshift(`the link has ${all.length} settings; only the first ${MAX_FIELDS} were read`);
  }
  const values = {};
  for (const figure of page.figures) {
    const asked = found.get(figure.id);
    if (!asked) continue;
    values[figure.id] = {};
    for (const name of sliderNames(figure)) if (has(asked, name)) values[figure.id][name] = asked[name];
  }
  return {values, problems, written: writtenAs};
}

const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
  .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");

// The notice's HTML for `problems` (escaped, at most MAX_SHOWN), or "".
function noticeHtml(problems) {
  if (!problems.length) return "";
  const shown = problems.slice(0, MAX_SHOWN);
  if (problems.length > MAX_SHOWN) shown.push(`and ${problems.length - MAX_SHOWN} more`);
  return `<strong>${NOTICE_TITLE}</strong><ul>${shown.map((p) => `<li>${escapeHtml(p)}</li>`).join("")}</ul>`;
}

// A value as the link writes it: a choice by its text, a switch as true/false.
function valueText(value, spec) {
  if (spec.type === "choice") {
    const found = spec.choices.find(([, choice]) => choice === value);
    if (found) return found[0];
  }
  if (spec.type === "boolean") return value ? "true" : "false";
  return String(value);
}

// Python's quote(text, safe=""): unreserved characters kept, the rest %XX in UTF-8.
const quote = (text) => encodeURIComponent(text)
  .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const keyOf = (page, id, name) => (page.single ? name : `${id}.${name}`);

// The query after the reader set `changes` ({figure id: {slider: value}}): every
// setting naming a changed slider, bare or prefixed, goes; the new ones come first.
function write(search, page, changes) {
  let kept = fields(search);
  const written = [];
  for (const figure of page.figures) {
    const changed = changes[figure.id] || {};
    for (const spec of figure.sliders) {
      if (!has(changed, spec.name)) continue;
      kept = kept.filter((field) => {
        const [key] = pairOf(field);
        return key !== spec.name && key !== `${figure.id}.${spec.name}`;
      });
      written.push(`${quote(keyOf(page, figure.id, spec.name))}=${quote(valueText(changed[spec.name], spec))}`);
    }
  }
  const query = written.concat(kept).join("&");
  return query ? `?${query}` : "";
}

export {MAX_FIELDS, MAX_SHOWN, MAX_TEXT, clip, parseText, check, checkMoved, stateKey, parse, resolve, read, noticeHtml, valueText, write};
