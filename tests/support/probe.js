// The one page probe every engine runs (tests/ui/engines.py sends it with each
// call, so it survives navigation): what a reader sees, read from the page and
// its Bokeh documents, and the slider handles to act on. Shadow roots are
// followed everywhere, since Bokeh draws its widgets inside them.
({
  deepAll(root, selector) {
    const found = [];
    const walk = (node) => {
      for (const e of node.querySelectorAll("*")) {
        if (e.matches(selector)) found.push(e);
        if (e.shadowRoot) walk(e.shadowRoot);
      }
    };
    if (root.shadowRoot) walk(root.shadowRoot);
    walk(root);
    return found;
  },

  state() {
    return document.body ? document.body.dataset.posviz || null : null;
  },

  settled() {
    const state = this.state();
    // "numpy": a page whose figures the numpy tier answers, Panel not asked for.
    return ["live", "numpy", "error"].includes(state) ? state : null;
  },

  runtime() {
    return window.posvizRuntime || null;
  },

  status() {
    const bar = document.querySelector(".posviz-status");
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, as a reader sees it
    return bar?.isConnected ? bar.innerText : null;
  },

  statusHas(text) {
    const status = this.status();
    return status?.includes(text) ? status : null;
  },

  // Per renderer of the named plot, per column: length and sum. It changes
  // whenever the plotted data does (the newest document first: an exported page
  // keeps its pre-rendered one around).
  fingerprint(name) {
    if (!window.Bokeh || !Bokeh.documents) return null;
    for (const doc of [...Bokeh.documents].reverse()) {
      const plot = doc.get_model_by_name(name);
      if (!plot) continue;
      return plot.renderers.filter((r) => r.data_source).map((r) => {
        const data = r.data_source.data;
        return Object.keys(data).sort().map((key) => {
          const column = data[key];
          const flat = column.length && column[0] && column[0].length !== undefined
            && typeof column[0] !== "string" ? column.flatMap((a) => Array.from(a)) : Array.from(column);
          let sum = 0;
          for (const x of flat) if (typeof x === "number") sum += x;
          return `${key}:${flat.length}:${sum.toFixed(6)}`;
        }).join("|");
      }).join(" ; ");
    }
    return null;
  },

  changed(name, before) {
    const now = this.fingerprint(name);
    return now !== null && now !== before ? now : null;
  },

  // Follow the first link that matches, as a reader's click would; its href.
  follow(selector) {
    const link = this.deepAll(document, selector)[0];
    const href = link.getAttribute("href");
    setTimeout(() => link.click(), 0); // after this call has answered
    return href;
  },

  // The value of another probe once it equals ``expected``.
  equals(expected, name, ...args) {
    const value = this[name](...args);
    return value === expected ? value : null;
  },

  // The fingerprint once its last renderer's starts with ``prefix``.
  lastStarts(name, prefix) {
    const now = this.fingerprint(name);
    return now?.split(" ; ").at(-1).startsWith(prefix) ? now : null;
  },

  background(name) {
    for (const doc of [...(window.Bokeh ? Bokeh.documents : [])].reverse()) {
      const plot = doc.get_model_by_name(name);
      if (plot) return plot.background_fill_color;
    }
    return null;
  },

  // The drawn card of the page's figure number `figure`, as a reader reaches it:
  // an island still waiting to be drawn (export/lazy.js) is scrolled to, and null
  // until it is drawn.
  card(figure) {
    const islands = [...document.querySelectorAll(".posviz-island")];
    if (!islands.length) return this.deepAll(document, ".posviz-figure")[figure] || null;
    const island = islands[figure];
    if (!island) return null;
    if (island.dataset.posvizIsland === "waiting") {
      island.scrollIntoView({block: "center"});
      return null;
    }
    return this.deepAll(island, ".posviz-figure")[0] || null;
  },

  // The viewport box of the first plot of the page's figure number `figure`, scrolled
  // to, once drawn with every view painted (a shell's: painted again, lazy.js), else null.
  plotBox(figure) {
    const card = this.card(figure);
    const plot = card && this.deepAll(card, ".posviz-plot")[0];
    if (!plot) return null;
    plot.scrollIntoView({block: "center"});
    const island = card.closest(".posviz-island");
    const id = island ? Number(island.dataset.figure) : null;
    const lazy = window.posvizLazy;
    if (lazy?.shelled.includes(id) && !lazy.repainted.includes(id)) return null;
    if (!Bokeh.index.roots.every((view) => view.has_finished())) return null;
    const box = plot.getBoundingClientRect();
    return box.width && box.height ? {x: box.x, y: box.y, width: box.width, height: box.height} : null;
  },

  handle(figure, slider) {
    const card = this.card(figure);
    return card ? this.deepAll(card, ".noUi-handle")[slider] || null : null;
  },

  sliderTitle(figure, slider) {
    const card = this.card(figure);
    const title = card && this.deepAll(card, ".bk-slider-title")[slider];
    return title ? title.textContent.trim() : null;
  },

  // Focus a handle as Tab would; the label of what has focus then.
  focus(figure, slider) {
    const handle = this.handle(figure, slider);
    if (!handle) return null; // not drawn yet (a far island, being scrolled to)
    handle.focus();
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    return active === handle ? handle.getAttribute("aria-label") || "focused" : null;
  },

  // The handle's centre in viewport pixels, scrolled into view first.
  centre(figure, slider) {
    const handle = this.handle(figure, slider);
    if (!handle) return null;
    handle.scrollIntoView({block: "center", inline: "center"});
    const box = handle.getBoundingClientRect();
    return {x: box.left + box.width / 2, y: box.top + box.height / 2};
  },

  // Sideways scroll, and any figure card reaching past the viewport's right edge.
  overflow() {
    const root = document.documentElement;
    const cards = this.deepAll(document, ".posviz-figure-block").map((card) => card.getBoundingClientRect().right);
    return {scroll: root.scrollWidth, client: root.clientWidth, cards, width: innerWidth};
  },

  colours() {
    const heading = this.deepAll(document, "h1, h2, h3")[0];
    return {body: getComputedStyle(document.body).backgroundColor,
            heading: heading ? getComputedStyle(heading).color : null};
  },
})
