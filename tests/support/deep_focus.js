// The focused element, followed into shadow roots.
() => {
  let a = document.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  if (!a || a === document.body) return null;
  const style = getComputedStyle(a);
  return {cls: a.className, label: a.getAttribute('aria-label') || a.textContent.trim(),
          outline: style.outlineStyle, width: parseFloat(style.outlineWidth)};
}
