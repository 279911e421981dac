"""7.10 Land-based torpedo arming: at launch, 1D10 a block (0 = ten) x 10% of the
torpedo-capable APs of that block present at the base within torpedo range may
carry torpedoes, rounded to the nearest (.5 up); the chart's DRMs are the pack's.
Trained carrier-based APs are always armed (7.10 note).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.dice import Dice
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air.tables import TORPEDO, rounded, value


def armed(
    public: Mapping[str, Any],
    present: int,
    dice: Dice,
    purpose: str,
    conditions: tuple[str, ...] = (),
) -> tuple[int, int, int]:
    """(APs that may carry torpedoes, the 1D10, the DRM) for one block at one base."""
    drms = value(public, TORPEDO)["drms"]
    drm = sum(int(drms.get(c, 0)) for c in conditions)
    roll = draws.d10(dice, purpose)
    pct = 10 * min(10, max(1, roll + drm))
    return min(present, rounded(present * pct / 100)), roll, drm
