// Every runtime the page joined, by id, in order in window.posvizRuntimes: a first
// runtime can be gone before a test looks. Run before the page's own scripts.
window.posvizRuntimes = [];
let joined = null;
Object.defineProperty(window, "posvizRuntime", {
  configurable: true,
  get: () => joined,
  set: (runtime) => {
    joined = runtime;
    const seen = window.posvizRuntimes;
    if (runtime && !seen.includes(runtime.id)) seen.push(runtime.id);
  },
});
