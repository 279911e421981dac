"""A side's ships and air groups as the air rules read them: the one accessor module
for a side's air bases, carriers' air groups and their elite and green counts.

The TF Display lists a TF's ships by name (taskforces.py, details in
``own["ships"]``). The rules read them as typed values (``afloat``:
taskforces.Ship; ``air_bases``: AirBase; ``holdings``: Holding) and write the
losses, damage and counts back through the round's accessors below (``lose``,
``lose_counted``, ``set_damage``, ``ground``), which alone touch the stored records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pbem.core.sides import Side
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.records import OPTIONAL, Record
from pbem.rulesets.witp.taskforces import SHIPS, TFS, Ship, TaskForce, display, displayed
from pbem.rulesets.witp.work import Work

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


def afloat(own: Mapping[str, Any], tf: TaskForce) -> list[Ship]:
    """The TF's ships afloat, as values (each named)."""
    ships = (Ship.from_json(record(own, s)) for s in tf.ships)
    return [s for s in ships if s.damage < SUNK]


def tf_air(own: Mapping[str, Any], tf: TaskForce) -> dict[str, int]:
    """The air groups embarked on the TF's carriers, by AP type."""
    return air_of(afloat(own, tf))


def air_of(ships: Sequence[Ship]) -> dict[str, int]:
    """The air groups embarked on ``ships`` (a TF's carriers afloat), by AP type."""
    out: dict[str, int] = {}
    for s in ships:
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
    if where in own.get(TFS, {}):
        for s in _holders(own, where):
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


def _holders(own: Mapping[str, Any], base: str) -> list[dict[str, Any]]:
    """The stored records holding ``base``'s APs and their counts (elite, green): its
    carriers afloat if ``base`` is a TF, else the air base."""
    tf = own.get(TFS, {}).get(base)
    if tf is not None:
        out = [record(own, s) for s in tf.get(SHIPS, ())]
        return [s for s in out if int(s.get("damage", 0)) < SUNK]
    b = own.get(AIR_BASES, {}).get(base)
    return [b] if b is not None else []


# The round's accessors: the strike reads and writes a side's air here.


def holdings_at(work: Work, side: Side, base: str) -> list[Holding]:
    """The holders of ``side``'s APs at ``base`` (a carrier TF or an air base)."""
    return holdings(work.own(side), base)


def air_at(work: Work, side: Side, base: str) -> dict[str, int]:
    """``side``'s APs by type at ``base`` (an air base or a carrier TF)."""
    return base_air(work.own(side), base)[2]


def tf_ships(work: Work, side: Side, tf: str) -> tuple[TaskForce, list[Ship]]:
    """``side``'s TF ``tf`` and its ships afloat, each named (7.8.1 Step 7: the sunk
    have left its box)."""
    own = work.own(side)
    entry = displayed(own, tf)
    return entry, afloat(own, entry)


def lose(work: Work, side: Side, where: str, ap_type: str, lost: int) -> int:
    """``lost`` APs of ``ap_type`` eliminated at ``side``'s base or carrier TF
    ``where``; the number removed."""
    return take_losses(work.own(side), where, ap_type, lost)


def lose_counted(work: Work, side: Side, base: str, key: str, ap_type: str, n: int) -> None:
    """``n`` of ``base``'s APs of ``ap_type`` counted under ``key`` (elite, green)
    eliminated: off the counts record by record, and no record left counting more
    APs than it holds."""
    for r in _holders(work.own(side), base):
        counts = r.get(key)
        if not counts or ap_type not in counts:
            continue
        cut = min(n, int(counts[ap_type]))
        n -= cut
        have = int(r.get("air", r.get("air_points", {})).get(ap_type, 0))
        counts[ap_type] = min(int(counts[ap_type]) - cut, have)


def set_damage(work: Work, side: Side, tf: str, ship: str, damage: int) -> None:
    """``side``'s ship ``ship`` in TF ``tf`` at damage level ``damage`` (7.8.1, 16.7;
    5: sunk)."""
    own = work.own(side)
    for entry in own[TFS][tf][SHIPS]:
        rec = record(own, entry)
        if rec["name"] == ship:
            rec["damage"] = damage


CAP_ABORTED = "cap_aborted"  # private[side]: {tf: {type: n}} aborted CAP (5.3.6)


def cap_aborted(work: Work, side: Side, tf: str) -> dict[str, int]:
    """5.1.1, 5.3.6: ``side``'s CAP over ``tf`` aborted earlier this phase, by type
    (its record is made when first read; the caller clears it when the phase ends)."""
    held: dict[str, dict[str, int]] = work.own(side).setdefault(CAP_ABORTED, {})
    return dict(held.setdefault(tf, {}))


def ground(work: Work, side: Side, tf: str, ap_type: str, n: int) -> None:
    """5.3.6: ``n`` of ``side``'s CAP APs of ``ap_type`` over ``tf`` aborted: they fly
    no later CAP this phase."""
    held = work.own(side).setdefault(CAP_ABORTED, {}).setdefault(tf, {})
    held[ap_type] = int(held.get(ap_type, 0)) + n


def mark_by_type(
    entries: Sequence[FlyingElement],
    counts: Mapping[str, int],
    mark: Callable[[FlyingElement], FlyingElement],
    *,
    marked_first: bool = True,
    skip: Callable[[FlyingElement], bool] = lambda e: False,
) -> list[FlyingElement]:
    """``counts[type]`` APs of each type among ``entries`` (a CAP's, level by level,
    lowest first) split off and marked (elite 7.11, AVG 6.2.3, green 58.2.1); an
    entry ``skip`` names is never marked (an elite AP is trained)."""
    left = dict(counts)
    out: list[FlyingElement] = []
    for e in entries:
        k = 0 if skip(e) else min(e.n, left.get(e.type, 0))
        left[e.type] = left.get(e.type, 0) - k
        parts = [(mark(replace(e, n=k)), k), (replace(e, n=e.n - k), e.n - k)]
        out += [p for p, m in (parts if marked_first else parts[::-1]) if m]
    return out
