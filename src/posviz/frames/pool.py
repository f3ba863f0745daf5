"""A frame's arrays as one binary pool, each distinct array once, and its strings once.

The build writes the precomputed frames this way (``export/frames.py``), and the
worker's numpy tier sends a computed frame the same way (``runtime/compute.py``):
``posviz-frames.js`` reads both alike.
"""

import numpy as np


class Pool:
    """Every distinct array once, in one binary file; every long string once."""

    def __init__(self):
        self.blob = bytearray()
        self.columns: list = []
        self.by_bytes: dict = {}
        self.strings: list = []
        self.by_string: dict = {}

    def array(self, values) -> dict:
        """A reference to ``values`` in the pool, stored in the smallest exact type."""
        array = np.asarray(values)
        if array.dtype.kind == "b":
            array = array.astype(np.uint8)
        whole = array.dtype.kind in "iu" or (
            array.size and np.all(np.isfinite(array)) and np.all(array == np.round(array))
        )
        if whole and array.size and array.min() >= 0 and array.max() <= 255:
            stored, dtype = array.astype(np.uint8), "u1"
        elif whole and array.size and np.abs(array).max() < 2**31:
            stored, dtype = array.astype("<i4"), "i4"
        else:
            stored, dtype = array.astype("<f8"), "f8"
        data = stored.tobytes()
        found = self.by_bytes.get((dtype, array.shape, data))
        if found is None:
            self.blob.extend(b"\0" * (-len(self.blob) % 8))  # typed arrays want alignment
            found = len(self.columns)
            self.columns.append([len(self.blob), int(stored.size), dtype, list(array.shape)])
            self.blob.extend(data)
            self.by_bytes[(dtype, array.shape, data)] = found
        return {"$": found}

    def string(self, text: str) -> int:
        """The index of ``text`` in the pool of strings."""
        found = self.by_string.get(text)
        if found is None:
            found = self.by_string[text] = len(self.strings)
            self.strings.append(text)
        return found

    def encode(self, value):
        """A frame's value, its arrays and images replaced by references into the pool."""
        if isinstance(value, dict):
            return {k: self.encode(v) for k, v in value.items()}
        if isinstance(value, np.ndarray):
            return self.array(value)
        if isinstance(value, (list, tuple)):
            if value and isinstance(value[0], np.ndarray):
                return [self.array(v) for v in value]  # an image column
            if value and all(isinstance(v, str) for v in value):
                return list(value)
            return self.array(value)
        if isinstance(value, np.generic):
            return value.item()
        return value
