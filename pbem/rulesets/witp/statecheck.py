"""The War in the Pacific state checked on the rules' own terms (the moderator's EDIT
must leave a state these checks pass: pbem.core.ruleset.CheckedState).

The state is read through its typed codec (state.WitpState, each side's private part
as sidepart.SidePart: its TF Display and ship records, its air bases): a part
that does not decode is a problem. Then the few ranges the rules give: a ship's
damage level 0 to 5, 5 sunk (7.8.1, 16.8); Air Points counted, never negative
(4.0, 5.0); the ships of a TF's box are the side's ships (16.2); the Turn Record
Track within the scenario's Game-Turns (3.0).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pbem.core.sides import SIDES, Side
from pbem.rulesets.witp.air.ships import SUNK, AirBase
from pbem.rulesets.witp.play import GAME_TURNS
from pbem.rulesets.witp.sidepart import NO_PART
from pbem.rulesets.witp.state import WitpState
from pbem.rulesets.witp.taskforces import Fleet, Ship


def state_problems(raw: Mapping[str, Any]) -> list[str]:
    """What in the stored state ``raw`` the rules cannot hold, one sentence each."""
    try:
        state = WitpState.from_json(raw)
        parts = {Side(side): state.private.get(Side(side), NO_PART) for side in SIDES}
        fleets = {side: Fleet.of(part) for side, part in parts.items()}
        bases = {side: dict(part.bases()) for side, part in parts.items()}
    except Exception as exc:  # any failure of the codec on the edited state
        return [f"the state does not read as a WitP state ({type(exc).__name__}: {exc})"]
    problems = list(_clock_problems(state))
    for side in SIDES:
        problems += _fleet_problems(side, fleets[side])
        problems += _base_problems(side, bases[side])
    return problems


def _clock_problems(state: WitpState) -> Iterator[str]:
    """3.0: the Turn Record Track's marker on the scenario's schedule."""
    clock = state.public.clock
    item = state.public.pack.get(GAME_TURNS)
    game_turns = item.value if item is not None else clock.game_turns
    if clock.game_turns != game_turns:
        yield f"clock game_turns {clock.game_turns} is not {game_turns}, the scenario's (3.0)"
    if not 1 <= clock.turn_in_cycle <= 4:
        yield f"clock turn_in_cycle {clock.turn_in_cycle} is not 1 to 4 (3.0)"
        return
    last = len(clock.slots)
    if not 0 <= clock.at <= last:
        yield f"clock at {clock.at} is not 0 to {last}, the scenario's segments (3.0)"


def _fleet_problems(side: str, fleet: Fleet) -> Iterator[str]:
    """16.2: a TF's ships are the side's; 7.8.1, 16.8: damage 0 to 5 (5 sunk)."""
    for tf_id, tf in fleet.tfs.items():
        for name in tf.ships:
            if name not in fleet.ships:
                yield f"{side} {tf_id} lists {name}, which is no ship of {side} (16.2)"
    for name, ship in fleet.ships.items():
        if not _whole(ship.damage) or not 0 <= ship.damage <= SUNK:
            yield f"{side} {name}: damage {ship.damage!r} is not 0 to {SUNK} (7.8.1: {SUNK} sunk)"
        yield from _ap_problems(f"{side} {name}", _ship_aps(ship))


def _ship_aps(ship: Ship) -> Mapping[str, Any]:
    counts = (ship.air, ship.elite, ship.green, ship.night_elite)
    return {
        f"{t} {label}": n
        for label, c in zip(_LABELS, counts, strict=True)
        for t, n in (c or {}).items()
    }


def _base_problems(side: str, bases: Mapping[str, AirBase]) -> Iterator[str]:
    for name, base in bases.items():
        counts = (base.air_points, base.elite, base.green, base.night_elite)
        aps = {
            f"{t} {lb}": n
            for lb, c in zip(_LABELS, counts, strict=True)
            for t, n in (c or {}).items()
        }
        yield from _ap_problems(f"{side} air base {name}", aps)


_LABELS = ("APs", "elite", "green", "night elite")


def _ap_problems(where: str, aps: Mapping[str, Any]) -> Iterator[str]:
    """4.0, 5.0: Air Points are counted, never negative."""
    for what, n in aps.items():
        if not _whole(n) or n < 0:
            yield f"{where}: {what} {n!r} is not a count of 0 or more (4.0)"


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
