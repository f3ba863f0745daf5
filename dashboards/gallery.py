"""All figures on one page: `panel serve dashboards/gallery.py`."""

from posviz.compose import gallery

gallery().servable(title="posviz · all figures")
