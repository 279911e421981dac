"""13.7 Located chits: placed on a successful contact, public, and gone at the end of
the succeeding Air or Naval Phase (13.7.5).

``public["located"]`` (markers.py) maps "<owner>:<tf>" to the marker: the TF's owner
and number, its hex, the label ("Located 1A"), the game time it was placed, and
its source (ruling R15): ``air``, ``installation`` (13.8 first paragraph),
``coastwatcher``, ``surface``. Exceptions (13.7.5): a TF that does not move keeps
it, renewed each Naval Phase; night movement removes it unless a coastwatcher or
a surface TF placed it. Only air (and installation) contacts make a TF a target
for air strikes, and never one last reported as a dummy (5.1.6, 13.6.4, 13.8:
known.Knowledge.strike_target_problem, from what the striker knows).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from pbem.core.events import Event
from pbem.core.sides import SIDES, Side
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.markers import LOCATED, LocatedChit, Source
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.searchfacts import OfOwnersTf
from pbem.rulesets.witp.work import Work

KEY = LOCATED
PHASES = ("air1", "naval1", "air2", "naval2", "air3", "naval3")


SOURCES = tuple(Source)
SURVIVE_NIGHT = (Source.COASTWATCHER, Source.SURFACE)
STRIKE_SOURCES = (Source.AIR, Source.INSTALLATION, Source.SURFACE)


def on_map(work: Work) -> dict[str, LocatedChit]:
    """The Located chits on the map in the round's working state, by "<owner>:<tf>"."""
    return dict(work.markers().chits())


def _markers(work: Work) -> dict[str, LocatedChit]:
    """The chits on the map, their record made where the rules first mark or look up
    one (where the stored states have it)."""
    markers = work.markers()
    if markers.located is ABSENT:
        work.put_markers(markers.put(located={}))
    return dict(markers.chits())


def marked(work: Work) -> list[str]:
    """The "<owner>:<tf>" keys of the chits on the map."""
    return list(_markers(work))


def _keep(work: Work, chits: Mapping[str, LocatedChit]) -> None:
    work.put_markers(work.markers().put(located=chits))


def _put(work: Work, chit: LocatedChit) -> None:
    _keep(work, {**_markers(work), chit.key: chit})


def _take(work: Work, key: str) -> bool:
    """Take the chit ``key`` off the map; whether there was one."""
    chits = _markers(work)
    if chits.pop(key, None) is None:
        return False
    _keep(work, chits)
    return True


def ordinal(slot: Slot) -> int:
    """The Air or Naval Phase's place in the game (Strategic turns hold none)."""
    return slot.turn * len(PHASES) + PHASES.index(slot.phase.key)


def label(slot: Slot) -> str:
    return f"Located {slot.phase.key[-1]}{'A' if slot.phase.key.startswith('air') else 'N'}"


class Located(OfOwnersTf, kind="located"):
    """13.7.5: a Located chit placed, open to both sides: where, its label
    ("Located 1A") and what placed it (``Source``)."""

    hex: HexId
    label: str
    source: str


def place(work: Work, owner: Side, tf: str, hexid: HexId, source: str, slot: Slot) -> Event:
    """A Located chit on ``owner``'s TF ``tf``: open to both sides (13.7.5)."""
    if source not in SOURCES:
        raise ValueError(f"unknown Located source {source!r}")
    chit = LocatedChit(owner, tf, hexid, label(slot), ordinal(slot), slot.time, Source(source))
    _put(work, chit)
    told = Located(chit.owner, tf, chit.hex, chit.label, str(chit.source))
    return work.disclose(told, SIDES, slot.time, "13.7.5")


class LocatedRemoved(OfOwnersTf, kind="located-removed"):
    """13.7.5, 13.6.3: a Located chit taken off, and why."""

    why: str


def remove(work: Work, owner: Side, tf: str, slot: Slot, why: str, rule: str) -> list[Event]:
    if not _take(work, f"{owner}:{tf}"):
        return []
    return [work.disclose(LocatedRemoved(owner, tf, why), SIDES, slot.time, rule)]


def night_movement(work: Work, owner: Side, tf: str, slot: Slot) -> list[Event]:
    """13.7.5 exception 2: night movement removes it, unless a coastwatcher or a
    surface TF placed it."""
    marker = on_map(work).get(f"{owner}:{tf}")
    if marker is None or marker.source in SURVIVE_NIGHT:
        return []
    return remove(work, owner, tf, slot, "night movement", "13.7.5")


class LocatedRenewed(OfOwnersTf, kind="located-renewed"):
    """13.7.5: a TF that did not move keeps its chit, relabelled."""

    label: str


def end_of_phase(work: Work, slot: Slot, stationary: Collection[str] = ()) -> list[Event]:
    """At the end of an Air or Naval Phase: chits placed before it expire; at the end
    of a Naval Phase a TF that did not move keeps its chit, renewed ("Located 3N"),
    and at the end of an Air Phase one that did not move in the Naval Phase before
    it keeps it too (13.7.5 "for as long as they do not move"; ruling R51).
    ``stationary``: "<owner>:<tf>" keys of TFs that did not move in the phase (an
    Air Phase: in the Naval Phase before it)."""
    now = ordinal(slot)
    naval = slot.phase.key.startswith("naval")
    events: list[Event] = []
    for key, m in sorted(on_map(work).items()):
        if m.placed >= now:
            continue
        if not naval and key in stationary:
            continue  # R51: it has not moved since the last Naval Phase: still Located
        if naval and key in stationary:
            m = replace(m, placed=now, label=label(slot), time=slot.time)
            _put(work, m)
            told = LocatedRenewed(m.owner, m.tf, m.label)
            events.append(work.disclose(told, SIDES, slot.time, "13.7.5"))
        else:
            events += remove(work, m.owner, m.tf, slot, "expired", "13.7.5")
    return events


class LocatedMoved(OfOwnersTf, kind="located-moved"):
    """13.7.5, 15.1: a Located TF's marker moved with it."""

    hex: str


def moved(work: Work, owner: Side, tf: str, hexid: HexId, slot: Slot) -> list[Event]:
    """13.7.5, 15.1: a Located TF is on the map: its marker moves with it."""
    chit = _markers(work).get(f"{owner}:{tf}")
    if chit is None:
        return []
    _put(work, replace(chit, hex=hexid))
    told = LocatedMoved(owner, tf, hexid)
    return [work.disclose(told, SIDES, slot.time, "13.7.5, 15.1")]
