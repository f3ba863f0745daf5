// posviz.sphinx and posviz.mkdocs: size each embedded figure to the content
// height it reports. Only messages from that iframe's own window, and from the
// origin its src points at, are heard.
(function () {
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.posviz !== "height" || !Number.isFinite(data.height)) return;
    var frames = document.querySelectorAll("iframe[data-posviz-embed]");
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.contentWindow !== event.source) continue;
      if (new URL(frame.src, window.location.href).origin !== event.origin) return;
      var least = parseInt(frame.dataset.posvizMinHeight || "0", 10);
      var height = Math.max(least, Math.min(Math.ceil(data.height), MAX_HEIGHT));
      frame.style.height = height + "px";
      frame.dataset.posvizHeight = String(height);
      return;
    }
  });
})();
