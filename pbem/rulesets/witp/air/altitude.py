"""5.2 Altitude effects on air combat strength, and 7.1 B approach modes.

Levels are "L", "M", "H" (4.1). A fighter loses 1 for each level above its rating,
nothing one level below, 1 two levels below (5.2.1); a bomber's own (unbracketed)
strength loses 1 for each level off its rating, never below 1, unless elite
(5.2.2, 7.11); its return fire never changes. No AP may fly where its strength
would be zero or less (5.2.3).
"""

from __future__ import annotations

from pbem.rulesets.witp.air.tables import LEVELS, Pack, value

ORDER = ("L", "M", "H")


def levels_off(rated: str, flown: str) -> int:
    """Levels above (+) or below (-) the rating."""
    return ORDER.index(flown) - ORDER.index(rated)


def fighter_strength(pack: Pack, base: int, rated: str | None, flown: str) -> int:
    """5.2.1: a fighter's air combat strength at ``flown`` (unrated: unchanged)."""
    if not rated:
        return base
    t = value(pack, LEVELS)
    off = levels_off(rated, flown)
    if off > 0:
        return base + int(t["above_per_level"]) * off
    return base + int(t["below"].get(str(-off), 0))


def bomber_strength(
    pack: Pack, base: int, rated: str | None, flown: str, *, elite: bool = False
) -> int:
    """5.2.2: a bomber's defensive strength at ``flown``; elite: none lost (7.11)."""
    if not rated or elite:
        return base
    t = value(pack, LEVELS)
    off = abs(levels_off(rated, flown))
    return max(int(t["bomber_minimum"]), base + int(t["bomber_per_level"]) * off)


def may_fly(pack: Pack, base: int, rated: str | None, flown: str) -> bool:
    """5.2.3: never at a level that leaves the strength zero or less (fighters;
    a bomber's floor is 1)."""
    return fighter_strength(pack, base, rated, flown) > 0


def approach(role: str, rated: str | None, assigned: str | None) -> str:
    """7.1 B (a): the altitude an AP flies to the target and fights at: T Low;
    D and FB their rating; B the altitude assigned it."""
    if role == "T":
        return "L"
    if role in ("D", "FB"):
        return rated or "M"
    return assigned or rated or "M"


def aa_mode(role: str, flown: str) -> str:
    """10.1.1: the approach mode AA fires at: D/FB the dive-bomber mode "DB"."""
    return "DB" if role in ("D", "FB") else ("L" if role == "T" else flown)


def attack_altitude(role: str, flown: str) -> str:
    """7.8.1 Step 4: T, D and FB release Low; B at their assigned altitude."""
    return "L" if role in ("T", "D", "FB") else flown
