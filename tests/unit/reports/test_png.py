"""Issue 15: a report map's PNG is written by pbem.reports.png (the fast deflate)."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image, ImageDraw

from pbem.reports import png


def _picture() -> Image.Image:
    img = Image.new("P", (301, 97), 0)
    img.putpalette([0, 0, 0, 58, 110, 165, 118, 160, 88, 255, 220, 0])
    draw = ImageDraw.Draw(img)
    draw.rectangle((10, 10, 120, 60), fill=1)
    draw.ellipse((150, 5, 290, 90), fill=2, outline=3, width=3)
    return img


def _chunks(data: bytes) -> list[bytes]:
    kinds, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body)
        kinds.append(kind)
        at += 12 + length
    return kinds


def test_a_palette_image_comes_back_as_it_was() -> None:
    img = _picture()
    data = png.encode(img)
    back = Image.open(io.BytesIO(data))
    back.load()
    assert back.mode == "P" and back.size == img.size
    assert back.tobytes() == img.tobytes()
    assert back.getpalette()[:12] == img.getpalette()[:12]  # type: ignore[index]


def test_only_the_picture_no_metadata_and_the_same_bytes_each_time() -> None:
    data = png.encode(_picture())
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert _chunks(data) == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    assert png.encode(_picture()) == data


def test_the_deflate_is_a_standard_zlib_stream() -> None:
    """Whichever deflate wrote it (ISA-L or zlib), zlib reads it: each row's
    filter byte, then its indices."""
    img = _picture()
    data = png.encode(img)
    at = data.index(b"IDAT")
    (length,) = struct.unpack(">I", data[at - 4 : at])
    raw = zlib.decompress(data[at + 4 : at + 4 + length])
    w = img.width
    rows = [raw[i * (w + 1) : (i + 1) * (w + 1)] for i in range(img.height)]
    assert all(r[0] == 0 for r in rows)
    assert b"".join(r[1:] for r in rows) == img.tobytes()


def test_only_palette_images() -> None:
    with pytest.raises(ValueError, match="palette"):
        png.encode(Image.new("RGB", (4, 4)))
