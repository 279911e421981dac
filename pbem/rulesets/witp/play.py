"""A game's state, set up from its data pack, and a mail round played through.

The state is the knowledge model's four parts (knowledge.py): ``public`` holds
the clock and the game's charts and rulings (the pack's public items); ``private`` each
side's forces (its order of battle, with provenance), its TF Display (taskforces.py)
and its last plot; ``disclosures`` what crossed to a side; ``moderator`` what only
the umpire holds.

A round resolves its slots in order: the game's first slot draws the dummy
allotments (13.6); a naval Plot Segment files each side's mission cards (16.3); an
initiative segment rolls 3.2's dice, and a naval Execution Segment then carries the
cards out (movement.py) and spends fuel (fuel.py); the end of a Game-Turn or cycle
moves the marker (3.1 I, 50.0 J); a segment of a later stage is passed over.

Under the 42.3.1 gate (R70) a naval Plot Segment is two rounds: the Japanese half
files his cards alone and carries out the Allies' Sigint and Magic calls on them
(intel_orders.py), on the secret stream; the Allied half files the Allied cards
and plays the rest of the round. The opening round and each round that begins a
cycle end with 42.8 (JN-25 counters) and 42.2.2 (the cycle's Sigint and Magic).

A round is played on a work area (work.Work): the stored state decoded once, its
end state encoded once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any, cast

from pbem.core.dice import Dice
from pbem.core.errors import DataError
from pbem.core.events import Event
from pbem.core.sides import JAPANESE, SIDES, Side
from pbem.rulesets.witp import (
    airplay,
    draws,
    dummies,
    fuel,
    initiative,
    intel_orders,
    intelligence,
    movement,
    navalcover,
    orders,
    searchplay,
)
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air import allocation
from pbem.rulesets.witp.clock import (
    JAPANESE_HALF,
    CycleEnded,
    Round,
    Slot,
    TurnEnded,
    TurnTrack,
    cycle_of,
    round_at,
)
from pbem.rulesets.witp.datapack import DataPack, PackItem
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.missioncards import MissionCard
from pbem.rulesets.witp.missions import Context, SeaMap
from pbem.rulesets.witp.moderatorrecords import ModeratorRecords
from pbem.rulesets.witp.sidepart import SidePart
from pbem.rulesets.witp.state import PublicPart, WitpState
from pbem.rulesets.witp.work import Work

GAME_TURNS = "scenario/game-turns"
START_DATE = "scenario/start-date"
TURN_IN_CYCLE = "scenario/turn-in-cycle"
INITIATIVE_CHOICE = "rulings/initiative-choice"
CLOCK_ITEMS = (GAME_TURNS, START_DATE, TURN_IN_CYCLE)
PLACES = "scenario/places"
HIDDEN_MOVEMENT = "rulings/hidden-movement"
GATE, GATE_VALUES = intelligence.GATE, ("japanese-first", "off")


def _int_item(pack: DataPack, key: str, low: int, high: int) -> int:
    value = pack.value(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise DataError(
            key.replace("/", "."), f"must be a whole number {low}-{high}, not {value!r}"
        )
    return value


class TheatreMap(SeaMap, tfs.Locator):
    """The theatre map as the naval rules read it (map.TheatreMap)."""


def setup(scenario: str, pack: DataPack, sea: tfs.Locator) -> dict[str, Any]:
    """The state before the first round: the clock at the first segment, each
    side's TFs on the map where the scenario places them."""
    game_turns = _int_item(pack, GAME_TURNS, 1, 520)
    turn_in_cycle = _int_item(pack, TURN_IN_CYCLE, 1, 4)
    try:
        date.fromisoformat(str(pack.value(START_DATE)))
    except ValueError:
        raise DataError("scenario.start-date", "must be a date, YYYY-MM-DD") from None
    if pack.value(INITIATIVE_CHOICE) not in (initiative.FIRST, initiative.SECOND):
        raise DataError("rulings.initiative-choice", "must be first or second")
    if GATE in pack.items and pack.value(GATE) not in GATE_VALUES:
        raise DataError("rulings.sigint-plot-gate", f"must be {' or '.join(GATE_VALUES)} (R70)")
    if pack.value(HIDDEN_MOVEMENT) != "exact":
        raise DataError("rulings.hidden-movement", "only 'exact' (R30) is moderated yet")
    places = pack.value(PLACES) if PLACES in pack.items else {}
    public = PublicPart(TurnTrack(0, game_turns, turn_in_cycle), pack.public_items())
    fleets = {side: tfs.setup(pack.forces(side), places, sea) for side in SIDES}
    private = {
        side: SidePart(forces=pack.forces(side), plots={}, tfs=f.tfs, ships=f.ships)
        for side, f in fleets.items()
    }
    return WitpState(scenario, public, private, (), ModeratorRecords()).to_json()


