// What the browser code's modules see around them, for `tsc --checkJs` (./dev lint).
// Each UMD module sets one global in the browser (on globalThis: the window, or
// the worker's scope) and module.exports under Node. These four are typed in
// full (tsconfig.strict.json); the others are declared in page_globals.d.ts.
declare var module: { exports: unknown } | undefined;

declare var posvizSignals: typeof import("../signals.js");
declare var posvizChecked: typeof import("../checked.js");
declare var posvizProtocol: typeof import("../protocol.js");
declare var posvizFrameIndex: typeof import("../frame_index.js");
