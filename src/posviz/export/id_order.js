// Bokeh's simple ids are "p" and a counter: their numbers give the order of creation.
// Set where Panel's page script sorts its roots by it (export/panel_patches.toml).
globalThis.posvizIdOrder = (a, b) => Number(String(a).replace(/\D/g, "")) - Number(String(b).replace(/\D/g, ""));
