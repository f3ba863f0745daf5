"""The static export: ``posviz build`` and what it assembles (runtime, wheels, pages)."""
