"""A game's state, set up from its data pack, and a mail round played through.

The state is the knowledge model's four parts (knowledge.py): ``public`` holds
the clock and the game's charts and rulings (the pack's public items); ``private`` each side's forces (its order of battle, with
provenance) and its last plot; ``disclosures`` what crossed to a side;
``moderator`` what only the umpire holds (nothing yet in stage 0).

A round resolves its slots in order: the plot segment files each side's plot,
an initiative segment rolls 3.2's dice, the end of a Game-Turn or cycle moves
the marker (3.1 I, 50.0 J); a segment of a later stage is passed over.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import DataError
from pbem.core.events import Event
from pbem.rulesets.witp import initiative
from pbem.rulesets.witp.clock import Round, Slot, cycle_of, round_at, schedule
from pbem.rulesets.witp.datapack import DataPack
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR, PRIVATE, PUBLIC, disclose
from pbem.rulesets.witp.sides import SIDES

GAME_TURNS = "scenario/game-turns"
START_DATE = "scenario/start-date"
TURN_IN_CYCLE = "scenario/turn-in-cycle"
INITIATIVE_CHOICE = "rulings/initiative-choice"
CLOCK_ITEMS = (GAME_TURNS, START_DATE, TURN_IN_CYCLE)


def _int_item(pack: DataPack, key: str, low: int, high: int) -> int:
    value = pack.value(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise DataError(
            key.replace("/", "."), f"must be a whole number {low}-{high}, not {value!r}"
        )
    return value


def setup(scenario: str, pack: DataPack) -> dict[str, Any]:
    """The state before the first round: the clock at the first segment."""
    game_turns = _int_item(pack, GAME_TURNS, 1, 520)
    turn_in_cycle = _int_item(pack, TURN_IN_CYCLE, 1, 4)
    try:
        date.fromisoformat(str(pack.value(START_DATE)))
    except ValueError:
        raise DataError("scenario.start-date", "must be a date, YYYY-MM-DD") from None
    if pack.value(INITIATIVE_CHOICE) not in (initiative.FIRST, initiative.SECOND):
        raise DataError("rulings.initiative-choice", "must be first or second")
    return {
        "scenario": scenario,
        PUBLIC: {
            "clock": {"at": 0, "game_turns": game_turns, "turn_in_cycle": turn_in_cycle},
            "pack": pack.public(),
        },
        PRIVATE: {side: {"forces": pack.forces(side), "plots": {}} for side in SIDES},
        DISCLOSURES: [],
        MODERATOR: {},
    }


@dataclass(frozen=True, slots=True)
class Clock:
    """The public clock, read back from a state's public part."""

    at: int
    game_turns: int
    turn_in_cycle: int
    start_date: str

    @classmethod
    def of(cls, public: Mapping[str, Any]) -> Clock:
        c = public["clock"]
        start = str(public["pack"][START_DATE]["value"])
        return cls(int(c["at"]), int(c["game_turns"]), int(c["turn_in_cycle"]), start)

    @property
    def slots(self) -> tuple[Slot, ...]:
        return schedule(self.game_turns, self.turn_in_cycle)

    def pending(self) -> Round | None:
        return round_at(self.slots, self.at)

    def date_of(self, turn: int) -> str:
        """2.5: a Game-Turn is one week."""
        return (date.fromisoformat(self.start_date) + timedelta(weeks=turn - 1)).isoformat()

    def describe(self) -> dict[str, Any]:
        """The clock as a report prints it."""
        rnd = self.pending()
        last = self.slots[-1]
        turn = rnd.turn if rnd else last.turn
        cycle, position = cycle_of(turn, self.turn_in_cycle)
        return {
            "turn": turn,
            "game_turns": self.game_turns,
            "cycle": cycle,
            "turn_in_cycle": position,
            "week_of": self.date_of(turn),
            "round": rnd.name if rnd else None,
            "round_title": rnd.title if rnd else "game over",
            "steps": list(rnd.steps()) if rnd else [],
            "over": rnd is None,
        }


def play_round(
    state: Mapping[str, Any], orders: Mapping[str, Sequence[str]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Resolve the pending round with each side's accepted orders."""
    new = copy.deepcopy(dict(state))
    clock = Clock.of(new[PUBLIC])
    rnd = clock.pending()
    if rnd is None:
        return new, []
    events: list[Event] = []
    for slot in rnd.slots:
        events += _resolve(new, slot, rnd, orders, dice)
    new[PUBLIC]["clock"]["at"] = rnd.end
    return new, events


def _resolve(
    state: dict[str, Any],
    slot: Slot,
    rnd: Round,
    orders: Mapping[str, Sequence[str]],
    dice: Dice,
) -> list[Event]:
    if slot is rnd.slots[0] and rnd.sides:
        for side in rnd.sides:  # the side's own plot log: secret (16.3)
            state[PRIVATE][side]["plots"] = {slot.time: list(orders.get(side, ()))}
        return []
    if slot.segment.initiative:
        choice = str(state[PUBLIC]["pack"][INITIATIVE_CHOICE]["value"])
        result = initiative.determine(dice, slot.time, choice)
        fact = {"kind": "initiative", "segment": slot.segment.title, **result.to_json()}
        return [disclose(state, fact, SIDES, slot.time, "3.2")]
    if slot.segment.key == "advance":
        fact = (
            {"kind": "cycle-ended", "cycle": slot.cycle}
            if slot.strategic
            else {"kind": "turn-ended", "turn": slot.turn}
        )
        return [disclose(state, fact, SIDES, slot.time, slot.segment.rule)]
    return []  # a later stage's segment: nothing to do yet
