// A patch to the page `panel convert` writes (export/adapter.py, patch_panel_page):
// the first line of code is Panel's own text, the second what posviz writes in
// its place. The live document's roots, in creation order (id_order.js).
const root_ids = JSON.parse(msg.root_ids)
const root_ids = JSON.parse(msg.root_ids).sort(posvizIdOrder)
