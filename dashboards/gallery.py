"""All figures on one page: `panel serve dashboards/gallery.py`."""

from posviz.compose.views import servable

servable("gallery")
