// Firefox for the tests: Debian's firefox-esr driven by npm puppeteer-core over
// WebDriver BiDi (built into Firefox; no geckodriver). tests/ui/engines.py starts
// this script and speaks JSON lines with it: one command a line on stdin, one
// answer a line on stdout, {id, value} or {id, error}.
//   node tests/support/firefox_bridge.mjs '<prefs as JSON>'
import {createInterface} from "node:readline";
import puppeteer from "puppeteer-core";

const prefs = JSON.parse(process.argv[2] || "{}");
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.POSVIZ_FIREFOX || "/usr/bin/firefox-esr",
  headless: true,
  extraPrefsFirefox: prefs,
});
const pages = new Map();
let next = 0;

const commands = {
  async version() {
    return browser.version();
  },
  async newPage({width, height}) {
    const page = await browser.newPage();
    await page.setViewport({width, height});
    next += 1;
    pages.set(next, page);
    return next;
  },
  async goto({page, url}) {
    await pages.get(page).goto(url, {waitUntil: "load", timeout: 120000});
  },
  async evaluate({page, expression}) {
    return pages.get(page).evaluate(expression);
  },
  async press({page, key}) {
    await pages.get(page).keyboard.press(key);
  },
  async mouse({page, steps}) {
    const mouse = pages.get(page).mouse;
    for (const [action, x, y] of steps) {
      if (action === "move") await mouse.move(x, y);
      else if (action === "down") await mouse.down();
      else if (action === "up") await mouse.up();
    }
  },
  async viewport({page, width, height}) {
    await pages.get(page).setViewport({width, height});
  },
  async bringToFront({page}) {
    await pages.get(page).bringToFront();
  },
  async screenshot({page, path}) {
    await pages.get(page).screenshot({path});
  },
  async closePage({page}) {
    await pages.get(page).close();
    pages.delete(page);
  },
  async quit() {
    await browser.close();
    setImmediate(() => process.exit(0));
  },
};

const answer = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
for await (const line of createInterface({input: process.stdin})) {
  const {id, op, ...args} = JSON.parse(line);
  try {
    const value = await commands[op](args);
    answer({id, value: value === undefined ? null : value});
  } catch (error) {
    answer({id, error: String((error?.message) || error)});
  }
}
await browser.close();
