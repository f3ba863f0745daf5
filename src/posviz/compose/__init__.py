"""Composition: content and figures turned into the site's pages.

The only layer that knows about routes and URLs: ``views`` builds each
route's page as data (``parts``), ``page`` makes the reader's page of it (text
as HTML, figures as Panel roots), ``routes`` names the routes, ``links`` keeps slider values
in the URL, ``entries`` writes the scripts that ``panel serve`` and
``panel convert`` run, and ``hosts`` is the Host check of ``posviz serve``.
Route names and URLs live in the leaf ``posviz.urls``, stylesheets in
``posviz.styles`` and a figure's own layout in ``posviz.drawing.layout``.
"""
