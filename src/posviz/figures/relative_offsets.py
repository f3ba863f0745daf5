"""Figure 1803 — Relative positions: Shaw's clipped offsets and T5's buckets.

Both schemes give attention a learned parameter per *signed offset* j − i
between a query at position i and a key at position j, never per position:

* Shaw, Uszkoreit and Vaswani (2018, §3.2) learn 2k + 1 vectors
  w₋ₖ … wₖ and give the pair (i, j) the vector w_clip(j − i, k), where
  clip(x, k) = max(−k, min(k, x)): every offset beyond ±k reuses an end vector.
* T5 (Raffel et al., 2020, §2.1) adds one learned scalar per head to the
  attention logit, shared by all the offsets of one *bucket*. ``t5_bucket`` is
  the bucket rule of the reference code, Mesh TensorFlow's
  ``_relative_position_bucket`` (ported to Hugging Face's T5): half the
  buckets for each direction when attention is bidirectional, the first half
  of those one offset each, the rest spaced logarithmically up to a maximum
  distance, beyond which every offset shares the last bucket.
"""

import math

import numpy as np
import param

from posviz.figures.model import PALETTE, EvenSlider, Figure, Plot, Slider

DIRECTIONS = ("bidirectional", "causal")
OFFSET = "offset j − i"
INDEX = "parameter index"
SIDE = 260  # pixels of a map's frame: its cells are square
# A value that is a whole number in exact arithmetic, log 2 / log 32 · 5 = 1 (18 buckets,
# max distance 128, offset 8), can come out a hair below it in float64 and lose a bucket;
# exact arithmetic, and the reference code's float32, give the whole number.
WHOLE = 1e-9
HEADROOM = 1.3  # the index plot's top, over its largest index: room for the legend


def ramp(start: str, end: str, steps: int) -> list[str]:
    """``steps`` colours from ``start`` to ``end`` (hex), evenly spaced in RGB."""
    a, b = (np.array([int(c[i : i + 2], 16) for i in (1, 3, 5)]) for c in (start, end))
    mix = np.linspace(0, 1, steps)[:, None]
    return ["#{:02x}{:02x}{:02x}".format(*np.rint(a + (b - a) * m).astype(int)) for m in mix]


# Blue for keys before the query, white at offset 0, orange for keys after; the
# deeper the colour, the further along its side the parameter lies. 129 shades keep
# 32 buckets apart.
COLOURS = ramp(PALETTE[0], "#f7f7f7", 65) + ramp("#f7f7f7", PALETTE[1], 65)[1:]


def shaw_offset(offsets, k: int) -> np.ndarray:
    """clip(j − i, k) = max(−k, min(k, j − i)): the vector w_clip of Shaw et al. for each offset."""
    return np.clip(np.asarray(offsets), -k, k)


