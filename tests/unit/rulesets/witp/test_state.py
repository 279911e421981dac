"""The typed state's one codec: every state of the golden Coral Sea game reads into
WitpState and writes back as the same JSON (keys, values and their order), and a
state of another version is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem.core.dice import SeededDice
from pbem.core.errors import DataError
from pbem.rulesets.witp.initiative import InitiativeDetermined
from pbem.rulesets.witp.intelligence import SiCapabilities
from pbem.rulesets.witp.knowledge import RawFact
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.state import STATE_VERSION, VERSION_KEY, WitpState

from .conftest import SCENARIO

GOLDEN = Path(__file__).parents[3] / "golden" / "witp" / f"{SCENARIO}.json"


def golden_states(witp: WitpRuleset) -> Iterator[Any]:
    """The initial state and the state after each round, with the golden run's orders."""
    recorded = json.loads(GOLDEN.read_text())["rounds"]
    state: Any = witp.initial_state(SCENARIO, {})
    yield state
    for played in recorded:
        demand = witp.pending(state)
        assert demand is not None
        accepted = {
            side: witp.validate(state, side, played["orders"][side]).accepted
            or witp.default_orders(state, side)
            for side in demand.sides
        }
        dice = SeededDice(b"golden-witp-replay", "golden", demand.turn, demand.phase)
        state = witp.adjudicate(state, accepted, dice).state
        yield state


def test_every_golden_state_reads_and_writes_back_the_same_json(witp: WitpRuleset) -> None:
    kinds: set[type] = set()
    for n, stored in enumerate(golden_states(witp)):
        typed = WitpState.from_json(stored)
        again = typed.to_json()
        assert again == stored, f"state {n} changed in its round trip"
        assert json.dumps(again) == json.dumps(stored), f"state {n}: another key order"
        assert WitpState.from_json(again) == typed
        kinds |= {type(d.fact) for d in typed.disclosures}
    # The kernel's facts are read as their types; the other parts' as stored.
    assert {InitiativeDetermined, SiCapabilities, RawFact} <= kinds


def test_a_state_without_a_version_is_version_1_and_another_is_refused(
    witp: WitpRuleset,
) -> None:
    stored = witp.initial_state(SCENARIO, {})
    assert VERSION_KEY not in stored and STATE_VERSION == 1
    assert WitpState.from_json({**stored, VERSION_KEY: 1}).to_json() == stored
    with pytest.raises(DataError, match="version 2"):
        WitpState.from_json({**stored, VERSION_KEY: 2})
    with pytest.raises(DataError, match="unknown part"):
        WitpState.from_json({**stored, "umpire": {}})
