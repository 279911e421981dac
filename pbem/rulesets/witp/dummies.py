"""13.6 Dummy TFs: the per-cycle sortie allotments, deployment, and definitive
revelation.

Allotments live in each side's private part (``dummy_allotment``: {cycle, allowed,
sorties}); the Japanese roll is secret (13.6), the Allied one is made with the SI
levels (treated as secret: docs/witp-rulings.md). A dummy is deployed by REGP into a
hex holding a friendly TF (17.11); renumbering it is no new sortie (13.6.7). A
TF is definitively revealed by a sub, coastwatcher or surface contact, or an air
strike launched at it (13.6.3): its chits go back to the cups (13.6.5) and a
dummy's marker leaves the map, openly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import JAPANESE, SIDES, Side
from pbem.rulesets.witp import chits, located
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.markers import RevealedDummy
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.searchfacts import OfOwnersTf
from pbem.rulesets.witp.sidepart import DummyAllotment as DummyAllotment
from pbem.rulesets.witp.work import Work

JAPANESE_TABLE = "tables/japanese-dummy-allotment"
SI_LEVELS = "scenario/si-levels"


def allotment(parts: tfs.Parts, side: str) -> DummyAllotment | None:
    """The side's allotment this cycle (in the round's Work, or as the side knows
    it); None before the first is rolled."""
    allot = parts.part(side).dummy_allotment
    return None if allot is ABSENT else allot


def put_allotment(work: Work, side: Side, allot: DummyAllotment) -> None:
    """The side's allotment this cycle is ``allot`` (13.6)."""
    work.put_part(side, work.part(side).put(dummy_allotment=allot))


def _off_display(work: Work, side: Side, tf: str) -> None:
    """The TF's marker leaves the TF Display (13.6.3)."""
    tfs.remove(work, side, tf)


def deferring(work: Work) -> bool:
    """Whether TFs are moving (``moving``): a revealed dummy waits for the move's end."""
    return work.moderator().defer_dummy_removal is True


def defer_removal(work: Work, defer: bool) -> None:
    """While TFs move (searchplay.moving), a revealed dummy stays on the display."""
    work.put_moderator(work.moderator().put(defer_dummy_removal=True if defer else ABSENT))


def _record_revealed(work: Work, owner: Side, tf: str, time: str) -> None:
    markers = work.markers()
    revealed = (*markers.revealed(), RevealedDummy(owner, tf, time))
    work.put_markers(markers.put(revealed_dummies=revealed))


def remove_revealed(work: Work) -> None:
    """Dummies revealed while TFs moved leave the TF Display once movement ends."""
    for side in SIDES:
        display = tfs.task_forces(work, side)
        for tf in [t for t, rec in display.items() if rec.revealed]:
            _off_display(work, side, tf)


class DummyAllotted(Fact, kind="dummy-allotment"):
    """13.6: a side's dummy sorties for the cycle, and the 2D6 that set them (its own)."""

    cycle: int
    rolls: tuple[int, ...]
    allowed: int


def allot_dummies(work: Work, dice: Dice, time: str, cycle: int) -> list[Event]:
    """13.6: each side's dummy sorties for the cycle, told to that side alone.
    Japanese: 2D6 on the Japanese Dummy TF Allotment (a 7 rolls 1D6 more), secretly;
    Allied: the Allied SI level plus the difference of 2D6. Dummies still at sea
    count against the new allotment (13.6.7)."""
    events: list[Event] = []
    for side in SIDES:
        a, b = dice.d6(f"dummy allotment {side} {time}"), dice.d6(f"dummy allotment {side} {time}")
        if side == JAPANESE:
            rows = work.pack[JAPANESE_TABLE].value["rows"]
            row = next(r for r in rows if r["roll"][0] <= a + b <= r["roll"][1])
            granted = (
                dice.d6(f"dummy allotment {side} {time} 1D6")
                if row["dummies"] == "1D6"
                else int(row["dummies"])
            )
        else:
            granted = int(work.pack[SI_LEVELS].value["allied"]) + abs(a - b)
        at_sea = sum(1 for t in tfs.task_forces(work, side).values() if t.dummy)
        put_allotment(work, side, DummyAllotment(cycle, granted, at_sea))
        told = DummyAllotted(cycle, (a, b), granted)
        events.append(work.disclose(told, [side], time, "13.6"))
    return events


