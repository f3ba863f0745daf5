"""The Python that runs in the reader's browser, inside the static site's worker.

``export/worker.js`` starts Pyodide and calls into these modules; nothing here
runs at build time. ``boot`` readies the process and imports Panel;
``documents`` keeps one Bokeh document per connected page.
"""
