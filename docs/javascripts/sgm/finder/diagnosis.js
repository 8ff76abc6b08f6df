// @ts-check
/* A whole report pasted into the finder (or handed over by the home page): its diagnosis above the
   rows. The engine and its bundles load only now (sgm/diagnosis-box.js). The report stays in this
   page: the address keeps only the log lines the rows answer. */

/* `onForget()` runs when the reader drops the report from the diagnosis box; `onAnswer(ids)` gets the
   incidents each answer shown names as matching, in its order; `search(words)` resolves to the finder's
   incident ids for words, best first (the report's own words are evidence by its first three). */
export function mountDiagnosis(form, {
  signal, onForget, search = /** @type {(words: string) => Promise<string[]>} */ (async (_words) => []),
  onAnswer = /** @type {(ids: string[]) => void} */ ((_ids) => {}),
}) {
  const box = form.querySelector(".sgm-diagnosis");
  let stamp = 0;

  /* Diagnose `text`, or empty the box for "". Only the newest report's answer is shown. A new report
     (not one edited in the box) brings the answer up when its first incident would be below the
     screen, as on a phone. */
  function update(text, { reveal = true } = {}) {
    const mine = (stamp += 1);
    if (!box) return;
    if (!text.trim()) {
      box.hidden = true;
      box.replaceChildren();
      delete form.dataset.diagnosed;
      return;
    }
    const began = performance.now();
    import("../diagnosis-box.js").then(async (view) => {
      if (!box.childElementCount) view.loadingBox(box, null);
      const engine = await view.loadDiagnoser(form);
      if (mine !== stamp || signal.aborted) return;
      const started = performance.now();
      const prepared = engine.prepare(text);
      const read = performance.now() - started;
      const found = prepared.query ? await search(prepared.query).catch(() => []) : [];  // no finder: no rank
      if (mine !== stamp || signal.aborted) return;
      const finished = performance.now();
      const out = engine.finish(prepared, found);
      /* For `make bench`: the diagnosis alone (its reading and its verdicts, not the finder's answer
         between them), and with the bundles' loading. */
      performance.clearMeasures("sgm-diagnose");
      performance.clearMeasures("sgm-diagnose-shown");
      performance.measure("sgm-diagnose", { start: finished - read, end: performance.now() });
      view.renderDiagnosis(box, engine, out, {
        root: form.dataset.root || "", text, signal,
        edited: (next) => update(next, { reveal: false }),
        forget: () => onForget(),
      });
      performance.measure("sgm-diagnose-shown", { start: began });
      /* what to do first, else the first incident: an answer with no incident (one common error's line)
         comes up too */
      const first = box.querySelector(".sgm-diagnosis__first, .sgm-diagnosis__result");
      if (reveal && first && first.getBoundingClientRect().bottom > window.innerHeight) {
        box.scrollIntoView({ block: "start" });
      }
      form.dataset.diagnosed = out.answer;  // tests wait for it; the page never reads it
      /* the rows open with the incidents the box names as matching, in its order */
      onAnswer(out.results.filter((r) => r.verdict === "matches").map((r) => r.id));
    }).catch((error) => {
      if (signal.aborted || mine !== stamp) return;
      console.warn("The diagnosis could not run:", error);
      box.hidden = true;
    });
  }

  return {
    update,
    destroy() { stamp += 1; },
  };
}
