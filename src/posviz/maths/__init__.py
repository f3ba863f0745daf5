"""The mathematics behind the figures: pure numpy, no Panel or HoloViews.

Importing this package must stay cheap: in the exported site every import
runs in the reader's browser.
"""
