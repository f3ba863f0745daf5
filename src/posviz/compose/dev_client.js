// posviz serve --dev: the page follows every edit (compose/devloop.py says how).
// It polls the server's state.json. Its route's text digest changed: fetch the page's
// text alone and swap it in around the live figures, which keep their state. Its code
// digest changed: the text likewise, then the figures from a new server session drawn
// in place, at the URL's slider values. A page whose figures changed in number, or
// whose route went away, reloads, keeping its scroll. Content problems: an overlay.
(() => {
  const me = JSON.parse(document.getElementById("posviz-dev").textContent);
  const scrollKey = `posviz-dev-scroll:${location.pathname}`;
  const POLL_MS = 50;
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

  // The page again, whole or one half of it ("text": its figures undrawn; "figures": no text).
  const fetchPage = async (only) => {
    const headers = only ? { "X-Posviz-Dev": only } : {};
    const response = await fetch(location.href, { cache: "no-store", headers });
    if (!response.ok) throw new Error(`${location.href} answered ${response.status}`);
    return new DOMParser().parseFromString(await response.text(), "text/html");
  };

  const outside = (root) => [...root.querySelectorAll(".posviz-root")].filter(
    (el) => !el.closest(".posviz-island"),
  );
  const islandsOf = (root) => new Map(
    [...root.querySelectorAll(".posviz-island[data-figure]")].map((el) => [el.dataset.figure, el]),
  );
  const sameFigures = (a, b) => {
    const x = [...islandsOf(a).keys()].join();
    return x === [...islandsOf(b).keys()].join() && outside(a).length === outside(b).length;
  };

  // The page's text, fetched alone (its figures undrawn), swapped in around the live
  // islands and Panel roots, which keep their state. False: the page must reload.
  const swapText = async () => {
    const doc = await fetchPage("text");
    const digest = digestOf(doc);
    const main = document.querySelector("main");
    const fresh = doc.querySelector("main");
    if (!digest || !fresh || !main || !sameFigures(main, fresh)) return false;
    const islands = islandsOf(main);
    for (const island of fresh.querySelectorAll(".posviz-island[data-figure]")) {
      island.replaceWith(islands.get(island.dataset.figure));
    }
    const roots = outside(main);
    outside(fresh).forEach((el, i) => {
      el.replaceWith(roots[i]);
    });
    const header = document.querySelector(".posviz-header");
    const freshHeader = doc.querySelector(".posviz-header");
    if (header && freshHeader) header.replaceWith(document.adoptNode(freshHeader));
    main.replaceWith(document.adoptNode(fresh));
    document.title = doc.title;
    me.digest = { ...me.digest, text: digest.text, view: digest.view };
    document.body.dataset.posvizDevText = digest.text; // what tests and benchmarks wait on
    return true;
  };

  // New code: the page's figures from a new server session, drawn where the old ones
  // were, with no reload (BokehJS and Panel stay parsed). False: reload.
  const swapFigures = async () => {
    const doc = await fetchPage("figures");
    const digest = digestOf(doc);
    const main = document.querySelector("main");
    const fresh = doc.querySelector("main");
    const embed = [...doc.querySelectorAll("script")].find((s) =>
      s.textContent.includes("embed_items("),
    );
    const json = embed?.textContent.match(/getElementById\('([^']+)'\)/);
    const data = json && doc.getElementById(json[1]);
    if (!digest || !fresh || !main || !data || !sameFigures(main, fresh)) return false;
    const old = window.Bokeh && Bokeh.documents ? [...Bokeh.documents] : [];
    for (const view of (window.Bokeh && Bokeh.index?.roots) || []) {
      if (old.includes(view.model.document)) view.remove();
    }
    const islands = islandsOf(fresh);
    for (const [id, island] of islandsOf(main)) {
      island.replaceChildren(...[...islands.get(id).childNodes].map((n) => document.adoptNode(n)));
    }
    const roots = outside(fresh);
    outside(main).forEach((el, i) => {
      el.replaceWith(document.adoptNode(roots[i]));
    });
    for (const el of document.querySelectorAll("body > div[data-root-id]")) el.remove();
    for (const el of doc.querySelectorAll("body > div[data-root-id]")) {
      document.body.append(document.adoptNode(el));
    }
    for (const source of [data, embed]) {
      const script = document.createElement("script");
      if (source.id) script.id = source.id;
      if (source.type) script.type = source.type;
      script.textContent = source.textContent;
      document.body.append(script);
    }
    me.digest = { ...me.digest, code: digest.code };
    document.body.dataset.posvizDevCode = digest.code; // what tests and benchmarks wait on
    return true;
  };

  // A stylesheet of the site's own, fetched again (its link in <head> is not swapped).
  let styled = me.digest ? me.digest.code : null; // the code the stylesheets were fetched at
  const restyle = (digest) => {
    styled = digest.code;
    for (const link of document.querySelectorAll('link[rel="stylesheet"][href*="posviz-static/"]')) {
      const url = new URL(link.href);
      url.searchParams.set("posviz-dev", digest.code.slice(0, 12));
      link.href = url.href;
    }
  };

  // What the page does for the watcher's state; a failed swap reloads the page.
  const follow = async (state) => {
    const now = state.routes[me.route];
    const gone = now ? [] : [`there is no page at /${me.route}: its file left the content`];
    overlay(state.problems.length ? state.problems : [...gone, ...built()]);
    if (state.problems.length || !now) return;
    if (!me.digest) return reload();
    // Each half of the page tracks the digest it was drawn from: the text (content,
    // and the code that shapes text: "view"), and the figures (all code). A half that
    // is behind is swapped; one that moved again meanwhile is caught by the next poll.
    const textBehind = now.text !== me.digest.text || now.view !== me.digest.view;
    const figuresBehind = now.code !== me.digest.code;
    try {
      if (now.code !== styled) restyle(now); // tracked apart: the figures may catch up first
      // The text first: a caption or a sentence shows before the figures are drawn.
      if (textBehind && !(await swapText())) return reload();
      if (figuresBehind && !(await swapFigures())) return reload();
      if (!textBehind && !figuresBehind) sessionStorage.removeItem(reloadsKey); // caught up
    } catch (error) {
      console.error("posviz serve --dev: could not swap the page in place:", error);
      reload();
    }
  };

  const tick = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      let state;
      try {
        const response = await fetch(me.state, { cache: "no-store" });
        state = response.ok ? await response.json() : null;
      } catch {
        state = null; // the server is between answers: ask again
      }
      if (state) await follow(state);
    } finally {
      busy = false;
    }
  };

  restoreScroll();
  setInterval(tick, POLL_MS);
})();
