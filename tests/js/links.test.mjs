// The browser's deep-link grammar (export/links.js) against the vectors that
// posviz/deeplinks.py passes too (tests/test_link_vectors.py runs this file).
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import * as Links from "../../src/posviz/export/links.js";
import {fileURLToPath} from "node:url";
const HERE = path.dirname(fileURLToPath(import.meta.url));

const VECTORS = JSON.parse(fs.readFileSync(path.join(HERE, "..", "data", "link_vectors.json"), "utf-8"));
const asJson = (values) => JSON.parse(JSON.stringify(values));

for (const vector of VECTORS.read) {
  test(`read: ${vector.why}`, () => {
    const found = Links.read(vector.search, VECTORS.pages[vector.page]);
    assert.deepEqual(asJson(found.values), vector.values);
    if (vector.problems) {
      assert.deepEqual(found.problems, vector.problems);
    } else {
      assert.deepEqual(found.problems.slice(0, vector.problems_start.length), vector.problems_start);
      assert.equal(found.problems.length, vector.problems_count);
    }
  });
}

for (const vector of VECTORS.write) {
  test(`write: ${vector.why}`, () => {
    const page = VECTORS.pages[vector.page];
    const after = Links.write(vector.search, page, vector.changes);
    if (vector.after !== undefined) {
      assert.equal(after, vector.after);
    } else {
      assert.ok(after.startsWith(vector.after_starts), after.slice(0, 80));
      assert.deepEqual(asJson(Links.read(after, page).values), vector.then_reads);
    }
  });
}

for (const vector of VECTORS.moved.cases) {
  test(`moved: ${vector.why}`, () => {
    const check = () => Links.checkMoved(vector.value, VECTORS.moved.moves, vector.values);
    if (vector.error === null) check();
    else assert.throws(check, {message: vector.error});
  });
}

test("a written link reads back as the values written", () => {
  const page = VECTORS.pages.kinds;
  const values = {base: 0.5, scheme: "block-1d", rate: 0.75, causal: false, label: "a&b"};
  const after = Links.write("?rate=0.1&junk=1", page, {9001: values});
  assert.deepEqual(asJson(Links.read(after, page).values), {9001: values});
});

test("the notice escapes and stops at MAX_SHOWN", () => {
  const problems = Array.from({length: Links.MAX_SHOWN + 3}, (_, n) => `<b>${n}</b>`);
  const notice = Links.noticeHtml(problems);
  assert.ok(!notice.split("</strong>")[1].includes("<b>"));
  assert.equal(notice.split("<li>").length - 1, Links.MAX_SHOWN + 1);
  assert.ok(notice.endsWith("<li>and 3 more</li></ul>"));
  assert.equal(Links.noticeHtml([]), "");
});

test("the written key says which slider it read", () => {
  const found = Links.read("?pos=30", VECTORS.pages.one);
  assert.deepEqual(found.written, {710: {pos: "pos=30"}});
});
