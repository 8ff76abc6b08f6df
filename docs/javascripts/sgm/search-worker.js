// @ts-check
/* The finder's search, run in a worker so that typing never waits for it: the page
   sends queries, the worker answers with the ranked incidents. It reads finder.json
   (fetched by the page while the worker starts) and sends the page everything but the index. */
import { answer, createSearch } from "./search.js";

let search = null;

self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.type === "load") {
      /* The page fetches finder.json while this worker starts, and hands over its bytes. */
      const started = performance.now();
      const data = JSON.parse(new TextDecoder().decode(message.bytes));
      search = createSearch(data);
      const { index: _index, ...rest } = data;  // the index stays in the worker
      self.postMessage({ type: "ready", data: rest, loaded: performance.now() - started });
    } else if (message.type === "search") {
      self.postMessage({ type: "found", seq: message.seq, found: answer(search, message.query) });
    } else if (message.type === "nearest") {
      self.postMessage({ type: "found", seq: message.seq, found: search.nearest(message.query) });
    } else if (message.type === "many") {
      self.postMessage({ type: "found", seq: message.seq, found: message.queries.map((query) => answer(search, query)) });
    }
  } catch (error) {
    self.postMessage({ type: "error", seq: message.seq, error: String(error && /** @type {Error} */ (error).message || error) });
  }
};