def japanese_allotment(pack: Mapping[str, PackItem], secret: Dice) -> tuple[int, list[int]]:
    """13.6: 2D6 on the Japanese Dummy TF Allotment table; on 7, 1D6 more."""
    a, b = secret.d6("dummy allotment japanese"), secret.d6("dummy allotment japanese")
    for row in pack[JAPANESE_TABLE].value["rows"]:
        if row["roll"][0] <= a + b <= row["roll"][1]:
            if row["dummies"] == "1D6":
                c = secret.d6("dummy allotment japanese 1D6")
                return c, [a, b, c]
            return int(row["dummies"]), [a, b]
    raise ValueError(f"no row for {a + b}")


def allied_allotment(si_level: int, secret: Dice) -> tuple[int, list[int]]:
    """13.6: the Allied SI level plus the differential of one 2D6 roll."""
    a, b = secret.d6("dummy allotment allied"), secret.d6("dummy allotment allied")
    return si_level + abs(a - b), [a, b]


def set_allotment(
    work: Work, side: Side, cycle: int, allowed: int, rolls: Sequence[int], slot: Slot
) -> Event:
    """The side's allotment for ``cycle``; dummies still at sea count against it (13.6.7)."""
    at_sea = sum(1 for t in tfs.task_forces(work, side).values() if t.dummy and t.hex)
    put_allotment(work, side, DummyAllotment(cycle, allowed, at_sea))
    told = DummyAllotted(cycle, tuple(rolls), allowed)
    return work.disclose(told, [side], slot.time, "13.6")


def check_deployment(
    allot: DummyAllotment | None, display: Mapping[str, tfs.TaskForce], hexid: str
) -> None:
    """Raise IllegalOrderError unless a dummy may sortie into ``hexid`` now, with
    ``allot`` and the side's TF Display ``display``."""
    allot = allot or DummyAllotment(0, 0, 0)
    if allot.left <= 0:
        raise IllegalOrderError(
            f"your {allot.allowed} dummy sorties of this cycle are used", rule="13.6.7"
        )
    if not any(t.hex == hexid and not t.dummy for t in display.values()):
        raise IllegalOrderError(
            f"a dummy deploys by REGP into a hex holding a friendly TF; none is at {hexid}",
            rule="17.11",
        )


def deploy(work: Work, side: Side, tf: str, hexid: HexId) -> None:
    """A dummy sorties (after ``check_deployment``)."""
    allot = allotment(work, side)
    check_deployment(allot, tfs.task_forces(work, side), hexid)
    put_allotment(work, side, (allot or DummyAllotment(0, 0, 0)).sortie())
    tfs.put(work, side, tf, tfs.TaskForce(hexid, dummy=True, speed_class="SC3"))


class DummyRevealed(OfOwnersTf, kind="dummy-revealed"):
    """13.6.3: a TF definitively revealed was a dummy (``by``: what revealed it)."""

    by: str


def reveal(work: Work, owner: Side, tf: str, how: str, slot: Slot) -> list[Event]:
    """13.6.3: ``owner``'s TF is definitively revealed by ``how``. Chits return (13.6.5);
    a dummy leaves the map, openly, and both sides are told it was a dummy."""
    chits.return_chits(work, owner, tf)
    rec = tfs.task_forces(work, owner).get(tf)
    if rec is None or not rec.dummy:
        return []
    events = located.remove(work, owner, tf, slot, "definitively revealed", "13.6.3")
    if deferring(work):  # mid-move: off the display when it ends
        tfs.update(work, owner, tf, revealed=how)
    else:
        _off_display(work, owner, tf)
    _record_revealed(work, owner, tf, slot.time)
    told = DummyRevealed(owner, tf, how)
    return [*events, work.disclose(told, SIDES, slot.time, "13.6.3")]
