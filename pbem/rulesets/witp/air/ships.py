"""A side's ships and air groups as the air rules read them, in either TF shape.

The TF Display lists a TF's ships by name (taskforces.py, details in
``own["ships"]``) or, in the search modules' worlds, as dicts. Both are read here:
as typed values (``afloat``: taskforces.Ship; ``air_base``: AirBase) by the rules
that only read them, and as the working copy's records (``ships_of``, ``holders``)
where the losses, damage and counts are written back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pbem.rulesets.witp.records import OPTIONAL, Record
from pbem.rulesets.witp.taskforces import Ship, TaskForce, display

CARRIER_TYPES = ("CV", "CVL", "CVE", "XCV")
SUNK = 5
AIR_BASES = "air_bases"  # private[side]: {base: AirBase} (13.0, searchplay's set-up)


@dataclass(frozen=True, slots=True)
class AirBase(Record):
    """A side's land air base (4.3, 13.0): its hex and APs by type, and of them the
    elite (7.11), the elite with Night status (7.11.5) and the green (58.1)."""

    hex: str | None
    air_points: Mapping[str, int]
    elite: Annotated[Mapping[str, int] | None, OPTIONAL] = None
    night_elite: Annotated[Mapping[str, int] | None, OPTIONAL] = None
    green: Annotated[Mapping[str, int] | None, OPTIONAL] = None


def air_bases(own: Mapping[str, Any]) -> dict[str, AirBase]:
    """The side's air bases, decoded."""
    return {name: AirBase.from_json(b) for name, b in own.get(AIR_BASES, {}).items()}


def record(own: Mapping[str, Any], entry: Any) -> dict[str, Any]:
    """The ship's own record (mutable): the dict itself, or ``own["ships"][name]``."""
    if isinstance(entry, dict):
        return entry
    rec: dict[str, Any] = own["ships"][str(entry)]
    rec.setdefault("name", str(entry))
    return rec


def ships_of(own: Mapping[str, Any], tf: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The TF's ships afloat (sunk ones leave the display, 7.8.1 Step 7)."""
    out = [record(own, s) for s in tf.get("ships", ())]
    return [s for s in out if int(s.get("damage", 0)) < SUNK]


def afloat(own: Mapping[str, Any], tf: TaskForce) -> list[Ship]:
    """The TF's ships afloat, as values (each named)."""
    ships = (Ship.from_json(record(own, s)) for s in tf.ships)
    return [s for s in ships if s.damage < SUNK]


def tf_air(own: Mapping[str, Any], tf: TaskForce) -> dict[str, int]:
    """The air groups embarked on the TF's carriers, by AP type."""
    out: dict[str, int] = {}
    for s in afloat(own, tf):
        for t, n in (s.air or {}).items():
            out[t] = out.get(t, 0) + int(n)
    return out


def base_air(own: Mapping[str, Any], name: str) -> tuple[str, str | None, dict[str, int], bool]:
    """(label, hex, air points, carrier?) of ``name``: an air base (spaces may be
    written as underscores, any case) or ``TFn`` with embarked air; KeyError."""
    key = name.replace("_", " ").strip().lower()
    for tf_id, tf in display(own).items():
        if tf_id.lower() == key.replace(" ", "") and not tf.dummy:
            return tf_id, tf.hex, tf_air(own, tf), True
    for base, b in air_bases(own).items():
        if base.lower() == key:
            return base, b.hex, {t: int(n) for t, n in b.air_points.items()}, False
    raise KeyError(name)


def take_losses(own: Mapping[str, Any], where: str, ap_type: str, lost: int) -> int:
    """Remove ``lost`` APs of ``ap_type`` from base or carrier TF ``where``; the number removed."""
    left = lost
    tfs = own.get("tfs", {})
    if where in tfs:
        for s in ships_of(own, tfs[where]):
            air = s.get("air", {})
            have = int(air.get(ap_type, 0))
            cut = min(have, left)
            if cut:
                air[ap_type] = have - cut
                left -= cut
        return lost - left
    pool = own.get(AIR_BASES, {}).get(where, {}).get("air_points", {})
    cut = min(int(pool.get(ap_type, 0)), left)
    if cut:
        pool[ap_type] = int(pool[ap_type]) - cut
    return cut


@dataclass(frozen=True, slots=True)
class Holding:
    """One holder of a base's APs, by type (a carrier's air group, or the air base's
    APs), with how many of them are elite (7.11), elite with Night status (7.11.5)
    and green (58.1)."""

    aps: Mapping[str, int]
    elite: Mapping[str, int]
    night_elite: Mapping[str, int]
    green: Mapping[str, int]


def holdings(own: Mapping[str, Any], base: str) -> list[Holding]:
    """The holders of ``base``'s APs, as values: its carriers afloat if ``base`` is a
    TF, else the air base."""
    tf = display(own).get(base)
    if tf is not None:
        return [
            Holding(s.air or {}, s.elite or {}, s.night_elite or {}, s.green or {})
            for s in afloat(own, tf)
        ]
    b = air_bases(own).get(base)
    if b is None:
        return []
    return [Holding(b.air_points, b.elite or {}, b.night_elite or {}, b.green or {})]


def holders(own: Mapping[str, Any], base: str) -> list[dict[str, Any]]:
    """The records holding ``base``'s APs and their counts (elite, green): its
    carriers if ``base`` is a TF, else the air base (the working copy's, where the
    counts are written)."""
    tf = own.get("tfs", {}).get(base)
    if tf is not None:
        return ships_of(own, tf)
    b = own.get(AIR_BASES, {}).get(base)
    return [b] if b is not None else []


def mark_by_type(
    entries: Sequence[Mapping[str, Any]],
    counts: Mapping[str, int],
    key: str,
    *,
    marked_first: bool = True,
    skip: str | None = None,
) -> list[dict[str, Any]]:
    """``counts[type]`` APs of each type among ``entries`` (a CAP's, level by level,
    lowest first) split off and marked ``key`` (elite 7.11, AVG 6.2.3, green 58.2.1);
    an entry carrying ``skip`` is never marked (an elite AP is trained)."""
    left = dict(counts)
    out: list[dict[str, Any]] = []
    for e in entries:
        t, n = str(e["type"]), int(e["n"])
        k = 0 if skip and e.get(skip) else min(n, left.get(t, 0))
        left[t] = left.get(t, 0) - k
        parts = [({**e, "n": k, key: True}, k), ({**e, "n": n - k}, n - k)]
        out += [p for p, m in (parts if marked_first else parts[::-1]) if m]
    return out


def lose_counted(own: Mapping[str, Any], base: str, key: str, ap_type: str, n: int) -> None:
    """``n`` of ``base``'s APs of ``ap_type`` counted under ``key`` (elite, green)
    eliminated: off the counts record by record, and no record left counting more
    APs than it holds."""
    for r in holders(own, base):
        counts = r.get(key)
        if not counts or ap_type not in counts:
            continue
        cut = min(n, int(counts[ap_type]))
        n -= cut
        have = int(r.get("air", r.get("air_points", {})).get(ap_type, 0))
        counts[ap_type] = min(int(counts[ap_type]) - cut, have)
