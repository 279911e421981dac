"""PNG bytes of a palette image, written here rather than by Pillow so the
deflate step can be the fast one: ISA-L's (the ``isal`` package, 4-5 times
zlib's speed at the same size) where installed, else the standard library's.

The file holds only what a picture needs (IHDR, PLTE, one IDAT, IEND): no
metadata, so the same image always gives the same bytes.
"""

from __future__ import annotations

import struct
import zlib
from types import ModuleType

from PIL import Image

_deflate: ModuleType
try:
    from isal import isal_zlib as _deflate
except ImportError:  # pragma: no cover - the standard library's, slower, same format
    _deflate = zlib
DEFLATE = "ISA-L (isal)" if _deflate is not zlib else "zlib"  # which one, for benchmarks

LEVEL = 1  # the fastest that still compresses a map about tenfold


def encode(img: Image.Image) -> bytes:
    """``img`` (mode "P", at most 256 colours) as PNG: 8-bit indices, each row
    unfiltered (a palette image gains little from filters)."""
    if img.mode != "P":
        raise ValueError(f"a palette image is needed, not {img.mode!r}")
    w, h = img.size
    palette = img.getpalette() or []
    # Each row of the image data starts with its filter type, 0: a column of
    # zeros west of the image, pasted in one step.
    framed = Image.new("P", (w + 1, h), 0)
    framed.im.paste(img.im, (1, 0, w + 1, h))
    header = struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0)  # 8 bits, palette colour
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", bytes(palette[: 3 * 256])),
            _chunk(b"IDAT", _deflate.compress(framed.tobytes(), LEVEL)),
            _chunk(b"IEND", b""),
        )
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
