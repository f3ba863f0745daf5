"""``python -m posviz.myst --out posviz.mjs``: write the MyST plugin."""

import sys

from posviz.myst import main

sys.exit(main())
