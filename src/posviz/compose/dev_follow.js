// posviz serve --dev, on a page whose code did not load (compose/devloop.py, broken_page):
// it has no page script, so it polls the watcher's state and reloads once that changes.
(() => {
  const url = __STATE__;
  let first = null;
  const poll = async () => {
    try {
      const text = await (await fetch(url, { cache: "no-store" })).text();
      if (first === null) first = text;
      else if (text !== first) return location.reload();
    } catch {
      // the server is between answers: ask again
    }
    setTimeout(poll, 200);
  };
  poll();
})();
