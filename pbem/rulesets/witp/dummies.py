"""13.6 Dummy TFs: the per-cycle sortie allotments, deployment, and definitive
revelation.

Allotments live in each side's private part (``dummy_allotment``: {cycle, allowed,
sorties}); the Japanese roll is secret (13.6), the Allied one is made with the SI
levels (treated as secret, hidden-info §3.3). A dummy is deployed by REGP into a
hex holding a friendly TF (17.11); renumbering it is no new sortie (13.6.7). A
TF is definitively revealed by a sub, coastwatcher or surface contact, or an air
strike launched at it (13.6.3): its chits go back to the cups (13.6.5) and a
dummy's marker leaves the map, openly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import JAPANESE, SIDES, Side
from pbem.rulesets.witp import chits, located
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, PUBLIC, Fact, disclose
from pbem.rulesets.witp.searchfacts import OfOwnersTf

JAPANESE_TABLE = "tables/japanese-dummy-allotment"
DEFER = "defer_dummy_removal"  # moderator flag: TFs are moving (searchplay.py)
ALLOTMENT = "dummy_allotment"  # the side's private part


@dataclass(frozen=True, slots=True)
class DummyAllotment:
    """13.6: a side's dummy TF sorties for a cycle: how many it may make and how many
    it has made (dummies still at sea count against it, 13.6.7)."""

    cycle: int
    allowed: int
    sorties: int

    @property
    def left(self) -> int:
        return self.allowed - self.sorties

    def sortie(self) -> DummyAllotment:
        return replace(self, sorties=self.sorties + 1)

    def to_json(self) -> dict[str, Any]:
        return {"cycle": self.cycle, "allowed": self.allowed, "sorties": self.sorties}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> DummyAllotment:
        return cls(raw["cycle"], raw["allowed"], raw["sorties"])


def allotment(own: Mapping[str, Any]) -> DummyAllotment | None:
    """The side's allotment this cycle; None before the first is rolled."""
    raw = own.get(ALLOTMENT)
    return None if raw is None else DummyAllotment.from_json(raw)


def remove_revealed(state: dict[str, Any]) -> None:
    """Dummies revealed while TFs moved leave the TF Display once movement ends."""
    for side in SIDES:
        own = state[PRIVATE][side]
        for tf in [t for t, rec in tfs.display(own).items() if rec.revealed]:
            del own[tfs.TFS][tf]


class DummyAllotted(Fact, kind="dummy-allotment"):
    """13.6: a side's dummy sorties for the cycle, and the 2D6 that set them (its own)."""

    cycle: int
    rolls: tuple[int, ...]
    allowed: int


def allot_dummies(state: dict[str, Any], dice: Dice, time: str, cycle: int) -> list[Event]:
    """13.6: each side's dummy sorties for the cycle, told to that side alone.
    Japanese: 2D6 on the Japanese Dummy TF Allotment (a 7 rolls 1D6 more), secretly;
    Allied: the Allied SI level plus the difference of 2D6. Dummies still at sea
    count against the new allotment (13.6.7)."""
    pack = public_pack(state[PUBLIC])
    events: list[Event] = []
    for side in SIDES:
        a, b = dice.d6(f"dummy allotment {side} {time}"), dice.d6(f"dummy allotment {side} {time}")
        if side == JAPANESE:
            rows = tfs.value(pack, JAPANESE_TABLE)["rows"]
            row = next(r for r in rows if r["roll"][0] <= a + b <= r["roll"][1])
            granted = (
                dice.d6(f"dummy allotment {side} {time} 1D6")
                if row["dummies"] == "1D6"
                else int(row["dummies"])
            )
        else:
            granted = int(tfs.value(pack, "scenario/si-levels")["allied"]) + abs(a - b)
        own = state[PRIVATE][side]
        at_sea = sum(1 for t in tfs.display(own).values() if t.dummy)
        own[ALLOTMENT] = DummyAllotment(cycle, granted, at_sea).to_json()
        told = DummyAllotted(cycle, (a, b), granted)
        events.append(disclose(state, told, [side], time, "13.6"))
    return events


def japanese_allotment(public: Mapping[str, Any], secret: Dice) -> tuple[int, list[int]]:
    """13.6: 2D6 on the Japanese Dummy TF Allotment table; on 7, 1D6 more."""
    a, b = secret.d6("dummy allotment japanese"), secret.d6("dummy allotment japanese")
    for row in public["pack"][JAPANESE_TABLE]["value"]["rows"]:
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
    state: dict[str, Any], side: str, cycle: int, allowed: int, rolls: list[int], slot: Slot
) -> Event:
    """The side's allotment for ``cycle``; dummies still at sea count against it (13.6.7)."""
    at_sea = sum(1 for t in tfs.display(state[PRIVATE][side]).values() if t.dummy and t.hex)
    state[PRIVATE][side][ALLOTMENT] = DummyAllotment(cycle, allowed, at_sea).to_json()
    fact = {
        "kind": "dummy-allotment",
        "cycle": cycle,
        "allowed": allowed,
        "rolls": rolls,
        "at_sea": at_sea,
    }
    return disclose(state, fact, [side], slot.time, "13.6")


def check_deployment(own: Mapping[str, Any], hexid: str) -> None:
    """Raise IllegalOrderError unless a dummy may sortie into ``hexid`` now."""
    allot = allotment(own) or DummyAllotment(0, 0, 0)
    if allot.left <= 0:
        raise IllegalOrderError(
            f"your {allot.allowed} dummy sorties of this cycle are used", rule="13.6.7"
        )
    if not any(t.hex == hexid and not t.dummy for t in tfs.display(own).values()):
        raise IllegalOrderError(
            f"a dummy deploys by REGP into a hex holding a friendly TF; none is at {hexid}",
            rule="17.11",
        )


def deploy(state: dict[str, Any], side: str, tf: str, hexid: str) -> None:
    """A dummy sorties (after ``check_deployment``)."""
    own = state[PRIVATE][side]
    check_deployment(own, hexid)
    own[ALLOTMENT] = (allotment(own) or DummyAllotment(0, 0, 0)).sortie().to_json()
    tfs.store(own, tf, tfs.TaskForce(HexId(hexid), dummy=True, speed_class="SC3"))


class DummyRevealed(OfOwnersTf, kind="dummy-revealed"):
    """13.6.3: a TF definitively revealed was a dummy (``by``: what revealed it)."""

    by: str


def reveal(state: dict[str, Any], owner: str, tf: str, how: str, slot: Slot) -> list[Event]:
    """13.6.3: ``owner``'s TF is definitively revealed by ``how``. Chits return (13.6.5);
    a dummy leaves the map, openly, and both sides are told it was a dummy."""
    chits.return_chits(state, owner, tf)
    own = state[PRIVATE][owner]
    rec = tfs.display(own).get(tf)
    if rec is None or not rec.dummy:
        return []
    events = located.remove(state, owner, tf, slot, "definitively revealed", "13.6.3")
    if state.get(MODERATOR, {}).get(DEFER):  # mid-move: off the display when it ends
        tfs.store(own, tf, replace(tfs.displayed(own, tf), revealed=how))
    else:
        del own[tfs.TFS][tf]
    state[PUBLIC].setdefault("revealed_dummies", []).append(
        {"owner": owner, "tf": tf, "time": slot.time}
    )
    told = DummyRevealed(Side(owner), tf, how)
    return [*events, disclose(state, told, SIDES, slot.time, "13.6.3")]
