// @ts-check
/* The words the search matched, highlighted in the first rows shown (the CSS Custom Highlight API,
   so no row's markup changes), after the frame that shows the rows. sgm/highlight.js decides which
   words; a browser without the API highlights nothing. */
import { highlightSpans, MAX_RANGES } from "../highlight.js";

const HIGHLIGHT = "sgm-hit";
const HIGHLIGHT_ROWS = 20; // rows whose matches are highlighted

/* `rules`: the finder's word rules (sgm/text.js textRules). */
export function mountMarks({ rules, signal }) {
  const can = typeof Highlight === "function" && window.CSS && CSS.highlights;
  let stamp = 0;
  let frame = 0;
  let idle = 0;
  const later = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
  const cancelLater = window.cancelIdleCallback ? (id) => window.cancelIdleCallback(id) : clearTimeout;

  function mark(found, visible) {
    const marks = new Highlight();
    let budget = MAX_RANGES;
    const marksFor = { terms: new Set(found.highlight.terms), prefix: found.highlight.prefix };
    for (const entry of visible.slice(0, HIGHLIGHT_ROWS)) {
      /* Not in the sources cell: its labels ("pull request #…") are not what the search matched. */
      const walker = document.createTreeWalker(entry.row, NodeFilter.SHOW_TEXT, {
        acceptNode: (node) => (node.parentElement?.closest(".sgm-sources-cell, .sgm-row-evidence")
          ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
      });
      for (let node = walker.nextNode(); node && budget > 0; node = walker.nextNode()) {
        for (const [start, end] of highlightSpans(node.nodeValue, marksFor, rules, budget)) {
          marks.add(new StaticRange({ startContainer: node, startOffset: start, endContainer: node, endOffset: end }));
          budget -= 1;
        }
      }
      if (budget <= 0) break;
    }
    CSS.highlights.set(HIGHLIGHT, marks);
  }

  return {
    /* Highlight what `found` (the search's answer, or null) matched in the rows `visible`; a newer
       update drops an older one still waiting for its frame. */
    update(found, visible) {
      const mine = (stamp += 1);
      if (!can) return;
      cancelAnimationFrame(frame);
      cancelLater(idle);
      CSS.highlights.delete(HIGHLIGHT);
      if (!found || !found.results.length) return;
      frame = requestAnimationFrame(() => {
        idle = later(() => {
          if (mine !== stamp || signal.aborted) return;
          mark(found, visible);
        }, { timeout: 300 });
      });
    },
    destroy() {
      stamp += 1;
      cancelAnimationFrame(frame);
      cancelLater(idle);
      if (can) CSS.highlights.delete(HIGHLIGHT);
    },
  };
}
