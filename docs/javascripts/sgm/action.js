// @ts-check
/* What to do about an incident: the line every answer in the browser leads with (the check, the
   diagnosis), as opsmanual/render/actions.py made it and a bundle carries it ({kind, label, text,
   url}). Nothing here decides or words the action; it only writes it, `backtick` spans as <code>,
   the rest as text, with a link to the thread to follow (else to `fallback`) when there is nothing
   else to do. */
import { el, inline } from "./dom.js";

export function actionLine(action, fallback) {
  const line = el("p", `sgm-action sgm-action--${action.kind}`);
  line.append(el("strong", null, `${action.label}: `));
  const url = action.url || ((action.kind === "none" || action.kind === "closed") ? fallback : null);
  let holder = line;
  if (url) {
    holder = el("a");
    holder.href = url;
    line.append(holder);
  }
  inline(holder, action.text);
  return line;
}
