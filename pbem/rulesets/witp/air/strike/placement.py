"""7.2 placement on the Air/Surface Tactical Display, face down (told to the striker
by ring, arc, type and "at least D2"; at night nothing but the arc, 14.2.2); 38.3.1
ships in port; 7.1 B the altitudes the strike uses, and whether each is escorted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from pbem.core.events import Event
from pbem.rulesets.witp.air import display, port
from pbem.rulesets.witp.air.display import Position
from pbem.rulesets.witp.air.ships import SUNK
from pbem.rulesets.witp.air.strike.contact import Target
from pbem.rulesets.witp.air.strike.launch import Launch
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import Record
from pbem.rulesets.witp.taskforces import Ship

LEVELS = ("L", "M", "H")  # 5.2: Low, Medium, High


@dataclass(frozen=True, slots=True)
class Display:
    """7.2: the target TF on the Air/Surface Tactical Display: each ship's position
    by name, the ships by name, and the port it lies in (38.3.1; None: at sea)."""

    positions: Mapping[str, Position]
    ships: Mapping[str, Ship]
    in_port: str | None

    def afloat(self, names: list[str]) -> list[str]:
        """Those of ``names`` not sunk (damage 5)."""
        return [n for n in names if self.ships[n].damage < SUNK]

    def damaged(self, name: str, damage: int) -> Display:
        """The display with ship ``name`` at damage level ``damage`` (7.8.1)."""
        ship = replace(self.ships[name], damage=damage)
        return replace(self, ships={**self.ships, name: ship})


@dataclass(frozen=True, slots=True)
class FaceDown(Record):
    """7.2.1: a ship's counter placed face down, as the striker sees it: its ring and
    arc, type, and whether it is damaged D2 or worse (at night the type "?" and no
    damage, 14.2.2)."""

    ring: str
    arc: int
    type: str
    at_least_d2: bool


class AirSurfacePlacement(Fact, kind="air-surface-placement"):
    """7.2.1: the target TF placed face down, as the striker sees it."""

    tf: str
    ships: tuple[FaceDown, ...]


class ShipsInPort(Fact, kind="ships-in-port"):
    """38.3.1: the target TF lies in port: the port's AA fires too, torpedoes at half
    strength (both told)."""

    tf: str
    port: str
    port_aa: int


class StrikeAltitudes(Fact, kind="strike-altitudes"):
    """7.1 B: the levels the bombers fly, each "escorted" or "unescorted" (both told)."""

    tf: str
    levels: Mapping[str, str]


def place(r: Resolution, target: Target) -> tuple[Display, list[Event]]:
    """7.2 placement, face down; then whether the TF lies in port (38.3.1). The
    events told."""
    positions = display.place(r.work.pack, target.ships, target.priority)
    by_name = {str(s.name): s for s in target.ships}
    night = r.strike.night
    seen = [
        FaceDown(
            p[0], p[1], "?" if night else by_name[n].type, not night and by_name[n].damage >= 2
        )
        for n, p in sorted(
            positions.items(),
            # by position and type, never by name: the counters are face down
            key=lambda kv: (
                display.RINGS.index(kv[1][0]),
                kv[1][1],
                by_name[kv[0]].type,
                by_name[kv[0]].damage >= 2,
            ),
        )
    ]
    placed = AirSurfacePlacement(r.strike.tf, tuple(seen))
    told = [r.tell(placed, [r.strike.side], "14.2.2" if night else "7.2.1")]
    in_port = target.tf.in_port
    if in_port:  # 10.1.2, 38.3.1: the port's AA fires too, torpedoes halved, surprise
        aa = port.port_aa(r.work.pack, in_port)
        told.append(r.tell_both(ShipsInPort(r.strike.tf, in_port, aa), "38.3.1"))
    return Display(positions, by_name, in_port), told


def altitudes(r: Resolution, launch: Launch) -> tuple[tuple[str, ...], Event]:
    """7.1 B: the levels the bombers fly, told to both with whether each is escorted."""
    bombers, escorts = launch.bombers, launch.escorts
    levels = tuple(lv for lv in LEVELS if any(e.alt == lv for e in bombers))
    occupied = {
        lv: ("escorted" if any(e.alt == lv for e in escorts) else "unescorted") for lv in levels
    }
    return levels, r.tell_both(StrikeAltitudes(r.strike.tf, occupied), "7.1")
