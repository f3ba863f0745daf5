// posviz serve --dev: the page follows every edit (compose/devloop.py says how).
// It polls the server's state.json. Its route's text digest changed: fetch the page
// again and swap in the new text around the live figures, which keep their state.
// Its code digest changed, or the route is gone: reload, keeping the scroll (the URL
// keeps the sliders' values). Content problems: an overlay names file and line.
(() => {
  const me = JSON.parse(document.getElementById("posviz-dev").textContent);
  const scrollKey = `posviz-dev-scroll:${location.pathname}`;
  const POLL_MS = 100;
  let busy = false;
  let stopped = false;

  const digestOf = (doc) => {
    const tag = doc.getElementById("posviz-dev");
    return tag ? JSON.parse(tag.textContent).digest : null;
  };

  // A page that reloads and is still behind, five times running, stops and says so
  // rather than reload for ever (a server whose digests disagree with the watcher's).
  const reloadsKey = `posviz-dev-reloads:${location.pathname}`;
  const reload = () => {
    const reloads = Number(sessionStorage.getItem(reloadsKey) || 0) + 1;
    if (reloads > 5) {
      overlay(["posviz serve --dev: this page stays behind the files after 5 reloads; reload it"]);
      sessionStorage.removeItem(reloadsKey);
      stopped = true;
      return;
    }
    sessionStorage.setItem(reloadsKey, String(reloads));
    sessionStorage.setItem(scrollKey, String(window.scrollY));
    location.reload();
  };

  // After a reload the figures are drawn late and the page grows: scroll back once it can.
  const restoreScroll = () => {
    const saved = sessionStorage.getItem(scrollKey);
    if (saved === null) return;
    sessionStorage.removeItem(scrollKey);
    const wanted = Number(saved);
    const until = Date.now() + 5000;
    const step = () => {
      window.scrollTo(0, wanted);
      if (Math.abs(window.scrollY - wanted) > 1 && Date.now() < until) {
        setTimeout(step, 50);
      }
    };
    step();
  };

  // A page the server could not build says why in its text; the overlay repeats it.
  const built = () => {
    const failure = document.querySelector(".posviz-build-error");
    return failure ? [failure.textContent.trim()] : [];
  };

  const overlay = (problems) => {
    let box = document.getElementById("posviz-dev-overlay");
    if (!problems.length) {
      if (box) box.remove();
      return;
    }
    if (!box) {
      box = document.createElement("div");
      box.id = "posviz-dev-overlay";
      box.setAttribute("role", "alert");
      box.style.cssText =
        "position:fixed;inset:auto 1rem 1rem 1rem;z-index:2147483647;max-height:60vh;" +
        "overflow:auto;background:#2b0d0d;color:#ffe9e9;border:2px solid #ff6b6b;" +
        "border-radius:8px;padding:1rem 1.25rem;font:14px/1.5 ui-monospace,monospace;" +
        "box-shadow:0 8px 32px rgba(0,0,0,.4)";
      document.body.append(box);
    }
    const title = document.createElement("strong");
    title.textContent = "posviz serve --dev: fix these and the page follows";
    const list = document.createElement("ul");
    list.style.margin = ".5rem 0 0";
    for (const problem of problems) {
      const item = document.createElement("li");
      item.textContent = problem;
      list.append(item);
    }
    box.replaceChildren(title, list);
  };

  // The new page's text, with this page's live islands and Panel roots moved into it.
  const swapText = async () => {
    const response = await fetch(location.href, { cache: "no-store" });
    if (!response.ok) return reload();
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const digest = digestOf(doc);
    const main = document.querySelector("main");
    const fresh = doc.querySelector("main");
    if (!digest || !fresh || !main || digest.code !== me.digest.code) return reload();
    const islands = new Map(
      [...main.querySelectorAll(".posviz-island[data-figure]")].map((el) => [
        el.dataset.figure,
        el,
      ]),
    );
    for (const island of fresh.querySelectorAll(".posviz-island[data-figure]")) {
      const live = islands.get(island.dataset.figure);
      if (!live) return reload(); // a figure the page did not have: only Python can draw it
      island.replaceWith(live);
    }
    const roots = [...main.querySelectorAll(".posviz-root")].filter(
      (el) => !el.closest(".posviz-island"),
    );
    const freshRoots = [...fresh.querySelectorAll(".posviz-root")].filter(
      (el) => !el.closest(".posviz-island"),
    );
    if (roots.length !== freshRoots.length) return reload();
    freshRoots.forEach((el, i) => {
      el.replaceWith(roots[i]);
    });
    const header = document.querySelector(".posviz-header");
    const freshHeader = doc.querySelector(".posviz-header");
    if (header && freshHeader) header.replaceWith(document.adoptNode(freshHeader));
    main.replaceWith(document.adoptNode(fresh));
    document.title = doc.title;
    me.digest = digest;
    document.body.dataset.posvizDevText = digest.text; // what tests and benchmarks wait on
  };

  const tick = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      const response = await fetch(me.state, { cache: "no-store" });
      if (!response.ok) return;
      const state = await response.json();
      overlay(state.problems.length ? state.problems : built());
      if (state.problems.length) return;
      const now = state.routes[me.route];
      if (!now) {
        if (me.digest) reload(); // the route went away: the server says so
        return;
      }
      if (!me.digest || now.code !== me.digest.code) return reload();
      if (now.text !== me.digest.text) await swapText();
      else sessionStorage.removeItem(reloadsKey); // caught up
    } catch {
      // The server is between answers (or the state is being written): ask again.
    } finally {
      busy = false;
    }
  };

  restoreScroll();
  setInterval(tick, POLL_MS);
})();
