"""7.1 B Combat Segment: the naval player's allocation of the CAP over a TF to the
altitude levels a strike announced (R135), from his plotted ``CAP`` order.

Over the table he allocates after the striker announces the levels used; by mail he
plots beforehand a share for each level (``CAP TF3 H:2 M:1``), and the moderator
deals each fighter type over the levels announced in proportion to their shares:
a level the strike does not use takes nothing (7.1 B: "to the various altitude
levels announced"), so the shares there are never seen by the striker (6.1: APs at
different levels have no effect on one another). Each type goes only where it may
fly (5.2.3). When no announced level where the type may fly has a share, the
doctrine's even split applies (R92).

Rounding: the largest remainders, ties to the lower level (R92's "lowest first").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

ORDER = ("L", "M", "H")
MAX_SHARE = 99


def parse(words: Sequence[str]) -> dict[str, int]:
    """``["H:2", "M:1"]`` -> {"H": 2, "M": 1}; ValueError says why not."""
    shares: dict[str, int] = {}
    for w in words:
        lv, sep, n = w.upper().partition(":")
        if not sep or lv not in ORDER or not n.isdigit():
            raise ValueError(f"{w!r} is not <L|M|H>:<share>, e.g. H:2")
        if lv in shares:
            raise ValueError(f"{lv} is given twice")
        if int(n) > MAX_SHARE:
            raise ValueError(f"{w!r}: a share is 0 to {MAX_SHARE}")
        shares[lv] = int(n)
    if not shares or not any(shares.values()):
        raise ValueError("give at least one level a share above 0")
    return shares


def deal(n: int, levels: Sequence[str], shares: Mapping[str, int]) -> dict[str, int]:
    """``n`` APs of one type over ``levels`` (where the strike flies and the type may)
    by ``shares``; {} when none of those levels has a share (the doctrine decides)."""
    weights = {lv: int(shares.get(lv, 0)) for lv in levels}
    total = sum(weights.values())
    if n < 1 or total < 1:
        return {}
    out = {lv: n * w // total for lv, w in weights.items()}
    left = n - sum(out.values())
    # largest remainder first; equal remainders: the lower level first
    by_rest = sorted(levels, key=lambda lv: (-(n * weights[lv] % total), ORDER.index(lv)))
    for lv in by_rest[:left]:
        out[lv] += 1
    return {lv: k for lv, k in out.items() if k}


def text(shares: Mapping[str, int]) -> str:
    """{"H": 2, "M": 1} -> "H:2 M:1" (high first, as written)."""
    return " ".join(f"{lv}:{shares[lv]}" for lv in reversed(ORDER) if lv in shares)