@dataclass(frozen=True, slots=True)
class Clock:
    """The public clock, read back from a state's public part: the Turn Record Track
    (clock.TurnTrack), the scenario's first week and whether the 42.3.1 gate splits
    naval Plot Segments."""

    at: int
    game_turns: int
    turn_in_cycle: int
    start_date: str
    japanese_first: bool = False  # the 42.3.1 gate (R70), from public knowledge
    plotted: tuple[Side, ...] = ()  # sides whose plot at ``at`` is filed (the Japanese half)

    @classmethod
    def of(cls, track: TurnTrack, pack: Mapping[str, PackItem]) -> Clock:
        start = str(pack[START_DATE].value)
        first = intelligence.japanese_plot_first(pack)
        return cls(track.at, track.game_turns, track.turn_in_cycle, start, first, track.plotted)

    @property
    def track(self) -> TurnTrack:
        return TurnTrack(self.at, self.game_turns, self.turn_in_cycle, self.plotted)

    @property
    def slots(self) -> tuple[Slot, ...]:
        return self.track.slots

    def pending(self) -> Round | None:
        """The next round; a naval Plot Segment under the 42.3.1 gate is two: the
        Japanese half, then (his plot filed) the Allied half."""
        rnd = round_at(self.slots, self.at)
        if rnd is None or not self.japanese_first or not rnd.naval_plot:
            return rnd
        return rnd.allied_half() if JAPANESE in self.plotted else rnd.japanese_half()

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
            # Who plots in it: both sides, or one (a half of a plotting gate, 42.x).
            "plots": list(rnd.sides) if rnd else [],
            "half": bool(rnd and rnd.sides and len(rnd.sides) < len(SIDES)),
            "steps": list(rnd.steps()) if rnd else [],
            "over": rnd is None,
        }


def context(state: Mapping[str, Any], side: str, sea: SeaMap) -> Context:
    """What ``side``'s orders are judged against: its Knowledge (its public and own
    parts), never the truth. The disclosures, which a mission card never reads, are
    left unread."""
    k = Knowledge.of(state, side, told=False)
    rnd = Clock.of(k.clock, k.pack).pending()
    return Context(k, sea, rnd.slots[0].phase.key if rnd else "")


def play_round(
    state: Mapping[str, Any],
    orders_by_side: Mapping[str, Sequence[str]],
    dice: Dice,
    sea: SeaMap,
) -> tuple[dict[str, Any], list[Event]]:
    """Resolve the pending round with each side's accepted orders: the stored state
    decoded once (work.Work), the round played on it, its end state encoded once."""
    work = Work.begin(state)
    events = _play(work, orders_by_side, dice, sea)
    return work.finish().to_json(), events


def _play(
    work: Work, orders_by_side: Mapping[str, Sequence[str]], dice: Dice, sea: SeaMap
) -> list[Event]:
    clock = Clock.of(work.clock, work.pack)
    rnd = clock.pending()
    if rnd is None:
        return []
    if rnd.half == JAPANESE_HALF:
        return _japanese_half(work, rnd, orders_by_side, dice, sea)
    events: list[Event] = []
    for slot in rnd.slots:
        events += _resolve(work, slot, rnd, orders_by_side, dice, sea)
    work.move_clock(replace(clock.track, at=rnd.end, plotted=()))
    return events + _after_round(work, rnd, dice)


def _japanese_half(
    work: Work,
    rnd: Round,
    orders_by_side: Mapping[str, Sequence[str]],
    dice: Dice,
    sea: SeaMap,
) -> list[Event]:
    """42.3.1: the Japanese cards close; the Allies' calls are carried out on them on
    the secret stream (always taken here: twelve open dice whatever is called)."""
    slot = rnd.slots[0]
    secret = draws.SecretDice.from_dice(dice, rnd.name)
    events = _file_plot(work, JAPANESE, orders_by_side.get(JAPANESE, ()), slot, sea)
    events += intel_orders.carry_out(work, slot, secret)
    work.move_clock(replace(work.clock, plotted=(JAPANESE,)))
    return events


def _after_round(work: Work, rnd: Round, dice: Dice) -> list[Event]:
    """42.8 at the game's opening; 42.2.2 for each cycle that begins (R71). The
    secret stream is taken after every open roll of the round, so it shifts none."""
    crossed = [s for s in rnd.slots if s.strategic and s.segment.key == "advance"]
    if rnd.start != 0 and not crossed:
        return []
    secret = draws.SecretDice.from_dice(dice, f"{rnd.name} intelligence")
    events: list[Event] = []
    if rnd.start == 0:
        last = rnd.slots[-1]
        events.append(intelligence.roll_jn25(work, secret.fork("jn25"), last))
        events += intelligence.open_cycle(work, last.cycle, secret.fork("cycle"), last)
    for s in crossed:
        events += intelligence.play_committed_jn25(work, s.cycle, s)
        events += intelligence.open_cycle(work, s.cycle + 1, secret.fork(f"cycle {s.cycle + 1}"), s)
    return events


