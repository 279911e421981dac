"""10.1.2, 38.3.1 Ships in port under air attack.

A TF in port (its ``in_port``: the port it lies in, 38.3, 18.4.1) is defended by
the port's AA as well as its ships' (the AA Table's port values: the pack's
``tables.port-aa``, by port type), against every component of every wave, with no
column shifts (10.3); torpedo ("T") APs attacking it have their attack strength
halved, rounded down; and before each wave's attack the striker rolls 1D6 on the
In-Port Surprise Attack Table: -1 for each successive wave, -2 if a launching
carrier TF is currently Located; the result lowers the speed class of the ships
attacked (cumulative with the other reductions, 7.8.1 Step 3). R131.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pbem.core.dice import Dice
from pbem.rulesets.witp.air.flying import LaunchedPart
from pbem.rulesets.witp.air.tables import Pack, value

PORT_AA, SURPRISE = "tables/port-aa", "tables/in-port-surprise"


def port_aa(pack: Pack, port: str) -> int:
    """The port's AA strength (the AA Table's value for its type)."""
    t = value(pack, PORT_AA)
    kind = str(t["ports"].get(port, t["default_type"]))
    return int(t["by_type"][kind])


def port_fire(pack: Pack, port: str | None, *, night: bool) -> int:
    """The port's AA added against a component: at night halved, rounded down, as
    the ships' is (14.2.2; R131, pbem's)."""
    if port is None:
        return 0
    aa = port_aa(pack, port)
    return aa // 2 if night else aa


def torpedo_strength(torpedo: int, port: str | None) -> int:
    """38.3.1: T-type APs attacking ships in port at half strength, rounded down."""
    return torpedo // 2 if port is not None else torpedo


def located_launcher(located: Collection[str], side: str, parts: Sequence[LaunchedPart]) -> bool:
    """A carrier part's launching TF is currently Located (``located``: the keys
    "side:TF" of the Located chits on the map)."""
    return any(p.carrier and f"{side}:{p.base}" in located for p in parts)


@dataclass(frozen=True, slots=True)
class Surprise:
    """38.3.1: the In-Port Surprise 1D6, its DRM and the speed-class reduction."""

    roll: int
    drm: int
    reduction: int


def surprise(pack: Pack, dice: Dice, wave: int, launcher_located: bool, purpose: str) -> Surprise:
    """38.3.1: the striker's 1D6 before wave ``wave`` (0: the first) attacks."""
    t = value(pack, SURPRISE)
    roll = dice.d6(purpose)
    drm = -int(t["successive_wave_drm"]) * wave
    drm -= int(t["located_carrier_drm"]) if launcher_located else 0
    total = roll + drm
    reduction = next((int(r) for at, r in t["results"] if total >= int(at)), 0)
    return Surprise(roll, drm, reduction)
