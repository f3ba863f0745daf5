// posviz: a far figure is drawn when the reader scrolls near it, and joins the
// live document then. Joined to the loader (export/adapter.py, rewrite_page), so
// it runs after BokehJS and before the page's embed script.
//
// Each figure's island (compose/templates/site.html) holds one Bokeh root. When
// a document is embedded (the pre-render, then Python's live one), the roots of
// islands far from the viewport are deserialized but get no view: no layout,
// no canvas, no DOM. Their models are there, so the frames (frames.js) and
// Python's patches reach them. When the island comes within a screen of the
// viewport, its view is built as BokehJS's own embed builds it (embed/standalone:
// views_manager.build_view, then view.build into the root's element). Before
// that, the island keeps the height its figure will take (site.css), so the
// reader never scrolls onto a blank box. Printing draws every figure first.
//
// The page tells the worker which figures it has drawn ("near"). Python's live
// document holds those; every other island's root is an empty shell (class
// posviz-later) that Python fills once the page is live (runtime/documents.py,
// fill). A shell gets no view until it is filled: a view built empty and filled
// later keeps stale pixels along its plots' top and left edges (BokehJS clears a
// canvas half a pixel off). Its island says "waiting" until then.
(() => {
  const Document = window.Bokeh && Bokeh.require?.("document").Document;
  // posvizLazyOff: every figure at once, as before (benchmarks/lazy.py's A/B).
  if (!Document || !Bokeh.embed || window.posvizLazyOff) return;
  const AHEAD = "100% 0px 100% 0px"; // one screen above and below the viewport
  // px a drawn figure may fall short of its room (tests/ui/test_widths.py, OFF), and
  // how long a joined island keeps its room's height at most (join).
  const ROOM_SLACK = 8;
  const HOLD_ROOM_MS = 3000;
  const pending = new Map(); // element id → {model, doc, el, island}
  const drawn = new Set(); // element ids whose figure has been drawn
  const LATER = "posviz-later"; // a shell's class (drawing/layout.py, figure_shell)
  const CONTROLS = "posviz-controls"; // a figure's sliders and buttons (drawing/layout.py)
  const shells = new Map(); // element id → {figure, filled: a promise, done: its resolve}
  const wanted = new Set(); // element ids of shells the reader came near: drawn once filled
  const repaint = new Set(); // element ids of shells: their plots painted again on screen
  let embedding = null; // the elements of the embed in progress, by root index
  const api = {
    // figure ids whose islands wait to be drawn, in page order
    waiting: () => [...pending.values()].map((p) => Number(p.island.dataset.figure)),
    joined: [], // figure ids in the order they were drawn after the page's embed
    unfilled: () => [...shells.values()].map((shell) => shell.figure), // Python's to fill
    drawnBefore: [], // figure ids drawn when the last document was embedded
    shelled: [], // figure ids that came as shells in the last document embedded
    filled: [], // figure ids in the order Python filled their shells
    repainted: [], // figure ids of filled shells painted again on screen, once done
    holds: [], // each change of whether the reader's pointer is on a figure's controls
    carried: [], // figure ids whose focused control's focus went live with it
    // Every figure drawn, shells once filled: print; tests and benchmarks.
    joinAll: () => Promise.all([
      ...[...pending.keys()].map(join),
      ...[...shells.entries()].map(([id, shell]) => shell.filled.then(() => join(id))),
    ]),
  };
  window.posvizLazy = api;

  const islandOf = (el) => (el ? el.closest(".posviz-island") : null);
  const near = (island) => {
    const box = island.getBoundingClientRect();
    return box.bottom > -innerHeight && box.top < 2 * innerHeight;
  };
  const mark = (island, state) => { island.dataset.posvizIsland = state; };
  // For Python to build first: the shells the reader came near, the nearest the middle
  // of the viewport first, then the figures drawn so far (runtime/documents.py fills
  // the first listed that waits).
  const figuresOf = (ids) => [...ids]
    .map((id) => Number(islandOf(document.getElementById(id))?.dataset.figure))
    .filter(Number.isInteger);
  const offCentre = (id) => {
    const box = islandOf(document.getElementById(id))?.getBoundingClientRect();
    return box ? Math.abs((box.top + box.bottom) / 2 - innerHeight / 2) : Infinity;
  };
  const byCentre = (ids) => [...ids].map((id) => [offCentre(id), id])
    .sort((a, b) => a[0] - b[0]).map(([, id]) => id); // one box read per island
  const nearFirst = () => [...figuresOf(byCentre(wanted)), ...figuresOf(drawn)];
  const tellNear = () => window.posvizWorker?.postMessage({type: "near", figures: nearFirst()});

  // While the reader is at a figure's controls, no fill starts (worker.js,
  // fill_gate.js): a fill is one Python call that a change cannot cut, and the reader
  // about to move a slider should not wait for a figure built off screen. It is said
  // when it changes, and again with each document embedded (a page that connected
  // to a new runtime starts it anew). At the controls means either of:
  // - the pointer rests on them. It lets go when it moves off them, leaves the
  //   window or turns the wheel, and a touch when it lifts; not when the live
  //   document redraws the figure under a pointer that stays put (the browser then
  //   says "over" for whatever it drew there first, in the same island);
  // - the keyboard brought the focus to them (Tab: the focused control matches
  //   :focus-visible, as a click's does not), or a key was pressed in them; until
  //   the focus leaves them.
  // A hidden page lets go of both. And no hold stands while a figure the reader came
  // near waits to be filled: that figure is wanted now (and goes first), more than
  // an answer without a wait. The controls sit in Bokeh's shadow roots: the event's
  // composed path reaches them.
  let holding = false;
  const at = {pointer: false, keys: false};
  let where = ""; // where the pointer was when it last came onto the controls,
  let whose = null; // and the island it came onto them in
  const tellHold = () => window.posvizWorker?.postMessage({type: "hold", holding});
  const nearAndWaiting = () => [...wanted].some((id) => shells.has(id));
  /** @param {"pointer" | "keys" | null} source what changed (null: the shells did) */
  const hold = (source, now = false) => {
    if (source) at[source] = now;
    const held = (at.pointer || at.keys) && !window.posvizFilled && !nearAndWaiting();
    if (held === holding) return;
    holding = held;
    api.holds.push(held);
    if (!held) { // the fill this lets start takes the nearest of the shells near now
      for (const [id, waiting] of pending) if (shells.has(id) && near(waiting.island)) wanted.add(id);
      tellNear(); // (the observer may say so only after the pointer has: a scroll moves both)
    }
    tellHold();
  };
  const within = (event, css) => event.composedPath()
    .find((node) => node.classList?.contains(css)) || null;
  const point = (event) => `${event.clientX},${event.clientY}`;
  /** @param {Event} event a focusin: whether the focused control shows keyboard focus */
  const byKeyboard = (event) => {
    const focused = /** @type {Element | undefined} */ (event.composedPath()[0]);
    return typeof focused?.matches === "function" && focused.matches(":focus-visible");
  };
  document.addEventListener("pointerover", (event) => {
    if (within(event, CONTROLS)) {
      where = point(event);
      whose = within(event, "posviz-island");
      hold("pointer", true);
    } else if (point(event) !== where || within(event, "posviz-island") !== whose) {
      hold("pointer", false);
    }
  });
  document.addEventListener("pointerout", (event) => {
    if (!event.relatedTarget && point(event) !== where) hold("pointer", false); // out of the window
  });
  /** @param {PointerEvent} event */
  const lifted = (event) => {
    if (event.pointerType === "touch") hold("pointer", false); // a finger does not rest
  };
  document.addEventListener("pointerup", lifted);
  document.addEventListener("pointercancel", lifted);
  document.addEventListener("wheel", () => hold("pointer", false), {passive: true});
  document.addEventListener("keydown", (event) => {
    if (within(event, CONTROLS)) hold("keys", true);
    setTimeout(focusedNow); // once the key has moved the focus
  });
  document.addEventListener("pointerdown", () => setTimeout(focusedNow));
  document.addEventListener("focusin", (event) => {
    focusedNow();
    if (!within(event, CONTROLS)) hold("keys", false);
    else if (byKeyboard(event)) hold("keys", true);
  });
  document.addEventListener("focusout", (event) => {
    if (event.relatedTarget) return;
    // To nothing: the window lost the focus, or the control was removed (Chromium says
    // so; going live removes the preview's): then its focus is carried (below).
    setTimeout(() => {
      if (!carryFocus()) hold("keys", false);
    });
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) return;
    hold("pointer", false);
    hold("keys", false);
  });

  // A shell the reader came near: once the joins of this turn are in (the observer
  // reports a screen's worth at once), the worker hears them, then the hold ends
  // (nearAndWaiting): the fill that this lets start takes the nearest.
  let telling = false;
  const cameNear = () => {
    if (telling) return;
    telling = true;
    queueMicrotask(() => {
      telling = false;
      tellNear();
      hold(null);
    });
  };

  // A shell: filled (its class changes from LATER), it is drawn at once if the reader
  // wants it (near, or come near since), else when the reader comes, as a far root.
  function watchShell(model, el, island) {
    /** @type {(value?: unknown) => void} */
    let done = () => {};
    const filled = new Promise((resolve) => { done = resolve; });
    const figure = Number(island.dataset.figure);
    shells.set(el.id, {figure, filled, done});
    api.shelled.push(figure);
    repaint.add(el.id);
    model.properties.css_classes.change.connect(() => {
      if (model.css_classes.includes(LATER) || !shells.has(el.id)) return;
      shells.delete(el.id);
      api.filled.push(figure);
      done();
      hold(null); // the last of the shells the reader came near: a hold may stand again
      if (wanted.has(el.id) || !observer || near(island)) void join(el.id);
    });
  }

  const observer = "IntersectionObserver" in window
    ? new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) void join(/** @type {HTMLElement} */ (entry.target).dataset.posvizRoot);
      }
    }, {rootMargin: AHEAD})
    : null;

  // Going live with Panel's tier (loader.js: a figure without frames, or an eager page)
  // replaces each drawn figure's preview with Python's document: a control that had
  // the focus goes with it, and the focus falls to the page (a keyboard reader's next
  // arrow key went nowhere). So the control's place is kept: its figure, and which of
  // the island's controls it is (keyOf, and the how-manieth of that key). Once the
  // live figure has drawn its controls, the focus goes to the same one, unless the
  // reader has put it somewhere meanwhile. The keys' hold stands across.
  let focused = null; // {figure, key, nth, gone: the control} of the last control focused
  let carrying = null; // that, while its focus is carried to the live figure's control
  const deepAll = (root, out = []) => {
    for (const el of root.querySelectorAll("*")) {
      out.push(el);
      if (el.shadowRoot) deepAll(el.shadowRoot, out);
    }
    return out;
  };
  const deepActive = () => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active;
  };
  /** @param {Node | null} node @param {string} css the nearest such ancestor, across shadow roots */
  const above = (node, css) => {
    for (let at = node; at; at = at.parentNode || /** @type {ShadowRoot} */ (at).host) {
      if (/** @type {Element} */ (at).classList?.contains(css)) return /** @type {HTMLElement} */ (at);
    }
    return null;
  };
  /** @param {HTMLElement} island its focusable controls, in document order */
  const controlsOf = (island) => deepAll(island)
    .filter((el) => /** @type {HTMLElement} */ (el).tabIndex >= 0 && above(el, CONTROLS));
  // A control as both the preview and the live figure draw it: its kind and its
  // slider's title (without the value after the colon) or its text.
  /** @param {Element} control */
  const keyOf = (control) => {
    const root = /** @type {ShadowRoot | Document} */ (control.getRootNode());
    const title = root.querySelector?.(".bk-slider-title")?.textContent?.split(":")[0];
    return `${control.tagName}.${control.classList[0] ?? ""}|${title ?? control.textContent?.trim()}`;
  };
  // Where the focus is, among which figure's controls. The page hears a focusin only
  // when the focus crosses into another shadow tree: a Tab from one control to the
  // next inside a figure says nothing here. So it is read again after each key and
  // each press of the pointer too.
  const focusedNow = () => {
    const control = /** @type {HTMLElement} */ (deepActive());
    if (focused && focused.gone === control) return; // a key that left the focus where it was
    const island = above(control, "posviz-island");
    const same = island && above(control, CONTROLS)
      ? controlsOf(island).filter((each) => keyOf(each) === keyOf(control))
      : [];
    const nth = same.indexOf(control);
    focused = nth >= 0 ? {figure: island?.dataset.figure, key: keyOf(control), nth, gone: control} : null;
  };
  /** Whether the last control focused was removed with the focus on it: then carry it. */
  const carryFocus = () => {
    const active = deepActive();
    if (carrying) return true;
    if (!focused || focused.gone.isConnected || (active && active !== document.body)) return false;
    carrying = focused;
    requestAnimationFrame(() => restoreFocus());
    return true;
  };
  const restoreFocus = (frames = 600) => {
    if (!carrying) return;
    const {figure, key, nth, gone} = carrying;
    const now = deepActive();
    const elsewhere = now && now !== document.body && now !== gone;
    const island = document.querySelector(`.posviz-island[data-figure="${figure}"]`);
    const controls = island && !gone.isConnected
      ? controlsOf(/** @type {HTMLElement} */ (island)).filter((each) => keyOf(each) === key)
      : [];
    if (elsewhere || (gone.isConnected && now === gone) || frames === 0) {
      carrying = null; // the reader moved it, the control stayed, or the figure never came
      if (!deepActive() || deepActive() === document.body) hold("keys", false);
      return;
    }
    if (controls.length > nth) {
      carrying = null;
      /** @type {HTMLElement} */ (controls[nth]).focus({preventScroll: true});
      api.carried.push(Number(figure));
      return;
    }
    requestAnimationFrame(() => restoreFocus(frames - 1));
  };

  // The elements of the next embed's roots, in the order Bokeh places them: the
  // document's root i goes to the element of the item's root_ids[i]
  // (embed/dom: _resolve_root_elements; Panel's handler remaps the ids).
  const embedItems = Bokeh.embed.embed_items;
  Bokeh.embed.embed_items = function (docsJson, renderItems) {
    const item = renderItems.find((each) => each.docid != null && each.root_ids && each.roots);
    embedding = item
      ? item.root_ids.map((id) => document.getElementById(item.roots[id]))
      : null;
    // An engine that says nothing when it removes a focused control: now, or once
    // the live document has replaced the preview.
    carryFocus();
    const embedded = embedItems.call(this, docsJson, renderItems);
    Promise.resolve(embedded).then(carryFocus, () => {});
    return embedded;
  };

  // Which roots wait: shells, and those of islands not drawn before and not near.
  // Bokeh builds a view for every root that has a default_view: hide it on those, as
  // on a model with no view (Bokeh then counts it idle). A page without
  // IntersectionObserver draws everything at once (a shell once filled).
  const fromJson = Document.from_json;
  Document.from_json = function (...args) {
    const doc = fromJson.apply(this, args);
    if (!embedding) return doc;
    const elements = embedding;
    embedding = null;
    for (const p of pending.values()) observer?.unobserve(p.island);
    pending.clear();
    for (const shell of shells.values()) shell.done(); // of a document replaced: none to wait for
    shells.clear();
    wanted.clear();
    repaint.clear();
    sighted?.disconnect();
    onScreen.clear();
    api.drawnBefore = figuresOf(drawn);
    api.shelled = [];
    let islands = 0;
    doc.all_roots.forEach((model, i) => {
      const el = elements[i];
      const island = islandOf(el);
      if (!island) return;
      islands += 1;
      const shell = Boolean(model.css_classes?.includes(LATER));
      if (shell) watchShell(model, el, island);
      if (shell || (observer && !drawn.has(el.id) && !near(island))) {
        model.default_view = null;
        pending.set(el.id, {model, doc, el, island});
        island.dataset.posvizRoot = el.id;
        mark(island, "waiting");
        observer?.observe(island);
      } else {
        drawn.add(el.id);
        mark(island, "drawn");
      }
    });
    if (islands) {
      tellNear();
      if (holding) tellHold(); // a pointer that came before the page's connection did
    }
    return doc;
  };

  // WebKit (2.48, GTK) leaves the plots of a figure that came in Python's patch blank
  // on screen, though their canvases hold the drawing (getImageData reads it), when
  // they were painted off screen: a shell drawn ahead of the reader (AHEAD) was blank
  // once scrolled to. A paint while on screen shows it. So once such a root's views
  // have finished their first paint, its plots paint again each time its island comes
  // on screen (at once if it is there).
  // Bokeh.index.find and a plot view's request_paint: internals (posviz/internals.py).
  const onScreen = new Map(); // island → the paint of its filled shell's plots
  const sighted = "IntersectionObserver" in window
    ? new IntersectionObserver((entries) => {
      for (const entry of entries) if (entry.isIntersecting) onScreen.get(entry.target)?.();
    })
    : null;
  function paintAgainOnceDrawn(view, model, figure, island) {
    let first = true;
    const paint = () => {
      for (const each of model.references()) {
        for (const plot of Bokeh.index.find(each)) if (plot.canvas_view) plot.request_paint();
      }
      if (!first) return;
      first = false;
      // The paint runs in the frame the requests asked for; the frame after it, it is done.
      requestAnimationFrame(() => requestAnimationFrame(() => api.repainted.push(figure)));
    };
    const step = () => {
      if (!view.has_finished()) {
        requestAnimationFrame(step);
        return;
      }
      if (!sighted) {
        paint();
        return;
      }
      onScreen.set(island, paint);
      sighted.observe(island);
    };
    requestAnimationFrame(step);
  }

  async function join(elementId) {
    const p = pending.get(elementId);
    if (!p) return;
    if (shells.has(elementId)) { // drawn once Python fills it (watchShell)
      wanted.add(elementId);
      cameNear();
      return;
    }
    const views = p.doc.views_manager;
    if (views == null) { // the embed has not reached its views yet
      await new Promise((resolve) => requestAnimationFrame(resolve));
      return join(elementId);
    }
    pending.delete(elementId);
    observer?.unobserve(p.island);
    delete p.model.default_view; // the class's view again
    // The island keeps its room's height until the figure drawn in it is as tall (less
    // ROOM_SLACK), or for HOLD_ROOM_MS at most. The page's stylesheet drops the room once
    // the figure is in the island (site.css), and until BokehJS had laid the figure out
    // the island was 0 px tall for about 300 ms: a reader who had just scrolled to it
    // was carried one figure's height past it by the browser's scroll anchoring.
    const island = p.island;
    const held = island.getBoundingClientRect().height;
    island.style.minHeight = `${held}px`;
    let holding = true;
    const release = () => {
      if (holding) island.style.minHeight = "";
      holding = false;
    };
    const laidOut = () => {
      if (!holding) return;
      // The root element is laid out as its contents (site.css): measure what it holds.
      let height = 0;
      for (const child of p.el.children) height += child.getBoundingClientRect().height;
      if (height >= held - ROOM_SLACK) release();
      else requestAnimationFrame(laidOut);
    };
    const view = await views.build_view(p.model);
    view.build(p.el);
    requestAnimationFrame(laidOut);
    setTimeout(release, HOLD_ROOM_MS);
    Bokeh.index.add(view);
    if (repaint.delete(elementId)) {
      paintAgainOnceDrawn(view, p.model, Number(p.island.dataset.figure), p.island);
    }
    drawn.add(elementId);
    mark(p.island, "drawn");
    api.joined.push(Number(p.island.dataset.figure));
    tellNear();
  }

  window.addEventListener("beforeprint", api.joinAll);
  if (window.matchMedia) {
    matchMedia("print").addEventListener("change", (event) => { if (event.matches) void api.joinAll(); });
  }
})();
