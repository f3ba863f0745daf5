// Every text the status line shows, kept in order in window.posvizStatusHistory:
// a note can be on screen for less than one of a driver's polls. Run before the page's own scripts.
window.posvizStatusHistory = [];
new MutationObserver(() => {
  const bar = document.querySelector(".posviz-status");
  const text = bar ? bar.textContent : "";
  const seen = window.posvizStatusHistory;
  if (text && seen[seen.length - 1] !== text) seen.push(text);
}).observe(document, {subtree: true, childList: true, characterData: true});
