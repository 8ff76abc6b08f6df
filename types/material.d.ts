// The globals the site's modules use from Material for MkDocs' own bundle.

/** Material's page observable: it emits the document on each (instant) page load. */
declare const document$: { subscribe(next: (doc: Document) => void): { unsubscribe(): void } };
