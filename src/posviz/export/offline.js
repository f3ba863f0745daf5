// posviz: offline reading. Registers the site's service worker (posviz-sw.js,
// scope: the site's folder), asks it to keep this page and the files it used,
// and shows the "Save for offline reading" control: the whole site into the
// cache, its size before and its progress during, and "Remove offline copy".
// The state is the service worker's cache, so it survives reloads. Nothing
// happens on a page opened as a file (no service worker there) or in a browser
// without service workers; embedded pages (frames) keep files but show no control.
// <html data-posviz-offline> says where it stands (tests wait on it):
// "starting", "none", "visited", "saving", "saved", "removed", "failed" or "unsupported".
(() => {
  const root = document.documentElement;
  const CSS = __CSS__;
  const mark = (value) => { root.dataset.posvizOffline = value; };
  const container = navigator.serviceWorker;
  if (location.protocol === "file:" || !container || !window.isSecureContext) {
    mark("unsupported");
    return;
  }
  mark("starting");
  const size = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1e3))} KB`);
  let control = null; // the control's elements, once the page has a body to hold them
  let last = null; // the service worker's last state
  let failure = "";

  function build() {
    if (window.top !== window) return null; // an embedded figure: its host page has the say
    const style = document.createElement("style");
    style.textContent = CSS;
    document.head.appendChild(style);
    const box = document.createElement("section");
    box.className = "posviz-offline";
    box.setAttribute("aria-label", "Offline reading");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "posviz-offline-button";
    const progress = document.createElement("progress");
    progress.hidden = true;
    progress.setAttribute("aria-label", "Saved so far");
    const status = document.createElement("span");
    status.className = "posviz-offline-status";
    status.id = "posviz-offline-status";
    status.setAttribute("role", "status");
    button.setAttribute("aria-describedby", status.id);
    button.addEventListener("click", act);
    box.append(button, progress, status);
    (document.querySelector(".posviz-shell") || document.body).appendChild(box);
    return {box, button, progress, status};
  }

  function show() {
    if (!last) return;
    const {kept, total, saving, declined} = last;
    const state = saving ? "saving" : kept >= total ? "saved" : failure ? "failed"
      : kept ? "visited" : declined ? "removed" : "none";
    mark(state);
    if (!control) return;
    const {button, progress, status} = control;
    control.box.dataset.state = state;
    progress.hidden = state !== "saving";
    button.disabled = state === "saving";
    if (state === "saving") {
      button.textContent = "Saving for offline reading…";
      progress.max = total;
      progress.value = kept;
      status.textContent = `${size(kept)} of ${size(total)}`;
    } else if (state === "saved") {
      button.textContent = "Remove offline copy";
      status.textContent = `Saved for offline reading (${size(total)}): every page opens without a network.`;
    } else {
      button.textContent = `Save for offline reading (${size(total)})`;
      status.textContent = failure ? `Could not save: ${failure}`
        : kept ? `${size(kept)} kept from the pages you opened.`
        : declined ? "Offline copy removed: pages you open are not kept until you save again." : "";
    }
  }

  function act() {
    if (!last) return;
    failure = "";
    post({type: last.kept >= last.total ? "remove" : "save"});
    if (last.kept < last.total) {
      last = {...last, saving: true};
      show();
      // Ask the browser not to evict the copy; it may say no, and the copy stays anyway.
      if (navigator.storage?.persist) navigator.storage.persist().catch(() => {});
    }
  }

  let worker = null; // the active service worker
  const post = (message) => worker?.postMessage(message);

  let newest = {instance: null, seq: 0}; // the newest message shown (sw.js numbers them)
  container.addEventListener("message", (event) => {
    const message = event.data || {};
    if (message.instance === newest.instance && message.seq < newest.seq) return; // overtaken
    if (message.instance) newest = {instance: message.instance, seq: message.seq};
    if (message.type === "state") {
      last = message;
      window.posvizOffline = message;
    } else if (message.type === "progress" && last && !failure) { // a failed save's stragglers: dropped
      last = {...last, kept: message.done, total: message.total, saving: true};
    } else if (message.type === "failed") {
      failure = message.msg;
      return;
    } else {
      return;
    }
    if (!control && document.body) control = build();
    show();
  });
  container.startMessages();

  // This page, the files it loaded, and its figures' frames (fetched lazily, maybe not yet).
  function mine() {
    const paths = [location.href, ...performance.getEntriesByType("resource").map((entry) => entry.name)];
    const frames = document.getElementById("posviz-frames");
    if (frames) {
      try {
        for (const files of Object.values(JSON.parse(frames.textContent).figures)) {
          for (const kind of ["json", "bin"]) if (files[kind]) paths.push(new URL(files[kind].path, location.href).href);
        }
      } catch { /* the frames say why elsewhere */ }
    }
    return paths;
  }

  // The runtime's files are kept once Python is up, as far as it got: the numpy
  // tier's, and Panel's once a page needed them (loader.js). Only what the runtime
  // fetched (window.posvizRuntime.fetched), which is in the browser's HTTP cache
  // by then: the copy costs the link nothing, and fetches no Panel a reader never used.
  function whenUp(then) {
    const up = () => ["numpy", "live"].includes(document.body?.dataset.posviz);
    if (!window.posvizWorker) return;
    let kept = "";
    const keep = () => {
      const state = document.body.dataset.posviz;
      if (up() && state !== kept) {
        kept = state;
        then();
      }
    };
    keep();
    new MutationObserver(keep).observe(document.body, {attributes: true, attributeFilter: ["data-posviz"]});
  }

  // The runtime's files as URLs: each path is the worker's, relative to the site.
  const fetched = () => ((window.posvizRuntime?.fetched) || [])
    .map((path) => new URL(path, document.baseURI).href);

  const loaded = new Promise((resolve) => {
    if (document.readyState === "complete") resolve();
    else window.addEventListener("load", resolve, {once: true});
  });
  container.register("posviz-sw.js", {scope: "./"})
    .then(() => container.ready)
    .then(async (registration) => {
      worker = registration.active;
      await loaded;
      post({type: "keep", paths: mine()});
      whenUp(() => post({type: "keep", paths: [...mine(), ...fetched()]}));
    })
    .catch((error) => {
      // A frame whose storage the browser blocks, a host that refuses the
      // script: the page reads as before, without an offline copy.
      mark("unsupported");
      console.warn("posviz: no offline copy:", (error?.message) || error);
    });
  // A rebuilt site's new worker took over: the next message says its state.
  container.addEventListener("controllerchange", () => {
    worker = container.controller;
    post({type: "state"});
  });
})();
