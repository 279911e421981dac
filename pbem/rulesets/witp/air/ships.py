"""A side's ships and air groups as the air rules read them: the one accessor module
for a side's air bases, carriers' air groups and their elite and green counts.

The TF Display lists a TF's ships by name (taskforces.py, details in
``own["ships"]``). The rules read them as typed values from the round's Work or a
side's Knowledge (``afloat``: taskforces.Ship; ``air_bases``: AirBase;
``holdings``: Holding; ``base_air``: Home) and write the losses, damage and counts
back through the round's accessors below (``lose``, ``lose_counted``,
``set_damage``, ``ground``); only the private decoders at the end touch the stored
records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, cast

from pbem.core.sides import Side
from pbem.rulesets.witp.air.bases import AirBase as AirBase
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.taskforces import (
    Parts,
    Ship,
    TaskForce,
    fleet,
    put_ship,
    ships_of,
    task_force,
    task_forces,
)
from pbem.rulesets.witp.work import Work

CARRIER_TYPES = ("CV", "CVL", "CVE", "XCV")
SUNK = 5


class Home(NamedTuple):
    """Where a side's APs fly from (4.3, 5.0): an air base, or a TF with embarked air."""

    label: str  # the base's name or the TF's marker, as the side's records spell it
    hex: str | None
    air: dict[str, int]  # APs by type
    carrier: bool


def air_bases(parts: Parts, side: str) -> dict[str, AirBase]:
    """The side's air bases."""
    return _bases(parts, side)


def afloat(parts: Parts, side: str, tf: TaskForce) -> list[Ship]:
    """The TF's ships afloat, as values (each named)."""
    return [s for s in ships_of(parts, side, tf) if s.damage < SUNK]


def tf_air(parts: Parts, side: str, tf: TaskForce) -> dict[str, int]:
    """The air groups embarked on the TF's carriers, by AP type."""
    return air_of(afloat(parts, side, tf))


def air_of(ships: Sequence[Ship]) -> dict[str, int]:
    """The air groups embarked on ``ships`` (a TF's carriers afloat), by AP type."""
    out: dict[str, int] = {}
    for s in ships:
        for t, n in (s.air or {}).items():
            out[t] = out.get(t, 0) + int(n)
    return out


def base_air(parts: Parts, side: str, name: str) -> Home:
    """``name``: an air base (spaces may be written as underscores, any case) or
    ``TFn`` with embarked air; KeyError."""
    key = name.replace("_", " ").strip().lower()
    for tf_id, tf in task_forces(parts, side).items():
        if tf_id.lower() == key.replace(" ", "") and not tf.dummy:
            return Home(tf_id, tf.hex, tf_air(parts, side, tf), True)
    for base, b in air_bases(parts, side).items():
        if base.lower() == key:
            return Home(base, b.hex, {t: int(n) for t, n in b.air_points.items()}, False)
    raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Holding:
    """One holder of a base's APs, by type (a carrier's air group, or the air base's
    APs), with how many of them are elite (7.11), elite with Night status (7.11.5)
    and green (58.1)."""

    aps: Mapping[str, int]
    elite: Mapping[str, int]
    night_elite: Mapping[str, int]
    green: Mapping[str, int]


def holdings(parts: Parts, side: str, base: str) -> list[Holding]:
    """The holders of ``side``'s APs at ``base``, as values: its carriers afloat if
    ``base`` is a TF, else the air base."""
    return [_holding(h) for h in _holders(parts, side, base)]


def _holding(h: Ship | AirBase) -> Holding:
    aps = h.air if isinstance(h, Ship) else h.air_points
    return Holding(aps or {}, h.elite or {}, h.night_elite or {}, h.green or {})


def _holders(parts: Parts, side: str, base: str) -> Sequence[Ship | AirBase]:
    """What holds ``base``'s APs and their counts (elite, green): its carriers afloat
    if ``base`` is a TF, else the air base (none: no such base)."""
    tf = task_forces(parts, side).get(base)
    if tf is not None:
        return afloat(parts, side, tf)
    b = air_bases(parts, side).get(base)
    return [b] if b is not None else []


# The round's accessors: the strike reads and writes a side's air here.


def air_at(work: Work, side: Side, base: str) -> dict[str, int]:
    """``side``'s APs by type at ``base`` (an air base or a carrier TF)."""
    return base_air(work, side, base).air


