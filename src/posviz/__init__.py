"""posviz: live explanatory figures of how Transformers see position.

Layers, one way: ``maths`` (numpy only) → ``figures`` (Param + HoloViews)
→ ``content`` (text + figure refs) → ``compose`` (Panel layouts)
→ ``cli`` serve | ``build`` (static export).
"""

__version__ = "0.1.0"
