// @ts-check
/* Questions to a search that answers later (a worker), asked as the reader types. DOM-free.

   Every question is asked at once: nothing waits for typing to pause. One question is in flight
   at a time; a newer question waits for it, and replaces any question still waiting (that one is
   stale: its work is never done). When an answer comes back, it is shown only if no newer question
   was asked since, so the screen never shows an answer to an older question than the last one it
   showed, and what it shows is always the answer to the question named with it. */

/**
 * @param {(question: any) => any} run
 * @param {(question: any, answer: any, seq: number) => void} show
 * @param {(error: any, question: any) => void} [fail]
 */
export function createScheduler(run, show, fail = () => {}) {
  let seq = 0;          // the number of the newest question
  let inFlight = null;  // {seq, question} being answered
  let waiting = null;   // the newest question asked while another was in flight
  let closed = false;

  function start(job) {
    inFlight = job;
    Promise.resolve()
      .then(() => run(job.question))
      .then((answer) => finish(job, answer, null), (error) => finish(job, null, error));
  }

  function finish(job, answer, error) {
    inFlight = null;
    const next = waiting;
    waiting = null;
    if (!closed && job.seq === seq) {
      if (error) fail(error, job.question); else show(job.question, answer, job.seq);
    }
    if (next && !closed) start(next);
  }

  return {
    /* Ask; returns the question's number. */
    ask(question) {
      seq += 1;
      const job = { seq, question };
      if (inFlight) waiting = job; else start(job);
      return seq;
    },
    /* The number of the newest question (an answer shown under an older number is impossible). */
    get latest() { return seq; },
    get busy() { return Boolean(inFlight || waiting); },
    close() { closed = true; waiting = null; },
  };
}
