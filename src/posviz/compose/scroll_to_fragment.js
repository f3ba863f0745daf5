// Section links (page-x#section-2) point into Panel's shadow roots, where the
// browser's own fragment scrolling cannot see; find the target and scroll.
let id = "";
try {
  id = decodeURIComponent(window.location.hash.slice(1));
} catch {
  // A malformed fragment (#%E0%A4%A) names no section: stay at the top.
}
if (id) {
  const find = (root) => {
    const hit = root.querySelector(`[id="${id.replace(/"/g, '')}"]`);
    if (hit) return hit;
    for (const host of root.querySelectorAll('*')) {
      if (host.shadowRoot) { const inner = find(host.shadowRoot); if (inner) return inner; }
    }
    return null;
  };
  setTimeout(() => { const target = find(document); if (target) target.scrollIntoView(); }, 200);
}
