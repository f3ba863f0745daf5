// What the two workers' scripts see around them, for `tsc --checkJs` (tsconfig.workers.json):
// posviz-worker.js runs as a SharedWorker (or a dedicated one), posviz-sw.js as the
// site's service worker. Their global scope is `self` in both; these add what the
// WebWorker library types only on the narrower scopes, and what the build fills in.

// Filled in by the build (posviz.assets.bundle) before a script ships.
declare const __SITE__: any; // worker.js: the runtime's files, with their sha256
declare const __OFFLINE__: {build: string, files: Record<string, {sha256: string, bytes: number}>}; // sw.js

// Pyodide's own script (pyodide.js), which worker.js runs before it starts Python.
declare function loadPyodide(options?: Record<string, unknown>): Promise<any>;

// The scope's members a service worker or a shared worker has (`self` is one of them).
interface WorkerGlobalScope {
  registration: ServiceWorkerRegistration;
  clients: Clients;
  skipWaiting(): Promise<void>;
  onconnect: ((event: MessageEvent) => void) | null;
}

interface WorkerGlobalScopeEventMap {
  install: ExtendableEvent;
  activate: ExtendableEvent;
  fetch: FetchEvent;
  message: ExtendableMessageEvent;
}
