"""Standing orders: decisions a side makes in the other side's phase (INT).

By mail the game cannot pause mid-phase for the non-moving player, so he says
in advance what he will do (``STANDING ...`` lines, kept until replaced), and
the engine applies the documented default where he said nothing. Standing
orders are seen only by their owner. ``INT_CASES`` is the list the player's
reference (docs/usn-orders.md) prints; a test checks it covers every case the
rules inventory flags INT.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pbem.core.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.usn.orders import Standing


@dataclass(frozen=True, slots=True)
class IntCase:
    rules: tuple[str, ...]
    decision: str
    order: str
    default: str


INT_CASES: tuple[IntCase, ...] = (
    IntCase(
        ("SEQ.2G", "NM.SURF.2"),
        "Ships attacked at sea: flee to an adjacent hex, stay and accept combat, or turn and fight",
        "STANDING SURFACE FLEE|STAY|FIGHT [<ship> ...]",
        "FLEE for every ship able to (MA at least the attackers' highest), to the first free "
        "hex among the three away from the attackers, lowest hex number first; others STAY",
    ),
    IntCase(
        ("SEQ.5E", "SEQ.5F.1", "SEQ.5G.1", "SEQ.5H.1", "SEQ.5I.1-2c"),
        "Combat air patrol in answer to the other side's announced strikes",
        "CAP <points> <type> <base or carrier> in the sealed air plot (ruling A12: CAP is "
        "committed blind with the allocation)",
        "no CAP except the automatic CAP of unallocated aircraft on a bombed air base (AM.BASE.TARGET)",
    ),
    IntCase(
        ("AM.CAP.OPTIONAL",),
        "Whether CAP engages an incoming strike",
        "STANDING CAP ENGAGE|DECLINE",
        "ENGAGE every strike over its hex",
    ),
    IntCase(
        ("SEQ.5H.2a", "SEQ.5I.1-2c", "CRT2.MIXED"),
        "Which enemy air types are lost when your CAP or AA fire hits a mixed force",
        "STANDING AIRKILL <type> <type> <type> (first type lost first)",
        "Japanese firing: LBAC NAC LAC; Allied firing: NAC LAC LBAC (most victory points first)",
    ),
    IntCase(
        ("NM.BOMBBASE.AIRLOSS", "AM.BASE.GROUNDED"),
        "Which of your own air types are lost on a bombed base",
        "STANDING AIRLOSS <type> <type> <type>",
        "Japanese: LAC LBAC NAC; Allied: LAC NAC LBAC (fewest enemy victory points first)",
    ),
    IntCase(
        ("CRT1.D2",),
        "Where a land unit forced to retreat goes",
        "STANDING RETREAT <unit> <hex> [<hex> ...] (first legal hex used)",
        "the adjacent land hex in supply, not across an all-sea hexside, with most friendly "
        "units, lowest hex number first; none: the unit is destroyed",
    ),
    IntCase(
        ("SUB.C", "SUB.H"),
        "Japanese submarines on station: which entering Allied unit each attacks",
        "STANDING SUBTARGET <type> <type> ... (Japanese)",
        "CV CVL CVE BB CA CL TR AT OIL DD: the first type present, top of the stack first",
    ),
    IntCase(
        ("SUB.H",),
        "How the Allied escorts' reductions are spread over attacking submarines",
        "STANDING SUBREDUCE SPREAD|FIRST (Allied)",
        "SPREAD: one point at a time over the submarines in turn",
    ),
)

DEFAULT_AIRKILL: dict[str, tuple[str, ...]] = {
    JAPANESE: ("LBAC", "NAC", "LAC"),
    ALLIED: ("NAC", "LAC", "LBAC"),
}
DEFAULT_AIRLOSS: dict[str, tuple[str, ...]] = {
    JAPANESE: ("LAC", "LBAC", "NAC"),
    ALLIED: ("LAC", "NAC", "LBAC"),
}
DEFAULT_SUBTARGET = ("CV", "CVL", "CVE", "BB", "CA", "CL", "TR", "AT", "OIL", "DD")


@dataclass(frozen=True, slots=True)
class StandingOrders:
    """One side's standing orders, with the defaults filled in."""

    side: Side
    surface_default: str = "FLEE"
    surface: Mapping[str, str] | None = None  # ship -> FLEE/STAY/FIGHT
    cap_engage: bool = True
    airkill: tuple[str, ...] = ()
    airloss: tuple[str, ...] = ()
    retreat: Mapping[str, tuple[int, ...]] | None = None
    subtarget: tuple[str, ...] = DEFAULT_SUBTARGET
    subreduce: str = "SPREAD"

    def surface_choice(self, ship: str) -> str:
        return (self.surface or {}).get(ship, self.surface_default)

    def retreat_hexes(self, unit: str) -> tuple[int, ...]:
        return (self.retreat or {}).get(unit, ())


def merge(current: Iterable[str], new: Iterable[Standing]) -> tuple[str, ...]:
    """Fold newly accepted STANDING orders into the side's kept lines.

    A later order on the same topic and ships replaces the earlier one;
    ``STANDING CLEAR`` forgets them all.
    """
    kept: dict[tuple[str, ...], str] = {}
    for line in current:
        kept[_slot(line.split()[1:])] = line
    for s in new:
        if s.topic == "CLEAR":
            kept.clear()
            continue
        kept[_slot([s.topic, *s.args])] = s.canonical()
    return tuple(kept.values())


def _slot(tokens: list[str]) -> tuple[str, ...]:
    topic = tokens[0]
    if topic == "SURFACE":
        return (topic, *tokens[2:])  # per ship list (empty = the side's default)
    if topic == "RETREAT":
        return (topic, tokens[1])
    return (topic,)


def resolve(side: Side, lines: Iterable[str]) -> StandingOrders:
    """The side's standing orders in force, defaults filled in."""
    surface: dict[str, str] = {}
    default = "FLEE"
    cap = True
    airkill: tuple[str, ...] = DEFAULT_AIRKILL[side]
    airloss: tuple[str, ...] = DEFAULT_AIRLOSS[side]
    retreat: dict[str, tuple[int, ...]] = {}
    subtarget: tuple[str, ...] = DEFAULT_SUBTARGET
    subreduce = "SPREAD"
    for line in lines:
        t = line.split()[1:]
        topic, args = t[0], t[1:]
        if topic == "SURFACE":
            if len(args) == 1:
                default = args[0]
            for ship in args[1:]:
                surface[ship] = args[0]
        elif topic == "CAP":
            cap = args[0] == "ENGAGE"
        elif topic == "AIRKILL":
            airkill = tuple(args)
        elif topic == "AIRLOSS":
            airloss = tuple(args)
        elif topic == "RETREAT":
            retreat[args[0]] = tuple(int(h) for h in args[1:])
        elif topic == "SUBTARGET":
            subtarget = tuple(args)
        elif topic == "SUBREDUCE":
            subreduce = args[0]
    return StandingOrders(
        side, default, surface, cap, airkill, airloss, retreat, subtarget, subreduce
    )
