// posviz: the search box of a built page, on the Pagefind index the build writes
// (export/search.py). The box is hidden in the HTML, so that a page read without
// JavaScript shows no control that cannot work; this script shows it. Results
// are links to pages and to their sections, announced by a polite status line.
(() => {
  const form = document.querySelector("form.posviz-search");
  if (!form) return;
  const input = form.querySelector("input[type=search]");
  const status = form.querySelector(".posviz-search-status");
  const list = form.querySelector(".posviz-search-results");
  const MAX_PAGES = 8;
  const MAX_SECTIONS = 3;
  let pagefind = null;
  let asked = 0; // the newest query; answers to older ones are dropped

  // Relative to this script (posviz-static/), so the site works under any folder.
  const bundle = new URL("../pagefind/pagefind.js", document.currentScript.src).href;

  const load = () => {
    pagefind ??= import(bundle).then(async (module) => {
      await module.options({ excerptLength: 18 });
      await module.init();
      return module;
    }).catch((error) => {
      pagefind = null; // the next query tries again
      throw error;
    });
    return pagefind;
  };

  // Pagefind's URLs start at the site's root ("/page-x.html#section-3"); every page
  // of the site sits in that one folder, so the link is the same path, relative.
  const relative = (url) => url.replace(/^\/+/, "");

  const excerpt = (html) => {
    // Pagefind's excerpts are its own escaped text with <mark> around the hits.
    const p = document.createElement("p");
    p.className = "posviz-search-excerpt";
    p.innerHTML = html;
    return p;
  };

  const item = (data) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = relative(data.url);
    a.textContent = data.meta.title || data.url;
    li.append(a);
    const sections = (data.sub_results || []).filter((s) => s.url !== data.url);
    if (sections.length) {
      const ul = document.createElement("ul");
      for (const section of sections.slice(0, MAX_SECTIONS)) {
        const sli = document.createElement("li");
        const sa = document.createElement("a");
        sa.href = relative(section.url);
        sa.textContent = section.title;
        sli.append(sa, excerpt(section.excerpt));
        ul.append(sli);
      }
      li.append(ul);
    } else {
      li.append(excerpt(data.excerpt));
    }
    return li;
  };

  // Pagefind answers a word it does not hold with the longest prefix it does
  // ("quixotic" finds "q"; Pagefind issues 599 and 1246). A page counts only when
  // a word it marks starts with the query word, or shares at least half of it.
  const shared = (a, b) => {
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n += 1;
    return n;
  };
  const marked = (html) => {
    const holder = document.createElement("template");
    holder.innerHTML = html || "";
    return [...holder.content.querySelectorAll("mark")].map((m) => m.textContent.toLowerCase());
  };
  const relevant = (data, terms) => {
    const hits = [data.excerpt, ...(data.sub_results || []).map((s) => s.excerpt)].flatMap(marked);
    return hits.some((word) =>
      terms.some((t) => {
        const n = shared(t, word);
        return n === t.length || n >= Math.max(3, Math.ceil(t.length / 2));
      }),
    );
  };

  const show = async (term) => {
    const mine = ++asked;
    const terms = term.toLowerCase().split(/\s+/).filter(Boolean);
    if (!terms.length) {
      list.replaceChildren();
      status.textContent = "";
      form.dataset.state = "idle";
      return;
    }
    form.dataset.state = "searching";
    let found;
    try {
      found = await (await load()).search(term);
    } catch (error) {
      console.error("posviz: search could not load its index:", error);
      if (mine !== asked) return;
      form.dataset.state = "failed";
      status.textContent =
        location.protocol === "file:"
          ? "Search works when the site is served over HTTP; a page opened as a file cannot load the index."
          : "Search could not load its index.";
      return;
    }
    // Best first: fetch the pages' fragments a few at a time until enough are kept.
    const kept = [];
    let read = 0;
    while (kept.length < MAX_PAGES && read < found.results.length) {
      const batch = found.results.slice(read, read + MAX_PAGES);
      read += batch.length;
      for (const data of await Promise.all(batch.map((r) => r.data()))) {
        if (relevant(data, terms) && kept.length < MAX_PAGES) kept.push(data);
      }
      if (mine !== asked) return;
    }
    list.replaceChildren(...kept.map(item));
    const more = read < found.results.length;
    const pages = (n) => `${n} ${n === 1 ? "page" : "pages"}`;
    status.textContent = !kept.length
      ? `Nothing found for “${term.trim()}”.`
      : more
        ? `${pages(kept.length)} found, the best of up to ${found.results.length}`
        : `${pages(kept.length)} found`;
    form.dataset.state = "done";
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    show(input.value);
  });
  input.addEventListener("input", () => show(input.value));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && input.value) {
      input.value = "";
      show("");
    }
  });
  input.addEventListener("focus", () => load().catch(() => {}), { once: true });
  form.hidden = false;
})();
