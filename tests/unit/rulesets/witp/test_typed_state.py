"""The typed state's one codec: every state of the golden Coral Sea game reads into
WitpState and writes back as the same JSON (keys, values and their order), its 42
records read as their types and back, byte for byte, and a state of another version
is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem.core.dice import SeededDice
from pbem.core.errors import DataError
from pbem.rulesets.witp.initiative import InitiativeDetermined
from pbem.rulesets.witp.intelligence import (
    INTEL,
    DummyPlotCard,
    Holdings,
    Jn25,
    SiCapabilities,
)
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, RawFact
from pbem.rulesets.witp.moderatorrecords import ChitCups, HeldContact, RevealLog, SigintLog
from pbem.rulesets.witp.records import ABSENT
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
    records: set[str] = set()
    for n, stored in enumerate(golden_states(witp)):
        typed = WitpState.from_json(stored)
        again = typed.to_json()
        assert again == stored, f"state {n} changed in its round trip"
        assert json.dumps(again) == json.dumps(stored), f"state {n}: another key order"
        assert WitpState.from_json(again) == typed
        kinds |= {type(d.fact) for d in typed.disclosures}
        records |= _records_round_trip(stored, n)
        records |= {k for k in stored[MODERATOR] if getattr(typed.moderator, k) is not ABSENT}
        assert json.dumps(typed.moderator.to_json()) == json.dumps(stored[MODERATOR])
    # Every fact the game tells is read as its type: none is left as stored JSON.
    assert {InitiativeDetermined, SiCapabilities} <= kinds and RawFact not in kinds
    assert {"holdings", "jn25"} <= records  # the golden game keeps both
    # The moderator's records are read as their types (moderatorrecords.py), each kept
    moderated = {"secret_seed", "search", "contacts", "coastwatchers", "moved", "stationary"}
    assert moderated | {"admiral_ratings", "magic_cup"} <= records
    assert isinstance(typed.moderator.search, ChitCups)
    assert all(isinstance(h, HeldContact) for h in dict(typed.moderator.coastwatchers).values())


def _records_round_trip(stored: Any, n: int) -> set[str]:
    """Each 42 record the state keeps reads as its type and writes back byte for byte."""
    seen: set[str] = set()
    allied, japanese = stored[PRIVATE]["allied"], stored[PRIVATE]["japanese"]
    pairs: list[tuple[str, Any, Any]] = [
        ("holdings", allied.get(INTEL), Holdings),
        ("jn25", japanese.get("jn25"), Jn25),
        ("dummy card", japanese.get("dummy_plot_card"), DummyPlotCard),
        *(("sigint log", e, SigintLog) for e in stored[MODERATOR].get("sigint", ())),
        *(("reveal log", e, RevealLog) for e in stored[MODERATOR].get("magic_reveals", ())),
    ]
    for name, rec, kind in pairs:
        if rec is not None:
            assert json.dumps(kind.from_json(rec).to_json()) == json.dumps(rec), f"{name}, {n}"
            seen.add(name)
    return seen


def test_a_record_tells_a_missing_key_from_none_and_from_empty() -> None:
    cases: list[dict[str, Any]] = [
        {},
        {"sigint_phase": None},
        {"magic": []},
        {"magic": [], "cycle": 2},
    ]
    for stored in cases:
        held = Holdings.from_json(stored)
        assert json.dumps(held.to_json()) == json.dumps(stored)
    assert Holdings.from_json({}).sigint_phase is ABSENT
    assert Holdings.from_json({"sigint_phase": None}).sigint_phase is None
    # A key removed and set again comes last, as in a dict.
    held = Holdings.from_json({"calls": [["SIGINT"]], "magic": ["blank"]})
    again = held.put(calls=ABSENT).put(calls=(("MAGIC", "REVEAL-DUMMY-TF"),))
    assert list(again.to_json()) == ["magic", "calls"]
    with pytest.raises(DataError, match="unknown key"):
        Holdings.from_json({"sigint_left": 1, "umpire": 2})


def test_a_state_without_a_version_is_version_1_and_another_is_refused(
    witp: WitpRuleset,
) -> None:
    stored = witp.initial_state(SCENARIO, {})
    assert VERSION_KEY not in stored and STATE_VERSION == 1
    assert WitpState.from_json({**stored, VERSION_KEY: 1}).to_json() == stored
    with pytest.raises(DataError, match="version 2; this pbem reads 1"):
        WitpState.from_json({**stored, VERSION_KEY: 2})
    # A round is played only on a state this codec reads (work.Work.begin).
    with pytest.raises(DataError, match="version 2"):
        witp.adjudicate({**stored, VERSION_KEY: 2}, {}, SeededDice(b"x", "g", 1, "T1-open"))
    with pytest.raises(DataError, match="unknown part"):
        WitpState.from_json({**stored, "umpire": {}})
