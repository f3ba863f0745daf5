// Bokeh's simple ids are "p" and a counter: their numbers give the order of creation.
// biome-ignore lint/correctness/noUnusedVariables: the loader script it is joined to sorts by it
const posvizIdOrder = (a, b) => Number(String(a).replace(/\D/g, "")) - Number(String(b).replace(/\D/g, ""));