def _file_plot(
    work: Work, side: Side, lines: Sequence[str], slot: Slot, sea: SeaMap
) -> list[Event]:
    """16.3: the side's mission cards (its own plot log: secret) and its 42 lines."""
    orders.keep_lines(work, side, slot.time, lines)
    plot = orders.plot_of(context(work.json, side, sea), list(lines))
    orders.keep_card_order(work, side, plot)  # 17.13.6: as written
    for tf in tfs.task_forces(work, side):
        card = plot.cards.get(tf)
        tfs.update(work, side, tf, mission=card if card and card.missions else None)
    searchplay.file_standing(work, Side(side), lines, context(work.json, side, sea))  # 13.3, R50
    navalcover.file(work, side, plot, context(work.json, side, sea))  # 5.3.4, R138
    return intel_orders.file_extras(work, side, plot, slot)


def _resolve(
    work: Work,
    slot: Slot,
    rnd: Round,
    orders_by_side: Mapping[str, Sequence[str]],
    dice: Dice,
    sea: SeaMap,
) -> list[Event]:
    # The search rules' hooks (searchplay.py) around the segment itself.
    where = cast(searchplay.SearchMap, sea)
    # Each side's Knowledge, for the Air Search Segment's standing orders only (13.3.1).
    state = work.json  # a Knowledge (the order context) is still read from the JSON
    searching = slot.phase.key.startswith("air") and slot.segment.key == "search"
    contexts: dict[str, Context] = (
        {side: context(state, side, sea) for side in SIDES} if searching else {}
    )
    events = searchplay.before_segment(work, slot, rnd, dice, contexts, where)
    events += _segment(work, slot, rnd, orders_by_side, dice, sea)
    return events + searchplay.after_segment(work, slot)


def _segment(
    work: Work,
    slot: Slot,
    rnd: Round,
    orders_by_side: Mapping[str, Sequence[str]],
    dice: Dice,
    sea: SeaMap,
) -> list[Event]:
    events: list[Event] = []
    if rnd.start == 0 and slot is rnd.slots[0]:
        events += dummies.allot_dummies(work, dice, slot.time, slot.cycle)
    if slot is rnd.slots[0] and rnd.sides and allocation.is_allocation(rnd):
        for side in rnd.sides:  # 5.0 Step 1: the Air Strike Plots, secret (R90)
            orders.keep_lines(work, side, slot.time, orders_by_side.get(side, ()))
            events += allocation.file_plot(work, side, orders_by_side.get(side, ()), slot)
        return events
    if slot is rnd.slots[0] and rnd.sides:
        for side in rnd.sides:  # the Allied half files the Allies' alone
            events += _file_plot(work, Side(side), orders_by_side.get(side, ()), slot, sea)
            if side == JAPANESE and not rnd.half:  # no split: nothing is sampled (R71)
                events += intel_orders.carry_out(work, slot, None)
        return events
    if slot.segment.initiative:
        choice = str(work.pack[INITIATIVE_CHOICE].value)
        result = initiative.determine(dice, slot.time, choice)
        fact = initiative.InitiativeDetermined.of(slot.segment.title, result)
        events.append(work.disclose(fact, SIDES, slot.time, "3.2"))
        if slot.phase.key.startswith("naval") and slot.segment.key == "execution":
            where = cast(searchplay.SearchMap, sea)
            airplay.executing(work, slot, dice)  # 5.8: special strikes at TFs as they move
            try:
                with searchplay.moving(work, slot, dice, where) as closing:
                    events += _execute(work, result.first, slot.time)
            finally:
                airplay.executing(None)
            events += closing
            events += airplay.after_naval_execution(work, slot)  # 14.2.2, 7.8.1
        elif slot.phase.key.startswith("air") and slot.segment.key == "strike":
            events += airplay.strike_segment(work, slot, result.first, dice, sea)  # 3.1 B, 12
        return events
    if slot.segment.key == "advance":
        if not slot.strategic:
            for side in SIDES:
                events += fuel.end_of_game_turn(work, side, slot.time)
        else:
            events += dummies.allot_dummies(work, dice, slot.time, slot.cycle + 1)
        ended = CycleEnded(slot.cycle) if slot.strategic else TurnEnded(slot.turn)
        return [*events, work.disclose(ended, SIDES, slot.time, slot.segment.rule)]
    return events  # a later stage's segment: nothing to do yet


def _execute(work: Work, first: Side, time: str) -> list[Event]:
    """3.1 C Execution Segment: the cards filed at this phase's Plot Segment."""
    cards: dict[str, dict[str, MissionCard]] = {}
    for side in SIDES:
        # this phase's moves only (taskforces.py): a TF left alone moved none
        display = {tf: tfs.update(work, side, tf, log=()) for tf in tfs.task_forces(work, side)}
        cards[side] = {
            tf: t.mission
            for tf in orders.card_order(work, side)
            if (t := display.get(tf)) is not None and t.mission
        }
    events = movement.execute(work, cards, first, time)
    for side in SIDES:
        events += fuel.end_of_phase(work, side, time)
    return events