def tf_ships(work: Work, side: Side, tf: str) -> tuple[TaskForce, list[Ship]]:
    """``side``'s TF ``tf`` and its ships afloat, each named (7.8.1 Step 7: the sunk
    have left its box)."""
    entry = task_force(work, side, tf)
    return entry, afloat(work, side, entry)


def lose(work: Work, side: Side, where: str, ap_type: str, lost: int) -> int:
    """``lost`` APs of ``ap_type`` eliminated at ``side``'s base or carrier TF
    ``where`` (a TF's off its carriers in their order); the number removed."""
    left = lost
    for h in _holders(work, side, where):
        have = _aps(h).get(ap_type, 0)
        cut = min(have, left)
        if cut:
            _put(work, side, h, where, _air_key(h), {**_aps(h), ap_type: have - cut})
            left -= cut
    return lost - left


def lose_counted(work: Work, side: Side, base: str, key: str, ap_type: str, n: int) -> None:
    """``n`` of ``base``'s APs of ``ap_type`` counted under ``key`` (elite, green)
    eliminated: off the counts record by record, and no record left counting more
    APs than it holds."""
    for h in _holders(work, side, base):
        counts: Mapping[str, int] | None = getattr(h, key)
        if not counts or ap_type not in counts:
            continue
        cut = min(n, int(counts[ap_type]))
        n -= cut
        have = _aps(h).get(ap_type, 0)
        _put(work, side, h, base, key, {**counts, ap_type: min(counts[ap_type] - cut, have)})


def set_damage(work: Work, side: Side, tf: str, ship: str, damage: int) -> None:
    """``side``'s ship ``ship`` in TF ``tf`` at damage level ``damage`` (7.8.1, 16.7;
    5: sunk)."""
    for s in ships_of(work, side, task_force(work, side, tf)):
        if s.name == ship:
            put_ship(work, side, ship, replace(s, damage=damage))


def keep_names(work: Work, side: Side) -> None:
    """Each of the side's ships' records names its ship, as the stored games' have
    since their first Air Allocation Segment (5.0) read the carriers' air."""
    held = fleet(work, side)
    for tf in held.tfs.values():
        for name in tf.ships:
            s = held.ships.get(name)
            if s is not None and s.name is None:
                put_ship(work, side, name, replace(s, name=name))


def cap_aborted(work: Work, side: Side, tf: str) -> dict[str, int]:
    """5.1.1, 5.3.6: ``side``'s CAP over ``tf`` aborted earlier this phase, by type
    (its record is made when first read; the caller clears it when the phase ends)."""
    part = work.part(side)
    held = {} if part.cap_aborted is ABSENT else part.cap_aborted
    if tf not in held:
        work.put_part(side, part.put(cap_aborted={**held, tf: {}}))
    return dict(held.get(tf, {}))


def ground(work: Work, side: Side, tf: str, ap_type: str, n: int) -> None:
    """5.3.6: ``n`` of ``side``'s CAP APs of ``ap_type`` over ``tf`` aborted: they fly
    no later CAP this phase."""
    part = work.part(side)
    held = {} if part.cap_aborted is ABSENT else part.cap_aborted
    over = held.get(tf, {})
    over = {**over, ap_type: int(over.get(ap_type, 0)) + n}
    work.put_part(side, part.put(cap_aborted={**held, tf: over}))


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


# The private decoders: the side's stored records read and written here alone.


def _bases(parts: Parts, side: str) -> dict[str, AirBase]:
    return dict(parts.part(side).bases())


def _aps(h: Ship | AirBase) -> Mapping[str, int]:
    """The APs by type a holder holds: a carrier's air group, or the base's APs."""
    return (h.air if isinstance(h, Ship) else h.air_points) or {}


def _air_key(h: Ship | AirBase) -> str:
    return "air" if isinstance(h, Ship) else "air_points"


def _put(
    work: Work, side: Side, h: Ship | AirBase, base: str, key: str, counts: Mapping[str, int]
) -> None:
    """The holder ``h`` of ``base``'s APs with its ``key`` counts (its APs, elite,
    green) now ``counts``, stored back: a carrier's record, or the air base's
    (rewritten in place, its keys in their order)."""
    if isinstance(h, Ship):
        put_ship(work, side, str(h.name), replace(h, **{key: cast(Any, counts)}))
        return
    part = work.part(side)
    work.put_part(side, part.put(air_bases={**part.bases(), base: h.put(**{key: counts})}))
