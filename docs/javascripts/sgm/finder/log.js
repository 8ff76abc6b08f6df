// @ts-check
/* The pasted log above the finder's rows: one sentence about it and its kept lines, and, when it
   holds only lines that many incidents print, what to check for that error first. The words come
   from sgm/finder-state.js, finder.json's words and its guidance. */
import { guidanceFor, logSummary } from "../finder-state.js";
import { say } from "../words.js";

const NO_ANALYSIS = { hits: [], guidance: [], errorLines: [], lineCount: 0 };

/* Text with `code` spans, as the data writes it. */
function withCode(parent, text) {
  text.split("`").forEach((part, n) => {
    if (!part) return;
    if (n % 2) {
      const code = document.createElement("code");
      code.textContent = part;
      parent.append(code);
    } else {
      parent.append(part);
    }
  });
  return parent;
}

/* `guidance`: finder.json's guidance entries; `words`: its words. `onForget()` runs when the reader drops the log. */
export function mountLog(form, { guidance, words, signal, onForget }) {
  const logBox = form.querySelector(".sgm-finder__log");
  const guideBox = form.querySelector(".sgm-finder__guidance");
  const guidanceById = new Map(guidance.map((g) => [g.id, g]));
  const titles = new Map(guidance.map((g) => [g.id, g.title]));
  form.querySelector(".sgm-finder__log-clear").addEventListener("click", () => onForget(), { signal });

  /* The log box: one sentence about the log, and the log itself, kept in view. */
  function showLog(log, analysis) {
    logBox.hidden = !log;
    if (!log) return;
    form.querySelector(".sgm-finder__log-summary").textContent = logSummary(analysis, words, titles);
    form.querySelector(".sgm-finder__log-text").textContent = log;
  }

  /* The error many incidents share, first, when the log holds only such lines. */
  function showGuidance(analysis) {
    const found = guidanceFor(analysis, guidanceById);
    guideBox.hidden = !found;
    if (!found) return;
    const { entry, phase } = found;
    guideBox.replaceChildren();
    const head = document.createElement("p");
    head.className = "sgm-finder__guidance-title";
    const strong = document.createElement("strong");
    strong.textContent = entry.title;
    head.append(strong);
    if (phase) head.append(say(words, "guidance_phase", { phase: phase.label.toLowerCase() }));
    guideBox.append(head, withCode(document.createElement("p"), entry.summary));
    if (phase) guideBox.append(withCode(document.createElement("p"), phase.advice));
    const list = document.createElement("ul");
    for (const check of entry.checks) list.append(withCode(document.createElement("li"), check));
    const link = document.createElement("a");
    link.href = entry.url;
    link.textContent = words.guidance_link;
    const tail = document.createElement("p");
    tail.append(link);
    guideBox.append(list, tail);
  }

  return {
    /* `log`: the state's log ("" for none); `analysis`: its analysis, or null while none is known. */
    update(log, analysis) {
      showLog(log, analysis || NO_ANALYSIS);
      showGuidance(analysis);
    },
    destroy() {},
  };
}
