"""The knowledge model: disclosures as recorded facts, projections, noninterference.

The property: two states that a side cannot tell apart (equal projections: the
other side's private part, the moderator's part and the disclosures to the other
side differ at random) give that side the same demand, view, order form, order
answers, and, for the same orders and dice, the same new knowledge and events.
"""

from __future__ import annotations

import copy
import json
from dataclasses import FrozenInstanceError
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.dice import SeededDice
from pbem.core.errors import AdjudicationError
from pbem.core.sides import SIDES, enemy_of
from pbem.rulesets.witp.knowledge import (
    DISCLOSURES,
    MODERATOR,
    PRIVATE,
    Fact,
    RawFact,
    disclose,
    indistinguishable,
    projection,
)
from pbem.rulesets.witp.known import Knowledge

from .conftest import SCENARIO
from .journal import Told

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
ORDERS = st.sampled_from(["", "PASS", "pass\n# none", "MOVE TF1 0101", "PASS extra", "XYZ\nPASS"])


def test_disclose_records_fact_audience_time_rule() -> None:
    state: dict[str, Any] = {}
    event = disclose(
        Told(state),
        Fact.from_json({"kind": "sigint", "cards": 2}),
        ["allied"],
        "T1/naval1/plot",
        "42.3",
    )
    assert state[DISCLOSURES] == [
        {
            "fact": {"kind": "sigint", "cards": 2},
            "audience": ["allied"],
            "time": "T1/naval1/plot",
            "rule": "42.3",
        }
    ]
    assert event.witnesses == ("allied",) and event.rule == "42.3" and event.seen_by("allied")
    assert not event.seen_by("japanese")
    public = disclose(Told(state), Fact.from_json({"kind": "x"}), SIDES, "T1/air1/strike", "3.2")
    assert public.witnesses is None


def test_disclose_refuses_an_audience_that_is_no_side() -> None:
    with pytest.raises(AdjudicationError):
        disclose(Told({}), Fact.from_json({"kind": "x"}), ["moderator"], "T1", "3.2")


class _Sighted(Fact, kind="test-sighted"):
    """A kind declared by its fields alone."""

    tf: str
    hexes: tuple[str, ...]


class _Spotted(Fact, kind="test-spotted"):
    """A kind in the explicit form (a decorator and KIND), which still registers."""

    tf: str


def test_a_fact_kind_is_its_fields_frozen_registered_and_its_json() -> None:
    fact = _Sighted("TF3", ("E1010", "E1011"))
    stored = {"kind": "test-sighted", "tf": "TF3", "hexes": ["E1010", "E1011"]}
    assert fact.to_json() == stored and Fact.from_json(stored) == fact
    assert type(Fact.from_json(stored)) is _Sighted
    assert type(Fact.from_json({"kind": "test-spotted", "tf": "TF1"})) is _Spotted
    with pytest.raises(FrozenInstanceError):
        fact.tf = "TF4"  # type: ignore[misc]
    # A stored fact with other keys than its kind's stays as stored.
    assert isinstance(Fact.from_json({**stored, "extra": 1}), RawFact)


def test_projection_is_public_own_private_and_own_disclosures() -> None:
    state: dict[str, Any] = {
        "public": {"clock": {"at": 0, "game_turns": 3, "turn_in_cycle": 1}, "pack": {}},
        PRIVATE: {"japanese": {"card_order": ["TF1"]}, "allied": {"card_order": ["TF2"]}},
        MODERATOR: {"umpire-only": 3},
    }
    disclose(Told(state), Fact.from_json({"kind": "to-j"}), ["japanese"], "T1", "13.5")
    disclose(Told(state), Fact.from_json({"kind": "both"}), SIDES, "T1", "3.2")
    p = projection(state, "allied")
    assert p[PRIVATE] == {"card_order": ["TF2"]} and [
        d["fact"]["kind"] for d in p[DISCLOSURES]
    ] == ["both"]
    assert "umpire-only" not in json.dumps(p) and "to-j" not in json.dumps(p)
    private = Knowledge.of(state, None).private  # each side's part typed (sidepart.py)
    assert {s: part.to_json() for s, part in private.items()} == state[PRIVATE]


def _other_world(
    state: dict[str, Any], side: str, secret: Any, disclosed: list[Any]
) -> dict[str, Any]:
    """``state`` with the other side's private part, the moderator's part and the
    disclosures to the other side alone replaced at random."""
    other = enemy_of(side)
    world = copy.deepcopy(state)
    # the secret in a record of the other side's part (its intensive searches' log)
    world[PRIVATE][other] = {**world[PRIVATE][other], "intensive": {"T0": [json.dumps(secret)]}}
    # a moderator's record no side is told (42.3.1's Sigint log), holding the secret
    world[MODERATOR] = {"sigint": [{"time": json.dumps(secret), "seen": []}]}
    for fact in disclosed:
        disclose(
            Told(world),
            Fact.from_json({"kind": "secret", "value": fact}),
            [other],
            "T1/naval1/plot",
            "13.5",
        )
    return world


@settings(max_examples=60)
@given(
    side=st.sampled_from(SIDES),
    rounds_played=st.integers(0, 5),
    secret_a=JSON,
    secret_b=JSON,
    told_a=st.lists(JSON, max_size=3),
    told_b=st.lists(JSON, max_size=3),
    text=ORDERS,
)
def test_noninterference_of_the_kernel(
    witp, side, rounds_played, secret_a, secret_b, told_a, told_b, text
) -> None:  # type: ignore[no-untyped-def]
    state = witp.initial_state(SCENARIO, {})
    for n in range(rounds_played):
        d = witp.pending(state)
        state = witp.adjudicate(
            state, {s: ["PASS"] for s in d.sides}, SeededDice(b"s", "g", n, d.phase)
        ).state
    a = _other_world(state, side, secret_a, told_a)
    b = _other_world(state, side, secret_b, told_b)
    assert indistinguishable(a, b, side)
    assert witp.pending(a) == witp.pending(b)
    assert json.dumps(witp.view(a, (), side)) == json.dumps(witp.view(b, (), side))
    assert witp.order_template(a, side) == witp.order_template(b, side)
    assert witp.validate(a, side, text) == witp.validate(b, side, text)
    d = witp.pending(a)
    if d is None:
        return
    orders = {s: list(witp.default_orders(a, s)) for s in d.sides}
    ra = witp.adjudicate(a, orders, SeededDice(b"x", "g", d.turn, d.phase))
    rb = witp.adjudicate(b, orders, SeededDice(b"x", "g", d.turn, d.phase))
    assert indistinguishable(ra.state, rb.state, side)
    seen_a = [e.to_json() for e in ra.events if e.seen_by(side)]
    assert seen_a == [e.to_json() for e in rb.events if e.seen_by(side)]
    assert json.dumps(witp.view(ra.state, ra.events, side)) == json.dumps(
        witp.view(rb.state, rb.events, side)
    )


def test_a_fact_kind_is_one_class() -> None:
    """Two classes of one kind would read the same stored fact two ways: refused."""
    import pytest

    from pbem.rulesets.witp.knowledge import Fact

    with pytest.raises(TypeError, match="fact kind 'turn-ended' is"):

        class AnotherTurnEnded(Fact, kind="turn-ended"):
            turn: int
