// @ts-check
/* Old incident ids in the address: `/incidents/#<old>` and `/<section page>/#<old>`.
   When data/redirects.yaml renames anything, every page's head names where its map
   (old id -> the id that now tells the incident) waits; the map is fetched only when the
   address names an id that no element of this page carries. That id is then replaced in
   the address by the new one, and the page scrolls there; on a page that does not tell
   the new incident, the reader goes to its page. */

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;  // what an incident id looks like (data/incidents.schema.json)

/* Where the map and the incident pages live, or null when nothing was renamed. */
export function readMap(element) {
  if (!element) return null;
  const url = element.getAttribute("content") || "";
  return url ? { url, table: element.dataset.table || "" } : null;
}

/* The id a fragment names, or "" for none or a malformed one. */
export function fragmentId(hash) {
  try {
    return decodeURIComponent((hash || "").replace(/^#/, ""));
  } catch (_) {
    return "";
  }
}

/* Could `id` be an old incident id that this page lacks? Only then is the map fetched. */
export function worthLookingUp(id, present) {
  return ID.test(id) && !present;
}

const maps = new Map();  // map URL -> the promise of its ids, fetched once per page load
let views = 0;  // page views that followed old ids, counted in the document (tests wait for it)

function load(url) {
  if (!maps.has(url)) {
    maps.set(url, fetch(url).then((r) => (r.ok ? r.json() : {})).catch(() => ({})));
  }
  return maps.get(url);
}

export function mountAnchors(signal) {
  const map = readMap(document.querySelector('meta[name="sgm-redirects"]'));
  if (!map) return;
  const follow = async () => {
    const old = fragmentId(window.location.hash);
    if (!worthLookingUp(old, document.getElementById(old))) return;
    const ids = await load(map.url);
    if (signal.aborted || fragmentId(window.location.hash) !== old) return;
    if (!ids || typeof ids !== "object" || !Object.prototype.hasOwnProperty.call(ids, old)) return;
    const now = ids[old];
    if (typeof now !== "string" || !ID.test(now)) return;
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
  /* On the incidents page the finder puts the rows in after the page loads: wait for them. */
  if (document.querySelector(".sgm-finder") && !document.documentElement.dataset.sgmRows) {
    document.addEventListener("sgm:rows", follow, { signal, once: true });
  } else {
    follow();
  }
  window.addEventListener("hashchange", follow, { signal });
  /* This view now follows a changed address: tests wait for the count to pass the last view's before
     they change it (instant navigation mounts a view after its page shows); the page never reads it. */
  views += 1;
  document.documentElement.dataset.sgmAnchorViews = String(views);
}
