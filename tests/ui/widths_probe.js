// The figure page's one island at the window's width: the room it keeps against
// the boxes drawn in it, every legend, label, title or control it clips, and every
// legend inside a plot area drawn over the data.
() => {
  const island = document.querySelector('.posviz-island');
  const box = (el) => el.getBoundingClientRect();
  const deep = (root, out = []) => {
    if (root.shadowRoot) deep(root.shadowRoot, out);
    for (const el of root.querySelectorAll('*')) {
      out.push(el);
      if (el.shadowRoot) deep(el.shadowRoot, out);
    }
    return out;
  };
  // Drawn to be seen: not hidden, and not text for screen readers alone (.posviz-sr).
  const shown = (el) => {
    const r = box(el);
    return r.width > 1 && r.height > 1 && getComputedStyle(el).visibility !== 'hidden'
      && !el.closest('.posviz-sr');
  };
  const named = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${
    (el.textContent || '').trim().slice(0, 30)}"`;
  const all = deep(island).filter(shown);
  // What is drawn: leaves (a canvas, a handle, a line of text) and elements holding text.
  const drawn = all.filter((el) => !el.shadowRoot && (!el.children.length
    || [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())));
  const outer = box(island);
  const LEGEND = '.bk-Legend, .bk-item, .bk-label, .bk-glyph';
  const clipped = [];
  const outside = (r, frame, slack = 0.5) => r.left < frame.left - slack
    || r.right > frame.right + slack || r.top < frame.top - slack || r.bottom > frame.bottom + slack;
  for (const el of drawn) {
    if (outside(box(el), outer)) clipped.push(`${named(el)} outside the island`);
  }
  // A plot's pane: what Bokeh draws in it as DOM (a legend and its entries) stays in its canvas.
  for (const pane of all.filter((el) => el.classList.contains('posviz-plot'))) {
    const canvas = deep(pane).find((el) => el.tagName === 'CANVAS' && shown(el));
    if (!canvas) continue;
    const frame = box(canvas);
    for (const el of deep(pane).filter(shown)) {
      if (el.matches(LEGEND) && outside(box(el), frame)) {
        clipped.push(`${named(el)} outside its plot`);
      }
    }
  }
  // Labels and controls whose text is cut in their own box.
  const texts = '.bk-slider-title, .bk-btn, label, .bk-input-group, .posviz-readout, .bk-label';
  for (const el of all.filter((each) => each.matches(texts))) {
    if (el.scrollWidth > el.clientWidth + 1) clipped.push(`${named(el)} cut: ${el.scrollWidth} > ${el.clientWidth}`);
  }
  // Titles are drawn on the canvas: their text must end inside it.
  const views = [];
  const walk = (view) => {
    views.push(view);
    for (const child of view.child_views || []) walk(child);
    for (const child of view.renderer_views ? view.renderer_views.values() : []) walk(child);
  };
  for (const view of Object.values(Bokeh.index)) walk(view);
  const measure = document.createElement('canvas').getContext('2d');
  for (const view of views.filter((v) => v.model.type === 'Title' && v.model.text)) {
    const plot = view.parent; // the page's one figure: every plot is in the island
    const {text_font_style: style, text_font_size: size, text_font: font} = view.model;
    measure.font = `${style} ${size} ${typeof font === 'string' ? font : font.value}`;
    const lines = view.model.text.split('\n').map((line) => measure.measureText(line).width);
    const end = view.layout.bbox.x0 + view.model.offset + Math.max(...lines);
    if (end > plot.canvas_view.bbox.width + 0.5) {
      clipped.push(`title "${view.model.text}" ends at ${Math.round(end)} of ${plot.canvas_view.bbox.width}`);
    }
  }
  // Text drawn on the canvas and clipped by it: a label glyph (hv.Labels) ends inside its
  // plot area, and an axis label inside the canvas (both canvas coordinates).
  const round = (n) => Math.round(n);
  for (const view of views.filter((v) => v.model.type === 'GlyphRenderer' && v.model.visible
    && v.glyph?.model.type === 'Text')) {
    const {glyph} = view;
    const area = view.parent.frame.bbox;
    for (let i = 0; i < glyph.sx.length; i++) {
      const text = glyph.labels?.[i]?.text;
      if (!text?.trim() || !Number.isFinite(glyph.sx[i])) continue;
      const {x, y} = glyph.anchor_.get(i);
      const x0 = glyph.sx[i] + glyph.x_offset.get(i) - x * glyph.swidth[i];
      const y0 = glyph.sy[i] + glyph.y_offset.get(i) - y * glyph.sheight[i];
      if (outside({left: x0, right: x0 + glyph.swidth[i], top: y0, bottom: y0 + glyph.sheight[i]},
        {left: area.x0, right: area.x1, top: area.y0, bottom: area.y1})) {
        clipped.push(`label "${text.trim()}" of "${view.parent.model.title?.text}" spans x ${round(x0)}`
          + `–${round(x0 + glyph.swidth[i])}, its plot area ${round(area.x0)}–${round(area.x1)}`);
      }
    }
  }
  for (const axis of views.filter((v) => v.model.type.endsWith('Axis') && v.model.axis_label)) {
    const {side} = axis.panel;
    if (side !== 'below' && side !== 'above') continue; // a side axis's label is turned: its room is Bokeh's
    measure.font = axis.visuals.axis_label_text.font_value();
    const width = measure.measureText(axis.model.axis_label).width;
    const centre = axis.bbox.hcenter;
    const canvas = axis.parent.canvas_view.bbox.width;
    if (axis.model.axis_label_align === 'center' && (centre - width / 2 < -0.5 || centre + width / 2 > canvas + 0.5)) {
      clipped.push(`axis label "${axis.model.axis_label}" spans x ${round(centre - width / 2)}–`
        + `${round(centre + width / 2)} of ${canvas}`);
    }
  }
  // A legend shown inside a plot area covers none of the data it names: no vertex of a
  // line and no centre of a mark lies under its box (canvas coordinates, both).
  const hidden = (view) => getComputedStyle(view.el).display === 'none';
  for (const legend of views.filter((v) => v.model.type === 'Legend' && v.panel == null)) {
    if (hidden(legend)) continue;
    const b = legend.bbox;
    for (const renderer of legend.parent.renderer_views.values()) {
      const {sx, sy} = renderer.glyph || {};
      if (renderer.model.type !== 'GlyphRenderer' || !renderer.model.visible || !sx || !sy) continue;
      let under = 0;
      for (let i = 0; i < sx.length; i++) {
        if (sx[i] >= b.x0 && sx[i] <= b.x1 && sy[i] >= b.y0 && sy[i] <= b.y1) under += 1;
      }
      if (under) {
        clipped.push(`legend of "${legend.parent.model.title?.text}" covers ${under} of ${sx.length}`
          + ` points of ${renderer.model.name || renderer.model.glyph.type}`);
      }
    }
  }
  // A plot with a legend shows it at every width: inside its area, beside it, or as its key.
  for (const plot of views.filter((v) => v.model.type === 'Figure' || v.model.type === 'Plot')) {
    const legends = views.filter((v) => v.model.type === 'Legend' && v.parent === plot
      && v.model.items.length);
    if (legends.length && legends.every(hidden)) {
      clipped.push(`plot "${plot.model.title?.text}" shows none of its ${legends.length} legends`);
    }
  }
  const bottom = Math.max(...drawn.map((el) => box(el).bottom));
  return {
    figure: Number(island.dataset.figure),
    island: outer.height,
    blank: outer.bottom - bottom,
    drawnHeight: bottom - outer.top,
    clipped,
  };
}
