// The page script: what a page does in the browser for its readers, on top of
// Panel and Bokeh (see page_script.py). Run on each document's document_ready.
import {guard} from "./url_gate.js";

const PAGE_CSS = __PAGE_CSS__, THEMES = __THEMES__, THEMED = __THEMED__;
const REMAPPED = __REMAPPED__, LIGHT_INKS = __LIGHT_INKS__;
if (!window.__posvizAccess) window.__posvizAccess = {
  roots: new WeakSet(), docs: new WeakSet(), saved: new Map(), dirty: new Set(), queued: false,
};
const state = window.__posvizAccess;
if (!document.getElementById('posviz-page-css')) {
  const style = document.createElement('style');
  style.id = 'posviz-page-css';
  style.textContent = PAGE_CSS;
  document.head.appendChild(style);
}
const dark = window.matchMedia('(prefers-color-scheme: dark)');

// URL writes, Panel's and posviz's, at a pace every engine accepts (url_gate.js).
guard(window);

function fix(root) {
  const title = root.querySelector('.bk-slider-title');
  for (const handle of root.querySelectorAll('.noUi-handle')) {
    if (title && !handle.hasAttribute('aria-label')) {
      const text = title.textContent;
      const cut = text.lastIndexOf(':');
      handle.setAttribute('aria-label', (cut > 0 ? text.slice(0, cut) : text).trim());
    }
  }
  // A button group's title is drawn by its stylesheet (drawing/controls.py,
  // group_title_css); screen readers get it as the group's name.
  for (const group of root.querySelectorAll('.bk-btn-group:not([aria-label])')) {
    const drawn = getComputedStyle(group, '::before').content;
    if (!drawn || drawn === 'none' || drawn === 'normal') continue;
    try {
      group.setAttribute('aria-label', JSON.parse(drawn));
      group.setAttribute('role', 'group');
    } catch { /* not a plain string: leave the group unnamed */ }
  }
  for (const readout of root.querySelectorAll('.posviz-readout')) {
    if (readout.getAttribute('aria-live') !== 'polite') readout.setAttribute('aria-live', 'polite');
  }
  for (const button of root.querySelectorAll('button.copybtn:not([aria-label])')) {
    button.setAttribute('aria-label', 'Copy the code');
  }
  // A table or code block wider than a phone scrolls in its own box; the
  // keyboard must reach it.
  for (const table of root.querySelectorAll('table:not([tabindex]), pre:not([tabindex])')) {
    if (table.scrollWidth > table.clientWidth + 1) {
      table.setAttribute('tabindex', '0');
    }
  }
  for (const link of root.querySelectorAll('.posviz-deeplink a')) {
    if (link.textContent !== link.href) link.textContent = link.href;
  }
}

function colourOf(value) {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof value.value === 'string') return value.value;
  return null;
}

function withColour(value, colour) {
  return typeof value === 'string' ? colour : {...value, value: colour};
}

function theme() {
  const scheme = dark.matches ? THEMES.dark : null;
  for (const doc of (window.Bokeh && Bokeh.documents) || []) {
    if (!state.docs.has(doc)) {
      state.docs.add(doc);
      doc.on_change(() => schedule());
    }
    for (const model of doc.all_models) {
      const props = model.properties || {};
      let saved = state.saved.get(model);
      if (!scheme) {
        if (saved) {
          model.setv(saved);
          state.saved.delete(model);
        }
        continue;
      }
      const change = {};
      for (const [name, key] of Object.entries(THEMED)) {
        if (!(name in props)) continue;
        const value = props[name].get_value();
        if (colourOf(value) === null || colourOf(value) === scheme[key]) continue;
        change[name] = withColour(value, scheme[key]);
      }
      for (const name of REMAPPED) {
        if (!(name in props)) continue;
        const value = props[name].get_value();
        if (LIGHT_INKS.includes(String(colourOf(value)).toLowerCase())) {
          change[name] = withColour(value, scheme.ink);
        }
      }
      if (Object.keys(change).length) {
        if (!saved) {
          saved = {};
          state.saved.set(model, saved);
        }
        for (const name of Object.keys(change)) {
          if (!(name in saved)) saved[name] = props[name].get_value();
        }
        clearCanvas(model);
        model.setv(change);
      }
    }
  }
}

// BokehJS clears a plot's canvas after moving its origin by half a pixel
// (CanvasLayer.prepare), so at a pixel ratio of 1 the first row and column keep
// part of every earlier paint: once the dark theme is painted over the light, a
// light line along the plot's top and left. Clear each layer whole before the
// repaint the theme's change brings. Bokeh.index.find and the view's canvas
// layers are internals (posviz/internals.py JS_SEAMS).
function clearCanvas(model) {
  if (!('border_fill_color' in (model.properties || {}))) return;
  for (const view of Bokeh.index.find(model)) {
    const canvas = view.canvas_view;
    if (!canvas || view.model !== model) continue;
    for (const layer of [canvas.primary, canvas.overlays]) {
      layer.undo_transform((ctx) => ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height));
    }
  }
}

function visit(root) {
  fix(root);
  for (const element of root.querySelectorAll('*')) {
    const inner = element.shadowRoot;
    if (inner && !state.roots.has(inner)) {
      state.roots.add(inner);
      state.observer.observe(inner, {childList: true, subtree: true, characterData: true});
      visit(inner);
    }
  }
}

function schedule(root) {
  if (root) state.dirty.add(root);
  if (state.queued) return;
  state.queued = true;
  setTimeout(() => {
    state.queued = false;
    const roots = [...state.dirty];
    state.dirty.clear();
    roots.forEach(visit);
    theme();
    postHeight();
  }, 30);
}

function postHeight() {
  if (window.parent === window) return;
  // The page's <main>, not the body: the body is as tall as the iframe, and
  // the status pill is fixed to the bottom of it; measuring them would feed back.
  const main = document.querySelector('main');
  if (!main) return;
  const box = main.getBoundingClientRect();
  if (!box.height) return;
  const height = Math.ceil(box.bottom + window.scrollY + 16);
  if (height !== state.height) {
    state.height = height;
    window.parent.postMessage({posviz: 'height', height: height}, '*');
  }
}

if (!state.observer) {
  // Names and live regions are set in the observer's own microtask, so that a
  // re-rendered slider is never seen unnamed; the rest waits for a quiet moment.
  state.observer = new MutationObserver((records) => {
    const roots = new Set(records.map((record) => record.target.getRootNode()));
    roots.forEach(visit);
    for (const root of roots) state.dirty.add(root);
    schedule();
  });
  state.observer.observe(document.body, {childList: true, subtree: true, characterData: true});
  dark.addEventListener('change', () => schedule());
  new ResizeObserver(() => schedule()).observe(document.body);
}
schedule(document);
