"""A tiny demonstration ruleset: "Raid", three zones, simultaneous sealed plots.

It exists so that the mail pipeline and the game lifecycle can be shown and
tested end to end without a full wargame. Each turn both sides secretly assign
their squadrons to zones A, B and C (one sealed, simultaneous phase); each zone
is then fought: the sum of strengths plus one die per side, higher wins the
zone and a point. After the last turn the higher score wins.

Orders, one per line:  ``SEND <squadron> <zone>``  e.g. ``SEND SQN-2 B``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import AmbiguousOrderError, IllegalOrderError, OrderError, OrderSyntaxError
from pbem.core.events import Event
from pbem.core.refusals import line_error
from pbem.core.ruleset import (
    Adjudication,
    Demand,
    LineError,
    Outcome,
    ScenarioInfo,
    State,
    Validation,
)
from pbem.core.ruleset import data_fingerprint as fingerprint_of

SIDES = ("north", "south")
ZONES = ("A", "B", "C")
SCENARIOS: dict[str, dict[str, object]] = {
    "duel": {"turns": 3, "squadrons": {"SQN-1": 3, "SQN-2": 2, "SQN-3": 1}},
    "long-duel": {"turns": 10, "squadrons": {"SQN-1": 3, "SQN-2": 2, "SQN-3": 1}},
}
# The strongest a squadron may be: one digit, as a counter prints it (illustrative).
MAX_STRENGTH = 9


class RaidRuleset:
    name = "demo"
    title = "Raid (demonstration game)"
    version = "1"  # bumped whenever its events or set-up change for the same inputs
    # Its data is SCENARIOS above.
    data_fingerprint = fingerprint_of(
        [("scenarios.json", json.dumps(SCENARIOS, sort_keys=True).encode("utf-8"))]
    )

    def scenarios(self) -> Sequence[ScenarioInfo]:
        return [
            ScenarioInfo(name, f"Raid, {sc['turns']} turns", SIDES)
            for name, sc in SCENARIOS.items()
        ]

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        sc = SCENARIOS[scenario]
        squadrons: dict[str, int] = sc["squadrons"]  # type: ignore[assignment]
        return {
            "scenario": scenario,
            "turn": 1,
            "last_turn": sc["turns"],
            "forces": {side: dict(squadrons) for side in SIDES},
            "score": dict.fromkeys(SIDES, 0),
            "standing": {side: [] for side in SIDES},
        }

    def pending(self, state: State) -> Demand | None:
        if state["turn"] > state["last_turn"]:
            return None
        return Demand(state["turn"], "plot", SIDES, "Both sides assign squadrons", ("plot",))

    def _parse(self, state: State, side: str, line: str) -> tuple[str, str]:
        words = line.split()
        if not words:
            raise OrderSyntaxError("empty order", rule="DEMO.ORDERS")
        if words[0].upper() != "SEND" or len(words) != 3:
            raise OrderSyntaxError("expected: SEND <squadron> <zone>", rule="DEMO.ORDERS")
        squadron, zone = words[1].upper(), words[2].upper()
        if squadron not in state["forces"][side]:
            raise IllegalOrderError(
                f"{squadron} is not one of your squadrons ({', '.join(state['forces'][side])})",
                rule="DEMO.ORDERS",
            )
        if zone not in ZONES:
            raise IllegalOrderError(
                f"zone {zone} does not exist; zones are {', '.join(ZONES)}", rule="DEMO.ORDERS"
            )
        return squadron, zone

    def validate(self, state: State, side: str, text: str) -> Validation:
        accepted: list[str] = []
        errors: list[LineError] = []
        seen: set[str] = set()
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                squadron, zone = self._parse(state, side, line)
                if squadron in seen:
                    raise AmbiguousOrderError(f"{squadron} is already ordered", rule="DEMO.ONCE")
            except OrderError as e:
                errors.append(line_error(number, line, e))
                continue
            seen.add(squadron)
            accepted.append(f"SEND {squadron} {zone}")
        return Validation(tuple(accepted), tuple(errors))

    def default_orders(self, state: State, side: str) -> tuple[str, ...]:
        return tuple(state["standing"][side])

    def adjudicate(
        self, state: State, orders: Mapping[str, Sequence[str]], dice: Dice
    ) -> Adjudication:
        placed: dict[str, dict[str, int]] = {side: dict.fromkeys(ZONES, 0) for side in SIDES}
        for side in SIDES:
            for line in orders.get(side, ()):
                parsed = self._parse(state, side, line)
                if isinstance(parsed, tuple):
                    placed[side][parsed[1]] += state["forces"][side][parsed[0]]
        score = dict(state["score"])
        events: list[Event] = []
        for zone in ZONES:
            rolls = {side: dice.d6(f"zone {zone} {side}") for side in SIDES}
            totals = {side: placed[side][zone] + rolls[side] for side in SIDES}
            north, south = totals["north"], totals["south"]
            winner = "north" if north > south else "south" if south > north else None
            if winner:
                score[winner] += 1
            events.append(
                Event(
                    "zone-fought",
                    {
                        "zone": zone,
                        "strength": placed,
                        "rolls": rolls,
                        "totals": totals,
                        "winner": winner,
                    },
                    rule="DEMO.FIGHT",
                )
            )
        new_state = dict(state)
        new_state["turn"] = state["turn"] + 1
        new_state["score"] = score
        new_state["standing"] = {side: list(orders.get(side, ())) for side in SIDES}
        return Adjudication(new_state, tuple(events))

    def view(self, state: State, events: Sequence[Event], side: str | None) -> Mapping[str, Any]:
        return {
            "turn": state["turn"],
            "score": state["score"],
            "your_forces": state["forces"] if side is None else {side: state["forces"][side]},
            "events": [e.to_json() for e in events if e.seen_by(side)],
            # A side's standing orders are its own secret.
            "standing": state["standing"] if side is None else {side: state["standing"][side]},
        }

    def order_template(self, state: State, side: str) -> str:
        lines = [f"# Turn {state['turn']}: send each squadron to zone A, B or C"]
        lines += [f"SEND {sq} A" for sq in state["forces"][side]]
        return "\n".join(lines)

    def state_problems(self, state: State) -> Sequence[str]:
        """A state's values within the game's ranges, its squadrons those of the
        set-up (the moderator's EDIT is checked by it)."""
        known = {sq for sc in SCENARIOS.values() for sq in sc["squadrons"]}  # type: ignore[attr-defined]
        problems = []
        if not _whole(state["turn"], 1, state["last_turn"] + 1):
            problems.append(f"turn {state['turn']!r} is not 1 to {state['last_turn'] + 1}")
        for side in SIDES:
            for squadron, strength in state["forces"][side].items():
                if squadron not in known:
                    problems.append(f"{side} has no squadron {squadron} in any set-up")
                if not _whole(strength, 0, MAX_STRENGTH):
                    problems.append(
                        f"{side} {squadron}: strength {strength!r} is not 0 to {MAX_STRENGTH}"
                    )
            most = state["last_turn"] * len(ZONES)
            if not _whole(state["score"][side], 0, most):
                problems.append(f"{side}'s score {state['score'][side]!r} is not 0 to {most}")
        return problems

    def outcome(self, state: State) -> Outcome | None:
        if state["turn"] <= state["last_turn"]:
            return None
        n, s = state["score"]["north"], state["score"]["south"]
        winner = "north" if n > s else "south" if s > n else None
        return Outcome(
            winner, "victory" if winner else "draw", f"north {n}, south {s}", dict(state["score"])
        )


def _whole(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is a whole number from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
