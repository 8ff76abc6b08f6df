/* What to do about an incident: the line every answer in the browser leads with (the check, the
   diagnosis), as opsmanual/render/actions.py made it and a bundle carries it ({kind, label, text,
   url}). Nothing here decides or words the action; it only writes it, `backtick` spans as <code>,
   the rest as text, with a link to the thread to follow (else to `fallback`) when there is nothing
   else to do. */
export function actionLine(action, fallback) {
  const line = document.createElement("p");
  line.className = `sgm-action sgm-action--${action.kind}`;
  const label = document.createElement("strong");
  label.textContent = `${action.label}: `;
  line.append(label);
  const url = action.url || ((action.kind === "none" || action.kind === "closed") ? fallback : null);
  let holder = line;
  if (url) {
    holder = document.createElement("a");
    holder.href = url;
    line.append(holder);
  }
  String(action.text).split("`").forEach((part, k, parts) => {
    if (!part) return;
    if (k % 2 === 1 && k < parts.length - 1) {
      const code = document.createElement("code");
      code.textContent = part;
      holder.append(code);
    } else holder.append(part);
  });
  return line;
}
