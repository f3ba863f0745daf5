// A patch to the page `panel convert` writes (export/adapter.py, patch_panel_page):
// the first line of code is Panel's own text, the second what posviz writes in
// its place. Here: the page talks to the shared runtime connect.js started,
// not to a worker of its own.
const pyodideWorker = new Worker("./__NAME__.js")
const pyodideWorker = window.posvizWorker
