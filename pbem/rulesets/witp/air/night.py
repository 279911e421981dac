"""14.2.3 US PBY night attacks ("Black Cats"): before entering the Air-Surface
Display each torpedo-armed US PBY AP of a night strike rolls 1D6 on the PBY Night
Contact Table (the pack's ``tables.pby-night-contact``), +1 when its target is 25
MP or less away: 1 no contact and the AP destroyed, 2-3 no contact (it goes home
without attacking), 4-6 contact (R136). Which types roll is the Air Point Chart's
``night_contact`` (US PBYs; CW Catalinas do not, 14.2.3 Note). The rolls are open,
as a striker's dice are (R136).

14.2.2 at plot time (R137): a NIGHT strike plotted in an Air Phase is refused when
the plotting side was itself told that its target moved in the last two Naval
Phases; otherwise the moderator's count decides when it flies (R109).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from pbem.core.dice import Dice
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.tables import PBY_NIGHT, Pack, air_unit, value
from pbem.rulesets.witp.clock import TurnTrack
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.located import LocatedMoved, LocatedRemoved
from pbem.rulesets.witp.records import Record

DESTROYED, NO_CONTACT, CONTACT = "destroyed", "no contact", "contact"


@dataclass(frozen=True, slots=True)
class ContactRoll(Record):
    """14.2.3: one PBY AP's night contact roll, as both are told it."""

    type: str
    base: str
    roll: int
    drm: int
    result: str


@dataclass(frozen=True, slots=True)
class Contact:
    """The contact rolls of one night strike: who goes on, who is lost."""

    going_on: tuple[FlyingElement, ...] = ()
    destroyed: Mapping[str, int] = field(default_factory=dict)  # by type
    rolls: tuple[ContactRoll, ...] = ()  # as told: one an AP


def rolls_for(pack: Pack, element: FlyingElement) -> bool:
    """14.2.3: a torpedo-armed AP of a type that rolls for night contact."""
    unit = air_unit(pack, element.type)
    return element.role == "T" and unit.night_contact


def result(pack: Pack, roll: int, drm: int) -> str:
    """The PBY Night Contact Table, the modified roll."""
    t = value(pack, PBY_NIGHT)
    dr = roll + drm
    if dr <= int(t["destroyed_at_most"]):
        return DESTROYED
    return NO_CONTACT if dr <= int(t["no_contact_at_most"]) else CONTACT


def drm(pack: Pack, mp: int) -> int:
    """+1 when the range to the target is 25 MP or less."""
    t = value(pack, PBY_NIGHT)
    return int(t["near_drm"]) if mp <= int(t["near_mp"]) else 0


def contact(
    pack: Pack,
    survivors: Sequence[FlyingElement],
    mp_of: Mapping[str, int],
    dice: Dice,
) -> Contact:
    """Each surviving AP that must roll (``mp_of``: the range flown, by base) rolls
    alone; the others go on untouched."""
    going_on: list[FlyingElement] = []
    destroyed: dict[str, int] = {}
    rolls: list[ContactRoll] = []
    for e in survivors:
        if not rolls_for(pack, e):
            going_on.append(e)
            continue
        base = str(e.base)
        mod = drm(pack, int(mp_of.get(base, 0)))
        found = 0
        for _ in range(e.n):
            roll = dice.d6(f"PBY night contact {e.type}")
            res = result(pack, roll, mod)
            rolls.append(ContactRoll(e.type, base, roll, mod, res))
            found += res == CONTACT
            if res == DESTROYED:
                destroyed[e.type] = destroyed.get(e.type, 0) + 1
        if found:
            going_on.append(replace(e, n=found))
    return Contact(tuple(going_on), destroyed, tuple(rolls))


# -- 14.2.2 at plot time: what the plotting side itself saw (R137) ------------------

STATIONARY_PHASES = 2  # 14.2.2: "any two consecutive Naval Phases"
MOVED = "night movement"  # located.night_movement's reason for the chit's removal


def last_naval_phases(clock: TurnTrack, n: int = STATIONARY_PHASES) -> list[str]:
    """The game-time prefixes ("T1/naval2/") of the ``n`` Naval Phases before the
    pending round."""
    slots = clock.slots
    out: list[str] = []
    for slot in reversed(slots[: min(clock.at, len(slots))]):
        prefix = slot.time.rsplit("/", 1)[0] + "/"
        if slot.phase.key.startswith("naval") and prefix not in out:
            out.append(prefix)
        if len(out) == n:
            break
    return out


def seen_moving(knowledge: Knowledge, owner: str, tf: str) -> str | None:
    """The game time at which this side was told ``owner``'s TF ``tf`` moved in one of
    the last two Naval Phases (its Located marker moved with it by day, 13.7.5, R52,
    or night movement took the chit, 13.7.5); None if it was told no such thing.
    Read from the side's own knowledge: it leaks nothing of the enemy's movement."""
    window = last_naval_phases(knowledge.clock)
    for d in reversed(knowledge.disclosed):
        f = _marker_news(d.fact)
        if f is None or f.owner != owner or f.tf != tf:
            continue
        if not any(d.time.startswith(p) for p in window):
            continue
        if isinstance(f, LocatedMoved) or f.why == MOVED:
            return d.time
    return None


def _marker_news(fact: Fact) -> LocatedMoved | LocatedRemoved | None:
    """A Located marker moved or taken off, typed; None: another fact."""
    if fact.kind == LocatedMoved.KIND:
        return LocatedMoved.read(fact)
    return LocatedRemoved.read(fact) if fact.kind == LocatedRemoved.KIND else None
