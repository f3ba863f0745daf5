"""All figures on one page: `panel serve dashboards/gallery.py`."""

from posviz.compose import servable

servable("gallery")
