// Which frame a state is, and which models a figure has (export/frame_index.js),
// on a hand-built index and stand-in BokehJS models. tests/test_frame_index.py
// runs the lookups on every shipped figure's real index.
import test from "node:test";
import assert from "node:assert/strict";
import * as Index from "../../src/posviz/export/frame_index.js";

// A figure with a side slider, a count slider and a preset that implies both:
// "small" is side 2, count 1; "custom" keeps whatever the others say.
const INDEX = {
  figure: 5,
  opening: "[2,1]",
  prefix: "posviz-5-",
  sliders: [
    {name: "side", label: "side", implied: false, kind: "slider"},
    {name: "count", label: "count", implied: false, kind: "slider"},
    {name: "preset", label: "preset", implied: true, kind: "buttons",
     labels: ["small", "custom"], options: ["small", "custom"]},
  ],
  states: {"[2,1]": 0, "[3,1]": 1, "[2,4]": 2},
  moves: {preset: {small: "[2,1]", custom: null}},
  frames: [
    {values: {side: 2, count: 1, preset: "small"}},
    {values: {side: 3, count: 1, preset: "custom"}},
    {values: {side: 2, count: 4, preset: "custom"}},
  ],
};

test("a state's key is the values of the sliders no other implies, as JSON", () => {
  assert.equal(Index.keyOf(INDEX, {side: 2, count: 1, preset: "small"}), "[2,1]");
  assert.equal(Index.keyOf(INDEX, {count: 1, side: 2, preset: "custom"}), "[2,1]"); // the slider order
  assert.equal(Index.keyOf(INDEX, {side: 0.5, count: 1}), "[0.5,1]");
});

test("a slider moved to a state the build computed finds its frame; two moves find none", () => {
  const opening = INDEX.frames[0].values;
  assert.equal(Index.frameFor(INDEX, {...opening, side: 3}, "side", opening), INDEX.frames[1]);
  assert.equal(Index.frameFor(INDEX, {...opening, count: 4}, "count", opening), INDEX.frames[2]);
  assert.equal(Index.frameFor(INDEX, {side: 3, count: 4, preset: "custom"}, "count", opening), null);
  assert.equal(Index.frameFor(INDEX, {side: 2, count: 4, preset: "custom"}, null, opening), INDEX.frames[2]);
});

test("a preset moves to the state its move names, and 'custom' (null) stays where it is", () => {
  const at = INDEX.frames[2].values;
  assert.equal(Index.frameFor(INDEX, {...at, preset: "small"}, "preset", at), INDEX.frames[0]);
  assert.equal(Index.frameFor(INDEX, {...at, preset: "custom"}, "preset", at), INDEX.frames[2]);
  const unknown = {...INDEX, moves: {preset: {small: "[9,9]", custom: null}}};
  assert.equal(Index.frameFor(unknown, {...at, preset: "small"}, "preset", at), null);
});

test("settled names the preset whose move leads to the state, else the one that keeps any", () => {
  assert.deepEqual(Index.settled(INDEX, {side: 2, count: 1, preset: "custom"}),
    {side: 2, count: 1, preset: "small"});
  assert.deepEqual(Index.settled(INDEX, {side: 3, count: 1, preset: "small"}),
    {side: 3, count: 1, preset: "custom"});
  const noCustom = {...INDEX, moves: {preset: {small: "[2,1]"}}};
  assert.equal(Index.settled(noCustom, {side: 3, count: 1}), null);
  assert.equal(Index.settled({...INDEX, moves: undefined}, {side: 2, count: 1}), null); // no frames yet
  const plain = {sliders: [{name: "pos", implied: false}]};
  const values = {pos: 7};
  assert.deepEqual(Index.settled(plain, values), values);
  assert.notEqual(Index.settled(plain, values), values); // a copy
});

// Stand-in BokehJS models: `properties` of {is_unset, get_value()}, as internals.py declares.
let nextId = 0;
function model(attrs) {
  const made = {id: nextId++, ...attrs, properties: {}};
  for (const [name, value] of Object.entries(attrs)) {
    made.properties[name] = {is_unset: value === undefined, get_value: () => value};
  }
  return made;
}

test("subtree reaches models through arrays, maps and plain objects, once each, and skips unset ones", () => {
  const leaf = model({name: "leaf"});
  const hidden = model({name: "hidden"});
  const inMap = model({name: "in map"});
  const middle = model({name: "middle", children: [leaf, leaf], extra: new Map([["k", inMap]])});
  const root = model({name: "root", child: {nested: middle}, later: undefined});
  root.properties.later = {is_unset: true, get_value: () => hidden};
  leaf.properties.back = {is_unset: false, get_value: () => root}; // a cycle
  const names = [...Index.subtree(root)].map((m) => m.name).sort();
  assert.deepEqual(names, ["in map", "leaf", "middle", "root"]);
});