def exact_buckets(buckets: int, bidirectional: bool) -> int:
    """max_exact: how many offsets (0, 1, …) of one side get a bucket of their own."""
    return (buckets // 2 if bidirectional else buckets) // 2


def t5_bucket(relative, bidirectional: bool, buckets: int, max_distance: int) -> np.ndarray:
    """T5's bucket of each relative position j − i, as in Mesh TensorFlow's reference code.

    ``relative`` is memory_position − query_position. With n = −relative:
    bidirectional halves the buckets and gives the second half to keys after the
    query (n < 0), then takes |n|; causal takes max(n, 0). Offsets n < max_exact
    keep n; larger ones get max_exact + ⌊log(n / max_exact) / log(max_distance /
    max_exact) · (buckets − max_exact)⌋, at most buckets − 1 (the floor taken with
    an allowance of ``WHOLE`` for a whole number computed a hair low).
    """
    exact = exact_buckets(buckets, bidirectional)
    if max_distance <= exact:
        raise ValueError(f"max_distance {max_distance} must exceed max_exact {exact}")
    n = -np.asarray(relative, dtype=np.int64)
    found = np.zeros(n.shape, dtype=np.int64)
    if bidirectional:
        buckets //= 2
        found += (n < 0) * buckets
        n = np.abs(n)
    else:
        n = np.maximum(n, 0)
    # Only offsets from max_exact on take the logarithm (below it, log would meet 0).
    scaled = np.log(np.maximum(n, exact) / exact) / math.log(max_distance / exact)
    steps = np.floor(scaled * (buckets - exact) + WHOLE).astype(np.int64)
    large = np.minimum(exact + steps, buckets - 1)
    return found + np.where(n < exact, n, large)


def signed_shade(bucket, buckets: int, bidirectional: bool) -> np.ndarray:
    """A bucket as a colour value in [−1, 1]: its place along its side, negative for keys before.

    Bidirectional: buckets below half belong to keys at or before the query
    (−b / (half − 1)), the others to keys after it ((b − half) / (half − 1)).
    Causal: every bucket is on the side before the query (−b / (buckets − 1)).
    """
    bucket = np.asarray(bucket, dtype=float)
    if not bidirectional:
        return -bucket / (buckets - 1)
    half = buckets // 2
    return np.where(bucket >= half, (bucket - half) / (half - 1), -bucket / (half - 1))


def steps(offsets, index) -> tuple[np.ndarray, np.ndarray]:
    """A staircase through the points: a flat step from d − ½ to d + ½ at each offset d."""
    offsets = np.asarray(offsets, dtype=float)
    return np.repeat(offsets, 2) + np.tile([-0.5, 0.5], offsets.size), np.repeat(index, 2)


def grid(n: int) -> np.ndarray:
    """The n×n offsets j − i: row i is the query, column j the key."""
    return np.arange(n)[None, :] - np.arange(n)[:, None]


def cell_ranges(n: int) -> dict:
    """A map's ranges: one cell per position, query 0 on top (the y axis is inverted)."""
    return {
        "x_range.start": -0.5,
        "x_range.end": n - 0.5,
        "y_range.start": n - 0.5,
        "y_range.end": -0.5,
    }


class RelativeOffsets(Figure):
    """Which learned parameter each (query, key) pair uses: Shaw's clip and T5's buckets."""

    figure_id = 1803
    title = "Relative positions: clipped offsets and log buckets"
    caption = (
        "Drag k and watch the left map: a graded band runs along the diagonal, and every cell "
        "outside it takes one of the two end vectors, whatever the distance. Then move the "
        "buckets and the maximum distance and watch the right map and the curve: near the "
        "diagonal each offset has a bucket of its own, further out one bucket covers more and "
        "more offsets, and past the maximum distance they all share the last. Each map colours "
        "the pair query i (row), key j (column) by the learned parameter it uses. Notice that "
        "both maps are constant along every diagonal, because only j − i matters, and that "
        "blue (keys before the query) and orange (keys after it) never mix: three steps back "
        "and three steps ahead use different parameters, unlike the even dot product of the "
        "sinusoids. Choose causal to see the decoder's rule, which spends every bucket on the "
        "past and puts all later keys in the bucket of offset zero."
    )
    widgets = {"direction": "buttons"}

    n = Slider(default=16, bounds=(4, 24), label="n (positions)", doc="Sequence length n.")
    k = Slider(
        default=4,
        bounds=(1, 12),
        label="k (Shaw: clip)",
        doc="Shaw et al.: offsets are clipped to −k … k, so 2k + 1 vectors are learned.",
    )
    direction = param.Selector(
        default="bidirectional",
        objects={name: name for name in DIRECTIONS},
        doc="T5: bidirectional (encoder) gives half the buckets to each direction; causal "
        "(decoder) gives them all to keys at or before the query.",
    )
    buckets = EvenSlider(
        default=16,
        bounds=(4, 32),
        step=4,
        label="T5: buckets",
        doc="T5: number of buckets, each one learned scalar per head (even).",
    )
    max_distance = Slider(
        default=20,
        bounds=(20, 128),
        step=4,
        label="T5: max distance",
        doc="T5: the offset from which every larger one shares the last bucket.",
    )

    @property
    def bidirectional(self) -> bool:
        """Whether T5's rule splits its buckets between the two directions."""
        return self.direction == "bidirectional"

    def bucket(self, relative) -> np.ndarray:
        """T5's bucket of each relative position at the current values."""
        return t5_bucket(relative, self.bidirectional, self.buckets, self.max_distance)

    def offsets(self) -> np.ndarray:
        """Every signed offset the window holds: −(n − 1) … n − 1."""
        return np.arange(1 - self.n, self.n)

    def exact(self) -> int:
        """Offsets 0 … exact − 1 of a side each have a bucket of their own."""
        return exact_buckets(self.buckets, self.bidirectional)

    def last_shared(self) -> int:
        """The smallest distance d whose key d steps back is in its side's last bucket."""
        last = (self.buckets // 2 if self.bidirectional else self.buckets) - 1
        back = self.bucket(-np.arange(self.max_distance + 1))
        return int(np.argmax(back == last))

    def used(self) -> int:
        """How many different buckets the n×n window uses."""
        return int(np.unique(self.bucket(grid(self.n))).size)

    def frame(self):
        """Both maps and their titles and ranges, and both index curves over the offsets."""
        n, k, offsets = self.n, self.k, grid(self.n)
        t5 = signed_shade(self.bucket(offsets), self.buckets, self.bidirectional)
        line = self.offsets()
        shaw_index = shaw_offset(line, k) + k
        t5_index = self.bucket(line)
        return {
            "shawcells": {
                "data": {"image": [shaw_offset(offsets, k) / k], "dw": [float(n)], "dh": [float(n)]}
            },
            "shaw": {
                "title.text": f"Shaw: {2 * k + 1} vectors, ±{k}",
                **cell_ranges(n),
            },
            "t5cells": {"data": {"image": [t5], "dw": [float(n)], "dh": [float(n)]}},
            "t5": {
                "title.text": f"T5: {self.used()} of {self.buckets} buckets",
                **cell_ranges(n),
            },
            **{
                f"{key}{part}": {"data": dict(zip((OFFSET, INDEX), points, strict=True))}
                for key, index in (("shaw", shaw_index), ("t5", t5_index))
                for part, points in (("curve", steps(line, index)), ("dots", (line, index)))
            },
            "index": {
                "x_range.start": float(-n),
                "x_range.end": float(n),
                "y_range.start": -1.0,
                "y_range.end": float(max(2 * k, self.buckets - 1) + 1) * HEADROOM,
            },
        }

    def draw(self, hv, frame):
        """The Shaw map, the T5 map (query rows, key columns), and the index of each offset."""
        last = self.n - 0.5
        maps = [
            Plot(
                key,
                {
                    f"{key}cells": hv.Image(
                        frame[f"{key}cells"]["data"]["image"][0],
                        bounds=(-0.5, -0.5, last, last),
                        kdims=["key j", "query i"],
                        vdims="shade",
                    ).opts(cmap=COLOURS, clim=(-1, 1), colorbar=False)
                },
                frame_width=SIDE,
                frame_height=SIDE,
                invert_yaxis=True,
            )
            for key in ("shaw", "t5")
        ]
        curves = {}
        for key, label, colour in (
            ("shaw", "Shaw: clip(j − i, k) + k", PALETTE[2]),
            ("t5", "T5: bucket", PALETTE[4]),
        ):
            for part in ("curve", "dots"):
                data = frame[f"{key}{part}"]["data"]
                points = (data[OFFSET], data[INDEX])
                if part == "curve":
                    element = hv.Curve(points, OFFSET, INDEX).opts(line_width=2, alpha=0.5)
                else:
                    element = hv.Scatter(points, OFFSET, INDEX, label=label).opts(size=6)
                curves[f"{key}{part}"] = element.opts(color=colour)
        # A line plot, so it stretches to the width and keeps its height (drawing.layout):
        # scaled down with its aspect, a docs column's 300 px left its axis label taller
        # than its plot area.
        index = Plot(
            "index",
            curves,
            width=460,
            height=320,
            legend_position="top_left",
            legend_cols=2,
            title="The parameter of each offset",
            show_grid=True,
        )
        return [*maps, index]

    def readout(self):
        """Shaw's k and vectors; T5's buckets, exact ones, where the last begins, how many used."""
        k, exact, count = self.k, self.exact(), self.buckets
        if self.bidirectional:
            split = (
                f"{count // 2} for keys at or before the query and {count // 2} for keys after "
                f"(bucket {count // 2} would be an offset of +0 and never occurs)"
            )
        else:
            split = "all for keys at or before the query (later keys, masked, share bucket 0)"
        own = (
            "offset 0 has its own"
            if exact == 1
            else f"offsets 0 to {exact - 1} each have their own"
        )
        return (
            f"Shaw: k = **{k}**, **{2 * k + 1}** vectors; every offset beyond ±{k} "
            f"reuses an end one.  \n"
            f"T5, **{self.direction}**: **{count}** buckets, {split}; {own}; every key at a "
            f"distance of **{self.last_shared()}** or more (the max distance is "
            f"{self.max_distance}) shares its side's last bucket. This {self.n}×{self.n} window "
            f"uses **{self.used()}** of the {count} buckets."
        )

    def describe(self):
        """The maps, their clip and buckets, and the index curve."""
        return (
            f"Two {self.n}×{self.n} maps of query i against key j, constant along each "
            f"diagonal: Shaw's offsets clipped to ±{self.k} ({2 * self.k + 1} vectors), and "
            f"T5's {self.direction} buckets ({self.buckets}, max distance {self.max_distance}) "
            f"of which {self.used()} occur, exact for offsets below {self.exact()} and shared "
            f"from distance {self.last_shared()} on; a third plot gives each offset's index."
        )

    def table(self):
        """For each signed offset, Shaw's clipped offset and T5's bucket."""
        line = self.offsets()
        return (
            f"Learned parameter of each offset j − i, n = {self.n}, k = {self.k}, "
            f"T5 {self.direction} with {self.buckets} buckets, max distance {self.max_distance}",
            ["offset j − i", "Shaw: clip(j − i, k)", "T5: bucket"],
            [
                (int(d), int(c), int(b))
                for d, c, b in zip(line, shaw_offset(line, self.k), self.bucket(line), strict=True)
            ],
        )
