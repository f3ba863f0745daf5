"""A figure's frame as the page carries it, numpy only: its binary pool and its texts.

A frame (``posviz.figures.model``) is computed by the figure's own model, the
same code in every tier; this package holds what turns it into bytes and HTML
without Panel, so that the build and the worker's numpy tier write the same.
"""
