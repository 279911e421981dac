"""The ruleset interface: what the game lifecycle asks of a game's rules.

A ruleset is pure. Given the same state, orders and dice it returns the same
result; it reads no clock, file, database or network, and draws every random
number from the ``Dice`` it is handed. States are JSON-serialisable mappings
(the lifecycle stores them as they are), so any phase can be replayed from the
record.

The lifecycle drives a game like this::

    state = ruleset.initial_state(scenario, options)
    while (demand := ruleset.pending(state)) is not None:
        # mail each side in demand.sides its report and an order template;
        # collect and validate order text per side (ruleset.validate), seal it
        result = ruleset.adjudicate(state, orders_by_side, dice)
        state = result.state
    ruleset.outcome(state)  # verdict
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.mapview import MapPicture
from pbem.core.options import GameOption

State = Mapping[str, Any]
"""A ruleset's whole game state, JSON-serialisable (dicts, lists, str, int, float, bool, None)."""


@dataclass(frozen=True, slots=True)
class ScenarioInfo:
    name: str  # stable key, e.g. "coral-sea"
    title: str  # e.g. "Coral Sea mini-game"
    sides: tuple[str, ...]  # e.g. ("japanese", "allied")
    # Every option a game of this scenario takes, by key; CREATE refuses any other.
    options: Mapping[str, GameOption] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Demand:
    """Who owes orders now.

    ``phase`` names the mail round (e.g. "J-2" or "air-5"); ``turn`` is the
    game-turn. ``sides`` may be several for a simultaneous phase, or empty for
    an automatic phase the lifecycle adjudicates at once. ``title`` and
    ``steps`` are for players: the rulebook steps this round covers.
    """

    turn: int
    phase: str
    sides: tuple[str, ...]
    title: str = ""
    steps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LineError:
    """One refused order line: 1-based line number within the order text."""

    line: int
    text: str
    message: str
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class Validation:
    """``accepted`` holds each accepted order in canonical form (as understood)."""

    accepted: tuple[str, ...]
    errors: tuple[LineError, ...] = ()


@dataclass(frozen=True, slots=True)
class Adjudication:
    state: State
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The verdict: ``winner`` is a side or None for a draw; ``level`` e.g. "Decisive"."""

    winner: str | None
    level: str
    summary: str
    scores: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RulesIdentity:
    """Which rules a game plays by: the ruleset's ``version`` (bumped whenever its
    events, set-up or tables change for the same inputs) and ``data``, the
    fingerprint of the data packs it reads. The record carries it with the set-up
    and every adjudication, so a record is re-adjudicated by the same rules."""

    ruleset: str
    version: str
    data: str

    def to_json(self) -> dict[str, str]:
        return {"version": self.version, "data": self.data}

    def describe(self) -> str:
        return f"{self.ruleset} rules version {self.version} with data fingerprint {self.data[:16]}"


def data_fingerprint(files: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 over a ruleset's data files: each file's name and the hash of its
    bytes, in name order (a renamed, added or edited file changes it)."""
    h = hashlib.sha256()
    for name, content in sorted(files):
        h.update(name.encode("utf-8") + b"\0" + hashlib.sha256(content).digest())
    return h.hexdigest()


class Ruleset(Protocol):
    name: str  # registry key, e.g. "usn"
    title: str
    # Bumped whenever the rules' events, set-up or tables change for the same inputs:
    # a game keeps the version it started with (the moderator moves it by UPGRADE).
    version: str
    data_fingerprint: str  # of the data packs this ruleset was built with

    def scenarios(self) -> Sequence[ScenarioInfo]: ...

    def initial_state(self, scenario: str, options: Mapping[str, Any]) -> State: ...

    def pending(self, state: State) -> Demand | None:
        """The current phase's demand, or None when the game is over."""
        ...

    def validate(self, state: State, side: str, text: str) -> Validation:
        """Judge every line of ``text`` on its own; never raise on bad input.

        The answer is the side's to read, so it is computed from what ``side``
        knows (what ``view`` shows it), never from the rest of ``state``: two states
        the side cannot tell apart get the same Validation. An order whose success
        depends on hidden facts is accepted as plotted; adjudication resolves it and
        tells the side the outcome in an event addressed to it."""
        ...

    def default_orders(self, state: State, side: str) -> tuple[str, ...]:
        """Orders applied when a side sends none: the rules' "do nothing" (plus any
        standing orders the state already holds)."""
        ...

    def adjudicate(
        self, state: State, orders: Mapping[str, Sequence[str]], dice: Dice
    ) -> Adjudication:
        """Resolve the pending phase from every side's accepted orders."""
        ...

    def view(self, state: State, events: Sequence[Event], side: str | None) -> Mapping[str, Any]:
        """What ``side`` may know (None: omniscient), JSON-serialisable, for reports."""
        ...

    def order_template(self, state: State, side: str) -> str:
        """A commented order form for the pending phase, to edit and mail back;
        like ``validate``, drawn from what ``side`` knows only."""
        ...

    def outcome(self, state: State) -> Outcome | None:
        """The verdict once the game is over, else None."""
        ...


@runtime_checkable
class CheckedState(Ruleset, Protocol):
    """A ruleset that checks a state on its own terms (optional): the moderator's
    correcting edit (EDIT) must leave a state these checks pass."""

    def state_problems(self, state: State) -> Sequence[str]:
        """What in ``state`` the rules cannot hold (a value out of its range, a
        unit named that does not exist), one sentence each; empty if nothing."""
        ...


@runtime_checkable
class MappedRuleset(Ruleset, Protocol):
    """A ruleset whose reports carry a map picture (optional: rulesets without a
    map leave it out, and their reports draw what their view alone shows)."""

    def map_picture(self, view: Mapping[str, Any]) -> MapPicture:
        """The map as ``view`` shows it: what the audience may see, nothing more."""
        ...


@runtime_checkable
class QuietRounds(Ruleset, Protocol):
    """A ruleset whose players are mailed only when they owe orders (optional): a
    round after which a side owes none sends it no report, and its next report tells
    every round since the last one it was sent. Whether a side owes orders is known
    to it, so a mail not sent tells it nothing it did not know
    (pbem.lifecycle.quiet)."""

    quiet_rounds: bool
