// posviz in MyST's theme: the widget module (an anywidget `render`) that the
// `posviz-figure` directive's node names. It draws the figure's iframe and
// sizes it to the content height the figure's page reports, as posviz/embed.js
// does for Sphinx and MkDocs: only messages from its own iframe's window, and
// from the origin its src points at, are heard.
const MAX_HEIGHT = __MAX_HEIGHT__;
// MyST's html export puts this module in build/, one folder below the site's root
// (BASE_URL included): the model's `site` is a folder of that root, or a full URL.
const ROOT = new URL("../", import.meta.url);

function render({model, el}) {
  const src = new URL(model.get("path"), new URL(model.get("site"), ROOT));
  const least = model.get("height");
  const frame = document.createElement("iframe");
  frame.src = src.href;
  frame.title = model.get("title");
  frame.loading = "lazy";
  frame.dataset.posvizEmbed = "";
  frame.dataset.posvizMinHeight = String(least);
  Object.assign(frame.style, {width: "100%", height: `${least}px`, border: "0", display: "block"});
  const link = document.createElement("a");
  link.href = src.href;
  link.textContent = "Open this figure on its own page";
  const caption = document.createElement("figcaption");
  caption.append(model.get("caption") ? `${model.get("caption")} ` : "", link);
  const figure = document.createElement("figure");
  // As wide as the column, whatever the theme says of figures (Material: fit-content).
  Object.assign(figure.style, {margin: "0", width: "100%"});
  figure.append(frame, caption);
  const heard = (event) => {
    const data = event.data;
    if (event.source !== frame.contentWindow || event.origin !== src.origin) return;
    if (data?.posviz !== "height" || !Number.isFinite(data.height)) return;
    const height = Math.max(least, Math.min(Math.ceil(data.height), MAX_HEIGHT));
    frame.style.height = `${height}px`;
    frame.dataset.posvizHeight = String(height);
  };
  window.addEventListener("message", heard);
  el.append(figure);
  return () => window.removeEventListener("message", heard);
}

export default {render};
