// When the worker may build a page's figures left for later (export/fill_gate.js).
import test from "node:test";
import assert from "node:assert/strict";
import * as FillGate from "../../src/posviz/export/fill_gate.js";

const page = (hidden = false, awaiting = false) => ({hidden, awaiting});

test("a page on screen fills when no other page on screen waits for its document", () => {
  const me = page();
  assert.equal(FillGate.mayFill(me, [me]), true);
  assert.equal(FillGate.mayFill(me, [me, page(false, false)]), true); // the other is live
  assert.equal(FillGate.mayFill(me, [me, page(true, true)]), true); // the other waits, hidden
});

test("a hidden page waits, and so does one while another page on screen waits", () => {
  const me = page();
  assert.equal(FillGate.mayFill(page(true), [me]), false);
  assert.equal(FillGate.mayFill(me, [me, page(false, true)]), false);
  // its own wait for a document (a re-render, say) does not hold it back
  const awaiting = page(false, true);
  assert.equal(FillGate.mayFill(awaiting, [awaiting]), true);
});

test("a reader's pointer on a figure's controls holds every page's fills, while on screen", () => {
  const me = page();
  const holding = {...page(), holding: true};
  assert.equal(FillGate.mayFill(me, [me, holding]), false); // the reader is on another page
  me.holding = true;
  assert.equal(FillGate.mayFill(me, [me]), false); // ... or on this one
  me.holding = false;
  assert.equal(FillGate.mayFill(me, [me, {...holding, hidden: true}]), true); // a hidden one lets go
  holding.holding = false;
  assert.equal(FillGate.mayFill(me, [me, holding]), true);
});

test("mayFill reads the pages as they are when asked, from any iterable", () => {
  const me = page();
  const other = page(false, true);
  const open = new Map([[1, me], [2, other]]);
  assert.equal(FillGate.mayFill(me, open.values()), false);
  other.awaiting = false;
  assert.equal(FillGate.mayFill(me, open.values()), true);
  open.set(3, page(false, true));
  assert.equal(FillGate.mayFill(me, open.values()), false);
});

test("wake settles every promise waiting then, and none made after it", async () => {
  const gate = FillGate.waker();
  const settled = [];
  const first = gate.changed().then(() => settled.push("first"));
  const second = gate.changed().then(() => settled.push("second"));
  assert.equal(gate.waiting(), 2);
  gate.wake();
  await Promise.all([first, second]);
  assert.deepEqual(settled, ["first", "second"]);
  assert.equal(gate.waiting(), 0);
  let later = false;
  void gate.changed().then(() => { later = true; });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(later, false); // woken only by the next change
  gate.wake();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(later, true);
});

test("a fill loop as worker.js runs it pauses while hidden and resumes when shown", async () => {
  const gate = FillGate.waker();
  const me = page(true);
  const open = [me];
  const steps = [];
  const loop = (async () => {
    for (let left = 2; left > 0; left -= 1) {
      while (!FillGate.mayFill(me, open)) await gate.changed();
      steps.push(left);
    }
  })();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(steps, []); // hidden: nothing built
  gate.wake(); // a wake with nothing changed: still nothing
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(steps, []);
  me.hidden = false;
  gate.wake();
  await loop;
  assert.deepEqual(steps, [2, 1]);
});
