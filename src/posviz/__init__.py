"""posviz: live explanatory figures of how Transformers see position.

Layers, one way: ``maths`` (numpy only) → ``figures`` (Param + HoloViews)
→ ``content`` (text + figure refs) → ``compose`` (Panel layouts)
→ ``cli`` serve | ``build`` (static export). Leaves any layer may import:
``urls`` (route names and links), ``styles`` (stylesheets), ``paths`` and
``internals``. ``./dev lint`` holds imports to this (``[tool.importlinter]``).
"""

__version__ = "0.1.0"
