"""The U.S.N. ruleset: the game lifecycle's view of the rules (pbem.core.ruleset).

Each ``pending`` demand is one mail round of sequence.ROUNDS; ``validate``
runs the round for one side's sheet on a copy of the state (no dice, no
combat) and reports every refused line; ``adjudicate`` runs it for real.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.ruleset import (
    Adjudication,
    Demand,
    LineError,
    Outcome,
    ScenarioInfo,
    State,
    Validation,
)
from pbem.rulesets import register
from pbem.rulesets.usn import views
from pbem.rulesets.usn.geo import Geo, world_geo
from pbem.rulesets.usn.phases import advance, run_round
from pbem.rulesets.usn.sequence import ROUNDS, SIDES, STEPS
from pbem.rulesets.usn.state import GameState, decode
from pbem.rulesets.usn.supply import update_supply

VICTORY_LEVELS = ((4, "Decisive"), (3, "Strategic"), (2, "Provisional"), (1, "Marginal"))


class UsnRuleset:
    name = "usn"
    title = "U.S.N.: The Game of War in the Pacific, 1941-43 (SPI, 1971)"

    def __init__(self, geo: Geo | None = None) -> None:
        self._geo = geo

    @property
    def geo(self) -> Geo:
        if self._geo is None:
            self._geo = world_geo()
        return self._geo

    # --- set-up -----------------------------------------------------------
    def scenarios(self) -> Sequence[ScenarioInfo]:
        from pbem.rulesets.usn import setup

        return setup.scenario_infos()

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        from pbem.rulesets.usn import setup

        state = setup.build_state(self.geo, scenario, options)
        return update_supply(self.geo, state).to_json()

    # --- rounds -------------------------------------------------------------
    def pending(self, state: State) -> Demand | None:
        s = decode(state)
        if s.over:
            return None
        rnd = ROUNDS[s.round]
        steps = tuple(f"Step {n}: {STEPS[n - 1].title}" for n in rnd.steps)
        return Demand(s.turn, rnd.key, rnd.sides, rnd.title, steps)

    def validate(self, state: State, side: str, text: str) -> Validation:
        s = decode(state)
        if s.over:
            return Validation((), (LineError(0, "", "the game is over", None),))
        result = run_round(self.geo, s, {side: text}, None)
        return Validation(tuple(result.accepted.get(side, ())), tuple(result.errors.get(side, ())))

    def default_orders(self, state: State, side: str) -> tuple[str, ...]:
        """No orders: nothing moves (MOV.B); standing orders stay in the state."""
        return ()

    def adjudicate(
        self, state: State, orders: Mapping[str, Sequence[str]], dice: Dice
    ) -> Adjudication:
        s = decode(state)
        texts = {side: "\n".join(lines) for side, lines in orders.items() if side in SIDES}
        result = run_round(self.geo, s, texts, dice)
        events = list(result.work.events)
        for side, errs in result.errors.items():
            for e in errs:  # an order that no longer fits (the state moved on): owner only
                events.append(_failed(side, e))
        new = advance(result.state)
        return Adjudication(new.to_json(), tuple(events))

    # --- reports ----------------------------------------------------------------
    def view(self, state: State, events: Sequence[Any], side: str | None) -> Mapping[str, Any]:
        return views.build_view(decode(state), events, side)

    def order_template(self, state: State, side: str) -> str:
        return views.order_template(decode(state), side)

    def outcome(self, state: State) -> Outcome | None:
        s = decode(state)
        if not s.over:
            return None
        return verdict(s)


def _failed(side: str, e: LineError) -> Any:
    from pbem.core.events import Event

    return Event(
        "order-failed", {"line": e.line, "order": e.text, "reason": e.message}, (side,), e.rule
    )


def verdict(s: GameState) -> Outcome:
    """VP.CALC / VP.LEVELS (ruling A18: a tie is a draw; 0 for the loser is Decisive).

    Only the points in ``state.vp`` count; the victory module (issue 6) fills them.
    """
    jp, al = float(s.vp.get("japanese", 0)), float(s.vp.get("allied", 0))
    scores = {"japanese": int(jp), "allied": int(al)}
    if jp == al:
        return Outcome(None, "Draw", f"Victory points are equal ({jp:g} each).", scores)
    winner, hi, lo = ("japanese", jp, al) if jp > al else ("allied", al, jp)
    ratio = hi / lo if lo > 0 else float("inf")
    level = next(name for bound, name in VICTORY_LEVELS if ratio >= bound or bound == 1)
    return Outcome(winner, level, f"{winner} {hi:g} to {lo:g} victory points.", scores)


register("usn", UsnRuleset)
