// The plots' canvases whose border, seen over the page's paper, is not the paper colour.
// For each plot canvas (the primary layer, in the page's shadow roots), four pixels:
// at its middle height, the first column and one 3 px inside it; at its middle width,
// the first row and one 3 px below it. All lie in the plot's border, which the theme
// fills with its paper colour; a pixel differing from the paper by more than 6 in a
// channel, once composited over it, is reported. Returns
// {canvases, painted, wrong}: how many canvases were read, how many have the paper
// inside their border (painted in this theme), and the wrong ones' pixels.
(paper) => {
  const ground = [1, 3, 5].map((i) => parseInt(paper.slice(i, i + 2), 16));
  const over = ([r, g, b, a]) => [r, g, b].map((c, i) => Math.round((c * a + ground[i] * (255 - a)) / 255));
  const layers = [];
  const walk = (root) => {
    for (const element of root.querySelectorAll('*')) {
      if (element.shadowRoot) walk(element.shadowRoot);
    }
    if (root.host?.classList.contains('bk-Canvas')) {
      const first = root.querySelector('canvas.bk-layer');
      if (first && first.width > 0 && first.height > 0) layers.push(first);
    }
  };
  walk(document);
  const apart = (rgb) => Math.max(...rgb.map((c, i) => Math.abs(c - ground[i])));
  const wrong = [];
  let painted = 0;
  layers.forEach((canvas, index) => {
    const ctx = canvas.getContext('2d');
    const x = Math.floor(canvas.width / 2), y = Math.floor(canvas.height / 2);
    const at = (px, py) => over(ctx.getImageData(px, py, 1, 1).data);
    const seen = {left: at(0, y), inside: at(3, y), top: at(x, 0), below: at(x, 3)};
    if (apart(seen.inside) <= 6) painted += 1;
    if (Math.max(...Object.values(seen).map(apart)) > 6) wrong.push({canvas: index, ...seen});
  });
  return {canvases: layers.length, painted, wrong};
}
