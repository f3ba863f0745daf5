"""Read a PNG's pixels with the standard library: what a screenshot shows, pixel by pixel.

Enough for the screenshots browsers write: 8 bits per channel, RGB or RGBA, not
interlaced. Used where what a page's canvas holds and what the screen shows can
differ (WebKit once showed a painted canvas blank), so only the screenshot tells.
"""

import struct
import zlib
from pathlib import Path

CHANNELS = {2: 3, 6: 4}  # PNG colour type → channels: RGB, RGBA


def size(path: Path) -> tuple[int, int]:
    """(width, height) of the PNG at ``path``, from its header."""
    data = Path(path).read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    return struct.unpack(">II", data[16:24])


def pixels(path: Path, rows_wanted: int | None = None) -> tuple[int, int, int, list[bytes]]:
    """(width, height, channels, rows) of the PNG at ``path``, each row unfiltered.

    ``rows_wanted``: only the first so many rows (each row needs the one above it).
    """
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    position, compressed, header = 8, b"", None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError(f"{path}: depth {depth}, colour type {colour}, interlace {interlace}")
    channels = CHANNELS[colour]
    raw = zlib.decompress(compressed)
    stride = width * channels
    rows, previous = [], bytes(stride)
    for y in range(height if rows_wanted is None else min(height, rows_wanted)):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0), (abs(guess - up), 1), (abs(guess - corner), 2))
                line[x] = (line[x] + (left, up, corner)[near[1]]) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def coloured_share(path: Path, box: dict, scale: float = 1.0, spread: int = 80) -> float:
    """The share of pixels in ``box`` (x, y, width, height in CSS px) that are coloured:
    their channels spread by more than ``spread`` (white, greys and black are not)."""
    bottom = int((box["y"] + box["height"]) * scale) + 1
    width, height, channels, rows = pixels(path, bottom)
    x0, y0 = max(0, int(box["x"] * scale)), max(0, int(box["y"] * scale))
    x1 = min(width, int((box["x"] + box["width"]) * scale))
    y1 = min(len(rows), int((box["y"] + box["height"]) * scale))
    total = coloured = 0
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            r, g, b = row[x * channels : x * channels + 3]
            total += 1
            coloured += max(r, g, b) - min(r, g, b) > spread
    return coloured / total if total else 0.0
