"""The War in the Pacific ruleset, stages 0-2: the lifecycle's view of the kernel, the
naval rules (task forces, mission cards, movement, fuel, search) and air strikes
against ships (airplay.py); the verdict by the scenario's victory conditions.

``pending`` is the clock's next mail round; ``validate`` and ``order_template``
answer from the side's Knowledge (knowledge.py) and ``view`` is built from it,
never from the truth; ``adjudicate`` plays the round through (play.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.mapview import MapPicture
from pbem.core.ruleset import Adjudication, Demand, Outcome, ScenarioInfo, State, Validation
from pbem.core.sides import SIDES
from pbem.rulesets.witp import orders, play, statecheck, victory, views
from pbem.rulesets.witp.air import allocation
from pbem.rulesets.witp.clock import Round
from pbem.rulesets.witp.knowledge import PUBLIC
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.library import Library
from pbem.rulesets.witp.map import TheatreMap
from pbem.rulesets.witp.report_map import report_picture
from pbem.rulesets.witp.state import PublicPart, WitpState

DATAPACK = "datapack"  # CREATE's key for the moderator's own pack (TOML), not an option


class WitpRuleset:
    name = "witp"
    title = "War in the Pacific (SPI, 2nd edition)"
    # Bump whenever the events, set-up or tables change for the same inputs (a record
    # of another version is not re-adjudicated by these rules: docs/moderator.md).
    version = "1"
    # A side is mailed only when it owes orders; its next report tells the rounds
    # between (pbem.lifecycle.quiet): the rounds a side sits out are public.
    quiet_rounds = True

    def __init__(self, library: Library, theatre_map: TheatreMap, fingerprint: str = "") -> None:
        """``library``: the packs and scenarios read by pbem.rulesets.witp.loader;
        ``theatre_map``: the theatre map (pbem.rulesets.witp.map.load_map), which
        movement, ports and set-up read. Both are read once, by the registry;
        ``fingerprint``: of the data files they were read from."""
        self.library = library
        self.theatre_map = theatre_map
        self.data_fingerprint = fingerprint

    def scenarios(self) -> Sequence[ScenarioInfo]:
        return [ScenarioInfo(sc.name, sc.title, sc.sides) for sc in self.library.scenarios.values()]

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State:
        """``options["datapack"]``: the moderator's pack for this game, merged over the
        installation's; the resolved items go into the state, so the game replays
        from its record alone."""
        pack = self.library.resolve(scenario, options.get(DATAPACK))
        return play.setup(scenario, pack, self.theatre_map)

    def _round(self, state: State) -> Round | None:
        public = PublicPart.from_json(state[PUBLIC])  # the platform's State: the edge
        return play.Clock.of(public.clock, public.pack).pending()

    def pending(self, state: State) -> Demand | None:
        rnd = self._round(state)
        if rnd is None:
            return None
        return Demand(rnd.turn, rnd.name, rnd.sides, rnd.title, rnd.steps())

    def validate(self, state: State, side: str, text: str) -> Validation:
        rnd = self._round(state)
        if rnd is not None and allocation.is_allocation(rnd) and side in rnd.sides:
            return allocation.validate(Knowledge.of(state, side), side, text)  # 5.0, R90
        ctx = play.context(state, side, self.theatre_map) if side in SIDES else None
        return orders.validate(rnd, side, ctx, text)

    def default_orders(self, state: State, side: str) -> tuple[str, ...]:
        """No orders: the side plots no mission (PASS)."""
        return (orders.PASS,) if self._round(state) is not None else ()

    def adjudicate(
        self, state: State, orders_by_side: Mapping[str, Sequence[str]], dice: Dice
    ) -> Adjudication:
        new, events = play.play_round(state, orders_by_side, dice, self.theatre_map)
        return Adjudication(new, tuple(events))

    def view(self, state: State, events: Sequence[Event], side: str | None) -> Mapping[str, Any]:
        return views.build_view(Knowledge.of(state, side), events)

    def order_template(self, state: State, side: str) -> str:
        if side not in SIDES:
            return ""
        rnd = self._round(state)
        if rnd is not None and allocation.is_allocation(rnd) and side in rnd.sides:
            return allocation.template(rnd, Knowledge.of(state, side), side)
        ctx = play.context(state, side, self.theatre_map)
        return orders.template(rnd, ctx)

    def outcome(self, state: State) -> Outcome | None:
        """The verdict once the scenario's Game-Turns are played (victory.py, R106)."""
        if self._round(state) is not None:
            return None
        return victory.verdict(WitpState.from_json(state))

    def state_problems(self, state: State) -> Sequence[str]:
        """What in ``state`` the rules cannot hold (statecheck.py): the moderator's
        EDIT is checked by it."""
        return statecheck.state_problems(state)

    def map_picture(self, view: Mapping[str, Any]) -> MapPicture:
        """The report's map, drawn from the side's view alone (report_map.py)."""
        return report_picture(self.theatre_map, view)
