"""Which pixels' information reaches one query pixel through stacked layers.

A scheme says which pixels each query attends to. After one layer a query
holds what it attends to; after two, what those pixels attended to as well.
``spread`` gives, for a set of pixels, the union of the sets they attend,
so the reach after L layers is ``spread`` applied L times to the query alone.

Block schemes follow the local attention of the Image Transformer
(Parmar et al., 2018) without its causal mask:

* 1D: pixels in raster order are cut into query blocks of ``query_length``
  pixels; each block attends to itself and the ``memory_length`` pixels
  before it.
* 2D: the image is cut into query blocks of ``block_height``×``block_width``;
  each block attends to a memory rectangle extended ``memory_above`` rows
  above and ``memory_side`` columns to the left and to the right.
"""

from dataclasses import dataclass

import numpy as np

# Every query attends to: every pixel; a window around it; its 1D or 2D query
# block and that block's memory; its row and its column.
SCHEMES = ("global", "local", "block-1d", "block-2d", "axial")


@dataclass(frozen=True)
class Geometry:
    """Sizes the schemes use; the defaults are the ones the figure shows."""

    window: int = 7
    query_length: int = 8
    memory_length: int = 16
    block_height: int = 4
    block_width: int = 4
    memory_above: int = 4
    memory_side: int = 4


def _dilate(mask: np.ndarray, radius: int) -> np.ndarray:
    """Union of (2·radius+1)² squares centred on the mask's pixels, clipped."""
    out = mask.copy()
    for axis in (0, 1):
        grown = out.copy()
        for shift in range(1, radius + 1):
            if axis == 0:
                grown[shift:, :] |= out[:-shift, :]
                grown[:-shift, :] |= out[shift:, :]
            else:
                grown[:, shift:] |= out[:, :-shift]
                grown[:, :-shift] |= out[:, shift:]
        out = grown
    return out


def _spread_1d_blocks(mask: np.ndarray, geometry: Geometry) -> np.ndarray:
    flat = mask.ravel()
    out = np.zeros_like(flat)
    length = geometry.query_length
    for block in np.unique(np.flatnonzero(flat) // length):
        start = max(0, block * length - geometry.memory_length)
        out[start : (block + 1) * length] = True
    return out.reshape(mask.shape)


def _spread_2d_blocks(mask: np.ndarray, geometry: Geometry) -> np.ndarray:
    out = np.zeros_like(mask)
    rows, cols = np.nonzero(mask)
    height, width = geometry.block_height, geometry.block_width
    blocks = set(zip((rows // height).tolist(), (cols // width).tolist(), strict=True))
    for block_row, block_col in blocks:
        top = max(0, block_row * height - geometry.memory_above)
        left = max(0, block_col * width - geometry.memory_side)
        bottom = (block_row + 1) * height
        right = (block_col + 1) * width + geometry.memory_side
        out[top:bottom, left:right] = True
    return out


def spread(mask: np.ndarray, scheme: str, geometry: Geometry = Geometry()) -> np.ndarray:
    """Union of the pixels attended by every pixel in ``mask``."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")
    if not mask.any():
        return mask.copy()
    if scheme == "global":
        return np.ones_like(mask)
    if scheme == "local":
        return _dilate(mask, geometry.window // 2)
    if scheme == "block-1d":
        return _spread_1d_blocks(mask, geometry)
    if scheme == "block-2d":
        return _spread_2d_blocks(mask, geometry)
    return mask.any(axis=1)[:, None] | mask.any(axis=0)[None, :]  # axial


def reach(
    side: int, row: int, col: int, scheme: str, layers: int = 1, geometry: Geometry = Geometry()
) -> np.ndarray:
    """Boolean (side, side) map of the pixels that reach the query at (row, col)."""
    if not (0 <= row < side and 0 <= col < side):
        raise ValueError(f"query ({row}, {col}) is outside a {side}×{side} image")
    mask = np.zeros((side, side), dtype=bool)
    mask[row, col] = True
    for _ in range(layers):
        mask = spread(mask, scheme, geometry)
    return mask
