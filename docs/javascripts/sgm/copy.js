/* Copy controls: copy an incident's link or a line for chat. */

/* ---- Copy buttons ------------------------------------------------------ */

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

export function mountCopy(signal) {
  for (const button of document.querySelectorAll(".sgm-copy__chat")) button.hidden = false;
  document.addEventListener("click", async (event) => {
    const target = event.target.closest("[data-sgm-copy]");
    if (!target || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    const ok = await copyText(target.dataset.sgmCopy);
    const label = target.dataset.sgmLabel || target.textContent;
    target.dataset.sgmLabel = label;
    target.textContent = ok ? "Copied" : "Copy failed";
    target.classList.add("sgm-copy--done");
    setTimeout(() => {
      target.textContent = label;
      target.classList.remove("sgm-copy--done");
    }, 1500);
  }, { signal });
}

