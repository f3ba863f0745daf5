// A patch to the page `panel convert` writes (export/adapter.py, patch_panel_page):
// the first line of code is Panel's own text, the second what posviz writes in
// its place. The page's roots are islands in its text (compose/page.py): match
// the live roots to the pre-rendered ones by creation order (Bokeh's ids count
// up), not by comparing ids as strings (p9999 > p10000).
data_roots.sort((a, b) => a[0]<b[0] ? -1: 1)
data_roots.sort((a, b) => posvizIdOrder(a[0], b[0]))
