// The URL gate (compose/url_gate.js) on a stand-in window: a history that refuses
// as WebKit does (a SecurityError past 100 writes in 10 s), and a clock whose
// timers run only when the test moves time on.
import test from "node:test";
import assert from "node:assert/strict";
import * as Gate from "../../src/posviz/compose/url_gate.js";

function clock() {
  const made = {time: 0, timers: new Map(), next: 1};
  made.now = () => made.time;
  made.later = (run, ms) => {
    made.timers.set(made.next, {run, at: made.time + ms});
    return made.next++;
  };
  made.cancel = (id) => made.timers.delete(id);
  // Move time on to `until`, running each timer that falls due, in order.
  made.advance = (ms) => {
    const until = made.time + ms;
    for (;;) {
      const due = [...made.timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      made.timers.delete(due[0]);
      made.time = due[1].at;
      due[1].run();
    }
    made.time = until;
  };
  return made;
}

// A window whose history keeps every entry, refusing past `limit` writes per 10 s.
function browser(time, limit = 100) {
  const listeners = {};
  const win = {
    location: new URL("http://127.0.0.1:8000/figure-710.html"),
    console: {warned: [], warn: (text) => win.console.warned.push(text)},
    addEventListener: (name, run) => { listeners[name] = run; },
    fire: (name) => listeners[name](),
  };
  const stamps = [];
  const entries = [win.location.href];
  function write(kind) {
    return (_state, _unused, url) => {
      const recent = stamps.filter((at) => at > time.now() - 10000);
      if (recent.length >= limit) {
        const error = new Error(`Attempt to use history.${kind}() more than ${limit} times per 10 seconds`);
        error.name = "SecurityError";
        throw error;
      }
      stamps.push(time.now());
      win.location = new URL(String(url), win.location.href);
      if (kind === "pushState") entries.push(win.location.href);
      else entries[entries.length - 1] = win.location.href;
    };
  }
  win.history = {pushState: write("pushState"), replaceState: write("replaceState"), entries, stamps};
  return win;
}

// A drag as Panel's Location makes it: one pushState per value, every 16 ms.
function drag(win, time, values) {
  for (const value of values) {
    win.history.pushState({}, "", `/figure-710.html?pos=${value}`);
    time.advance(16);
  }
}

test("a drag of 300 values in 5 s lands a few writes, the last value last, in one history entry", () => {
  const time = clock();
  const win = browser(time);
  const gate = Gate.guard(win, time);
  const values = Array.from({length: 300}, (_, n) => n % 101);
  drag(win, time, values);
  time.advance(Gate.GAP);
  assert.equal(win.location.search, `?pos=${values.at(-1)}`);
  assert.equal(gate.refused, 0);
  assert.ok(gate.writes >= 2 && gate.writes <= Math.ceil((300 * 16) / Gate.GAP) + 1, gate.writes);
  assert.equal(win.history.entries.length, 1, "a pushed query replaces the entry");
  // The writes the browser saw are GAP apart, or more.
  const gaps = win.history.stamps.slice(1).map((at, n) => at - win.history.stamps[n]);
  assert.ok(gaps.every((gap) => gap >= Gate.GAP), gaps);
});

test("unguarded, the same drag is refused by the stand-in, as WebKit refuses it", () => {
  const time = clock();
  const win = browser(time);
  assert.throws(() => drag(win, time, Array.from({length: 300}, (_, n) => n % 101)), /SecurityError|100 times/);
});

test("a single write lands at once, so a reader of location sees it", () => {
  const time = clock();
  const win = browser(time);
  Gate.guard(win, time);
  win.history.replaceState(null, "", "?pos=30");
  assert.equal(win.location.search, "?pos=30");
});

test("a refused write is tried again and the latest value wins; it never throws", () => {
  const time = clock();
  const win = browser(time, 2); // a browser that allows only two writes in 10 s
  const gate = Gate.guard(win, time);
  for (let n = 0; n < 20; n++) {
    assert.doesNotThrow(() => win.history.replaceState(null, "", `?n=${n}`));
    time.advance(300);
  }
  assert.ok(gate.refused >= 1, gate);
  assert.match(win.console.warned[0], /refused a URL write/);
  assert.notEqual(win.location.search, "?n=19"); // still held back by the limit
  assert.equal(gate.waiting(), "?n=19");
  time.advance(10000 + Gate.RETRY);
  assert.equal(win.location.search, "?n=19");
  assert.equal(gate.waiting(), null);
});

test("a retry that was pending never overwrites a later write", () => {
  const time = clock();
  const win = browser(time, 1);
  Gate.guard(win, time);
  win.history.replaceState(null, "", "?n=1");
  time.advance(300);
  win.history.replaceState(null, "", "?n=2"); // refused: retried later
  time.advance(300);
  win.history.replaceState(null, "", "?n=3"); // waits for the same turn
  time.advance(20000);
  assert.equal(win.location.search, "?n=3");
});

test("what waits is written when the page is hidden", () => {
  const time = clock();
  const win = browser(time);
  Gate.guard(win, time);
  win.history.replaceState(null, "", "?pos=1");
  win.history.replaceState(null, "", "?pos=2");
  assert.equal(win.location.search, "?pos=1");
  win.fire("pagehide");
  assert.equal(win.location.search, "?pos=2");
  time.advance(1000);
  assert.equal(win.history.stamps.length, 2, "and not written twice");
});

test("a write to another document passes straight through, pushed", () => {
  const time = clock();
  const win = browser(time);
  const gate = Gate.guard(win, time);
  win.history.pushState({}, "", "/topic-positional-encoding.html");
  assert.equal(win.location.pathname, "/topic-positional-encoding.html");
  assert.equal(win.history.entries.length, 2);
  assert.equal(gate.writes, 0);
});

test("guarding twice keeps one gate", () => {
  const time = clock();
  const win = browser(time);
  const gate = Gate.guard(win, time);
  const push = win.history.pushState;
  assert.equal(Gate.guard(win, time), gate);
  assert.equal(win.history.pushState, push);
});
