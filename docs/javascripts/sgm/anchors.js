/* Old incident ids in the address: `/incidents/#<old>` and `/<section page>/#<old>`.
   overrides/main.html puts the map of data/redirects.yaml (old id -> the id that now
   tells the incident) on every page, when there is one. An old id that no element of
   this page carries is replaced in the address by the new one, and the page scrolls
   there; on a page that does not tell the new incident, the reader goes to its page. */

/* The map and where incident pages live, or null when nothing was renamed. */
export function readMap(element) {
  if (!element) return null;
  try {
    const ids = JSON.parse(element.textContent);
    return ids && typeof ids === "object" ? { ids, table: element.dataset.table || "" } : null;
  } catch (_) {
    return null;
  }
}

/* The id a fragment names, or "" for none or a malformed one. */
export function fragmentId(hash) {
  try {
    return decodeURIComponent((hash || "").replace(/^#/, ""));
  } catch (_) {
    return "";
  }
}

export function mountAnchors(signal) {
  const map = readMap(document.getElementById("sgm-redirects"));
  if (!map) return;
  const follow = () => {
    const old = fragmentId(window.location.hash);
    if (!old || !Object.prototype.hasOwnProperty.call(map.ids, old) || document.getElementById(old)) return;
    const now = map.ids[old];
    const target = document.getElementById(now);
    if (!target) {
      window.location.replace(`${map.table}${encodeURIComponent(now)}/`);
      return;
    }
    const url = new URL(window.location.href);
    url.hash = now;
    window.history.replaceState(window.history.state, "", url.href);
    target.classList.add("sgm-landed");
    target.scrollIntoView();
  };
  /* On the incident table the finder puts the rows in after the page loads: wait for them. */
  if (document.querySelector(".sgm-finder") && !document.documentElement.dataset.sgmRows) {
    document.addEventListener("sgm:rows", follow, { signal, once: true });
  } else {
    follow();
  }
  window.addEventListener("hashchange", follow, { signal });
}
