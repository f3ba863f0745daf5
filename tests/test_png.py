"""tests/support/png.py reads back pixels written with each of PNG's five row filters."""

import random
import struct
import zlib

import pytest

from tests.support import png


def paeth(left: int, up: int, corner: int) -> int:
    """PNG's Paeth predictor, as the specification writes it (section 9.4)."""
    guess = left + up - corner
    pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
    if pa <= pb and pa <= pc:
        return left
    return up if pb <= pc else corner


def filtered(kind: int, line: bytes, previous: bytes, channels: int) -> bytes:
    """One row filtered by ``kind``: each byte minus its predictor (the encoder's side)."""
    out = bytearray()
    for x, value in enumerate(line):
        left = line[x - channels] if x >= channels else 0
        up = previous[x]
        corner = previous[x - channels] if x >= channels else 0
        predictor = [0, left, up, (left + up) // 2, paeth(left, up, corner)][kind]
        out.append((value - predictor) % 256)
    return bytes(out)


def write_png(path, rows: list[bytes], width: int, channels: int) -> None:
    """A PNG of ``rows``, row y filtered by kind y % 5."""
    raw, previous = b"", bytes(width * channels)
    for y, line in enumerate(rows):
        raw += bytes([y % 5]) + filtered(y % 5, line, previous, channels)
        previous = line

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    colour = {3: 2, 4: 6}[channels]
    header = struct.pack(">IIBBBBB", width, len(rows), 8, colour, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("channels", [3, 4])
def test_every_filter_reads_back_the_pixels_written(tmp_path, channels):
    rng = random.Random(7)
    width, height = 9, 10  # two rows of each filter
    rows = [bytes(rng.randrange(256) for _ in range(width * channels)) for _ in range(height)]
    write_png(tmp_path / "a.png", rows, width, channels)
    assert png.pixels(tmp_path / "a.png") == (width, height, channels, rows)
    assert png.pixels(tmp_path / "a.png", 3) == (width, height, channels, rows[:3])
    assert png.size(tmp_path / "a.png") == (width, height)


def test_coloured_share_counts_only_pixels_whose_channels_spread(tmp_path):
    grey, orange = bytes([128, 128, 128]), bytes([230, 120, 20])
    rows = [orange * 2 + grey * 2, grey * 4]  # 4 × 2: two coloured pixels of eight
    write_png(tmp_path / "b.png", rows, 4, 3)
    assert png.coloured_share(tmp_path / "b.png", {"x": 0, "y": 0, "width": 4, "height": 2}) == 0.25
    left = {"x": 0, "y": 0, "width": 1, "height": 1}
    assert png.coloured_share(tmp_path / "b.png", left) == 1.0
    # a box in CSS px, the screenshot at twice the scale: the same top-left quarter
    assert png.coloured_share(tmp_path / "b.png", {**left, "width": 0.5, "height": 0.5}, 2) == 1.0


def test_not_a_png_or_an_unread_kind_is_refused_by_name(tmp_path):
    (tmp_path / "c.png").write_bytes(b"GIF89a")
    with pytest.raises(ValueError, match="not a PNG"):
        png.pixels(tmp_path / "c.png")
    with pytest.raises(ValueError, match="not a PNG"):
        png.size(tmp_path / "c.png")
