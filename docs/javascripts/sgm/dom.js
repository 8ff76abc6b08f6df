// @ts-check
/* Writing an answer into the page, text only: nothing from the data ever becomes markup. */

/* An element with a class and its text. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/* `backtick` spans as <code>, the rest as text (an unclosed backtick stays text). */
export function inline(parent, text) {
  const parts = String(text).split("`");
  parts.forEach((part, k) => {
    if (!part) return;
    parent.append(k % 2 === 1 && k < parts.length - 1 ? el("code", null, part) : part);
  });
  return parent;
}
