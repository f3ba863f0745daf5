// posviz.sphinx and posviz.mkdocs: size each embedded figure to the content
// height it reports. Only messages from that iframe's own window, and from the
// origin its src points at, are heard.
(() => {
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (data?.posviz !== "height" || !Number.isFinite(data.height)) return;
    for (const frame of document.querySelectorAll("iframe[data-posviz-embed]")) {
      if (frame.contentWindow !== event.source) continue;
      if (new URL(frame.src, window.location.href).origin !== event.origin) return;
      const least = parseInt(frame.dataset.posvizMinHeight || "0", 10);
      const height = Math.max(least, Math.min(Math.ceil(data.height), __MAX_HEIGHT__));
      frame.style.height = `${height}px`;
      frame.dataset.posvizHeight = String(height);
      return;
    }
  });
})();
