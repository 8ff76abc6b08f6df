// @ts-check
/* The page's side of the finder's search: a worker when the browser has module workers,
   else the same search on the page itself. Every call returns a promise; answers to
   queries that a newer one has replaced are simply not used by the caller. */

function inWorker(url) {
  const worker = new Worker(new URL("./search-worker.js", import.meta.url), { type: "module" });
  /* The data is fetched while the worker starts, and its bytes are moved to it, not copied. */
  const bytes = fetch(url).then((response) => {
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    return response.arrayBuffer();
  });
  const waiting = new Map();
  let seq = 0;
  let readyResolve;
  let readyReject;
  const ready = new Promise((resolve, reject) => { readyResolve = resolve; readyReject = reject; });
  worker.onmessage = (event) => {
    const m = event.data;
    if (m.type === "ready") readyResolve(m);
    else if (m.type === "error" && m.seq === undefined) readyReject(new Error(m.error));
    else if (waiting.has(m.seq)) {
      const { resolve, reject } = waiting.get(m.seq);
      waiting.delete(m.seq);
      if (m.type === "error") reject(new Error(m.error)); else resolve(m.found);
    }
  };
  worker.onerror = (event) => readyReject(new Error(event.message || "the search worker failed"));
  const ask = (message) => new Promise((resolve, reject) => {
    seq += 1;
    waiting.set(seq, { resolve, reject });
    worker.postMessage({ ...message, seq });
  });
  bytes.then((buffer) => worker.postMessage({ type: "load", bytes: buffer }, [buffer]), readyReject);
  return {
    ready,
    search: (query) => ask({ type: "search", query }),
    nearest: (query) => ask({ type: "nearest", query }),
    many: (queries) => ask({ type: "many", queries }),
    close: () => worker.terminate(),
  };
}

async function onPage(url) {
  const [{ answer: answerOf, createSearch }, response] = await Promise.all([import("./search.js"), fetch(url)]);
  const started = performance.now();
  const data = await response.json();
  const search = createSearch(data);
  const answer = (query) => answerOf(search, query);  // as the worker answers (search.js)
  const { index: _index, ...rest } = data;  // the index stays here; the page needs the rest
  return {
    ready: Promise.resolve({ data: rest, loaded: performance.now() - started }),
    search: async (query) => answer(query),
    nearest: async (query) => search.nearest(query),
    many: async (queries) => queries.map(answer),
    close: () => {},
  };
}

export async function searchClient(url) {
  if (typeof Worker === "function") {
    let client = null;
    try {
      client = inWorker(url);
      await client.ready;
      return client;
    } catch (error) {
      if (client) client.close();
      console.warn("The finder searches on the page instead of a worker:", error);
    }
  }
  return onPage(url);
}