function page() {
  const plot = model({name: "posviz-5-main", renderers: [], title: {text: "t"}});
  const legendItem = model({name: "posviz-5-legend", renderers: []}); // renderers, no title
  const readout = model({name: null, css_classes: ["posviz-readout"], text: "<p>side 2</p>"});
  const link = model({name: null, text: '<div class="posviz-deeplink">x</div>'});
  const toggle = model({name: null, css_classes: ["posviz-numbers-toggle"], active: false});
  const side = model({name: null, title: "side", value: 2, start: 1});
  const count = model({name: null, title: "count", value: 1, start: 1});
  const preset = model({name: null, labels: ["small", "custom"], active: 0});
  const column = model({name: "figure-5", children: [plot, legendItem, readout, link, toggle, side, count]});
  const all = [column, plot, legendItem, readout, link, toggle, side, count, preset];
  const doc = {
    get_model_by_name: (name) => all.find((m) => m.name === name) || null,
    all_models: new Set(all),
  };
  return {doc, plot, legendItem, readout, link, toggle, side, count, preset};
}

test("findModels finds the plots, texts and each slider's widget, on the page if not in the figure", () => {
  const p = page();
  const found = Index.findModels(p.doc, INDEX);
  assert.deepEqual(found.plots, [p.plot]);
  assert.deepEqual(Object.keys(found.named).sort(), ["posviz-5-legend", "posviz-5-main"]);
  assert.equal(found.text.readout, p.readout);
  assert.equal(found.text.link, p.link);
  assert.equal(found.toggle, p.toggle);
  assert.deepEqual(found.widgets, {side: p.side, count: p.count, preset: p.preset});
});

test("a figure or a widget not on the page is an error that names it", () => {
  const p = page();
  assert.throws(() => Index.findModels(p.doc, {...INDEX, figure: 6}), /figure 6 is not on the page/);
  const extra = {...INDEX, sliders: [...INDEX.sliders, {name: "depth", label: "depth", kind: "slider"}]};
  assert.throws(() => Index.findModels(p.doc, extra), /figure 5: no widget for depth on the page/);
});

test("hasClass and isPlot read only what a model has", () => {
  const p = page();
  assert.equal(Index.hasClass(p.readout, "posviz-readout"), true);
  assert.equal(Index.hasClass(p.side, "posviz-readout"), false);
  assert.equal(Index.isPlot(p.plot), true);
  assert.equal(Index.isPlot(p.legendItem), false);
});

test("a deep link is set slider by slider from the opening state, as Python sets it", () => {
  const state = (link) => {
    const found = Index.linkState(INDEX, link);
    return {at: INDEX.frames.indexOf(found.frame), values: found.values};
  };
  // One slider from the opening state: its frame.
  assert.deepEqual(state({side: 3}), {at: 1, values: INDEX.frames[1].values});
  assert.deepEqual(state({count: 4}), {at: 2, values: INDEX.frames[2].values});
  assert.deepEqual(state({}), {at: 0, values: INDEX.frames[0].values}); // names none: the opening
  // A value equal to the opening's is a step that stays: still framed.
  assert.deepEqual(state({side: 2, count: 4}), {at: 2, values: INDEX.frames[2].values});
  // Two sliders moved: the second step has no frame, so none, with the link's values.
  assert.deepEqual(state({side: 3, count: 4}), {at: -1, values: {side: 3, count: 4, preset: "custom"}});
  // "custom" keeps the state the steps before it reached (count 4, then the preset).
  assert.deepEqual(state({count: 4, preset: "custom"}), {at: 2, values: INDEX.frames[2].values});
  // A preset is set after the sliders before it: "small" moves back to its own state.
  assert.deepEqual(state({side: 3, preset: "small"}), {at: 0, values: INDEX.frames[0].values});
  // Once a step has no frame, later steps never find one: the values are the link's.
  assert.deepEqual(state({side: 3, count: 4, preset: "small"}),
    {at: -1, values: {side: 3, count: 4, preset: "small"}});
});

test("changed lists the sliders whose value differs, with the new values", () => {
  const before = {side: 2, count: 1, preset: "small"};
  assert.deepEqual(Index.changed(INDEX, before, {...before}), {});
  assert.deepEqual(Index.changed(INDEX, before, {side: 3, count: 1, preset: "custom"}),
    {side: 3, preset: "custom"});
  // Only the index's sliders: other fields of a state are not written to a URL.
  assert.deepEqual(Index.changed(INDEX, before, {...before, extra: 1}), {});
  // Compared as values, not by type coercion: 1 and "1" differ.
  assert.deepEqual(Index.changed(INDEX, before, {...before, count: "1"}), {count: "1"});
});
