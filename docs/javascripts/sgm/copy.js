// @ts-check
/* Copy for chat: one button, two formats. A paste into Slack, Teams or a document takes the
   text/html (a real link named for the incident); a paste into a terminal or a plain box takes the
   text/plain line, which ends with the bare address. Both strings are written by the build into
   the button (data-chat-html, data-chat-text). Without ClipboardItem, the plain line is copied. */

const DONE = 1500;  // ms the button says "Copied"

export function chatClipboard(button) {
  return { html: button.dataset.chatHtml || "", text: button.dataset.chatText || "" };
}

async function write({ html, text }) {
  if (typeof ClipboardItem === "function" && navigator.clipboard && navigator.clipboard.write) {
    const item = new ClipboardItem({
      "text/html": new Blob([html], { type: "text/html" }),
      "text/plain": new Blob([text], { type: "text/plain" }),
    });
    await navigator.clipboard.write([item]);
  } else {
    await navigator.clipboard.writeText(text);
  }
}

export function mountCopy(signal) {
  document.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const button = /** @type {HTMLElement | null} */ (target.closest && target.closest(".sgm-copy__chat"));
    if (!button) return;
    event.preventDefault();
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    write(chatClipboard(button)).then(() => {
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = label; }, DONE);
    }, (error) => console.warn("Copy for chat could not write to the clipboard:", error));
  }, { signal });
}
