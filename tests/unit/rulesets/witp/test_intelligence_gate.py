"""42 in play: the Japanese-first plotting gate (42.3.1, R70), Sigint and ruses
(42.3.1-42.3.5), Magic played from a plot (42.4), the cycle's capabilities
(42.2.2), JN-25 counters (42.8) and the Japanese dummy plot card (42.9), through
the ruleset and play_round, on the Coral Sea scenario (Allied SI 3 against
Japanese 1, given openly by the scenario: +2)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.dice import SeededDice
from pbem.core.errors import DataError
from pbem.core.ruleset import Adjudication
from pbem.rulesets.witp import intelligence
from pbem.rulesets.witp.clock import schedule
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, projection
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.work import Work

from .naval import at_plot, past_allocation

MOVE_J = "TF1 MOVE E2318 EV 0"  # MO Main Force, from E2317
FAKE = "DUMMYCARD TF30 SPEED 3 SHIPS Shokaku, Zuikaku, Haguro\nDUMMYCARD TF30 MOVE E2420 EV 2"


@pytest.fixture
def start(witp: WitpRuleset) -> dict[str, Any]:
    return at_plot(witp, gate=True)


def play(
    witp: WitpRuleset, state: dict[str, Any], seed: bytes = b"g", **orders: str
) -> Adjudication:
    """The pending round with each due side's orders (every line must be accepted);
    the Allocation Segments' rounds (stage 2) around it are passed, so the state
    returned waits for the next naval plot (the gate's rounds)."""
    state = past_allocation(witp, state)
    d = witp.pending(state)
    assert d is not None
    accepted = {}
    for side in d.sides:
        v = witp.validate(state, side, orders.get(side, "PASS"))
        assert not v.errors, v.errors
        accepted[side] = list(v.accepted)
    result = witp.adjudicate(state, accepted, SeededDice(seed, "g", d.turn, d.phase))
    return replace(result, state=past_allocation(witp, result.state))


def told(state: dict[str, Any], side: str, kind: str) -> list[dict[str, Any]]:
    return [d["fact"] for d in projection(state, side)["disclosures"] if d["fact"]["kind"] == kind]


def refused(witp: WitpRuleset, state: dict[str, Any], side: str, text: str) -> list[str | None]:
    return [e.rule for e in witp.validate(state, side, text).errors]


# -- the gate ---------------------------------------------------------------------------


def test_42_3_1_the_naval_plot_round_splits_japanese_half_first(witp, start) -> None:  # type: ignore[no-untyped-def]
    d = witp.pending(start)
    assert (d.phase, d.sides) == ("T1-naval1-plot-japanese", ("japanese",))
    assert "the Japanese plot first" in d.title and d.steps[0].endswith("only (42.3.1)")
    clock = witp.view(start, (), "allied")["clock"]
    assert (
        clock["round"] == "T1-naval1-plot-japanese"
        and "Japanese plot first" in clock["round_title"]
    )
    half = play(witp, start, japanese=MOVE_J)
    d = witp.pending(half.state)
    assert (d.phase, d.sides) == ("T1-naval1-plot", ("allied",)) and "the Allied plot" in d.title
    assert [e.kind for e in half.events if e.kind == "tf-executed"] == []  # nothing runs yet
    whole = play(witp, half.state)
    assert witp.pending(whole.state).phase == "T1-naval2-plot-japanese"
    # the Japanese card filed in the first half is carried out in the second (16.3)
    assert whole.state[PRIVATE]["japanese"]["tfs"]["TF1"]["hex"] == "E2318"


def test_42_3_1_who_may_plot_in_each_half(witp, start) -> None:  # type: ignore[no-untyped-def]
    (err,) = witp.validate(start, "allied", "PASS").errors
    assert err.rule == "42.3.1" and "the Allies plot in T1-naval1-plot" in err.message
    assert witp.order_template(start, "allied") == ""
    assert "Japanese plot first" in witp.order_template(start, "japanese")
    half = play(witp, start).state
    (err,) = witp.validate(half, "japanese", "PASS").errors
    assert err.rule == "3.1" and "no orders are due from japanese" in err.message
    assert witp.order_template(half, "japanese") == ""
    assert "Japanese cards are closed" in witp.order_template(half, "allied")


def test_42_3_1_r70_no_split_without_an_open_si_advantage(witp) -> None:  # type: ignore[no-untyped-def]
    even = {"scenario": {"si-levels": {"value": {"allied": 2, "japanese": 2}}}}
    state = witp.initial_state("coral-sea-1942", {"datapack": even})
    state = witp.adjudicate(state, {}, SeededDice(b"o", "g", 1, "T1-open")).state
    state = past_allocation(witp, state)  # T1-air1-allocation: no strike
    d = witp.pending(state)
    assert (d.phase, d.sides) == ("T1-naval1-plot", ("japanese", "allied"))
    assert told(state, "allied", "si-capabilities")[0]["sigint"] == 0
    assert refused(witp, state, "allied", "SIGINT") == ["42.2.2"]


def test_42_3_1_the_gate_reads_public_knowledge_only(start) -> None:  # type: ignore[no-untyped-def]
    spent = copy.deepcopy(start)
    spent[PRIVATE]["allied"]["intelligence"]["sigint_left"] = 0
    spent[PRIVATE]["allied"]["intelligence"]["ruses_left"] = 0
    assert intelligence.japanese_plot_first(public_pack(start[PUBLIC]))
    assert intelligence.japanese_plot_first(public_pack(spent[PUBLIC]))  # uses left never show


# -- what the cycle brings (42.2.2, 42.8) -----------------------------------------------


def test_42_2_2_the_cycles_capabilities_are_told_to_the_allies_alone(start) -> None:  # type: ignore[no-untyped-def]
    (cap,) = told(start, "allied", "si-capabilities")
    # +2: Sigint 3 times and 5 Magic draws (42.2.2); ruses: SI 3 / 2 rounded up (42.3.5)
    assert (cap["si_difference"], cap["sigint"], cap["ruses"], cap["magic_draws"]) == (2, 3, 2, 5)
    (drawn,) = told(start, "allied", "magic-drawn")
    assert len(drawn["chits"]) >= 5 - len(drawn["draw_chits"])
    assert start[PRIVATE]["allied"]["intelligence"]["magic"] == drawn["chits"]
    assert not told(start, "japanese", "si-capabilities") and not told(
        start, "japanese", "magic-drawn"
    )
    (jn,) = told(start, "japanese", "jn25-counters")  # 42.8: 1D6 + 1, at most 6, secretly
    assert 2 <= jn["held"] <= 6 and not told(start, "allied", "jn25-counters")


# -- Sigint -------------------------------------------------------------------------------


def _called(witp: WitpRuleset, start: dict[str, Any], call: str) -> dict[str, Any]:
    """T1's first Plot Segment played, the Allies calling ``call`` for the next."""
    half = play(witp, start).state
    return play(witp, half, allied=call).state


def test_42_3_1_sigint_samples_the_next_japanese_cards(witp, start) -> None:  # type: ignore[no-untyped-def]
    state = _called(witp, start, "SIGINT")
    assert witp.pending(state).phase == "T1-naval2-plot-japanese"
    result = play(witp, state, japanese="TF1 MOVE E2318 EV 0\nTF2 MOVE E2115 EV 0")
    (seen,) = [e for e in result.events if e.kind == "sigint"]
    assert seen.witnesses == ("allied",) and seen.rule == "42.3.1"
    n = -(-2 * seen.data["pips"] // 10)  # 10% a pip of 2 cards, rounded up
    assert seen.data["of"] == 2 and len(seen.data["cards"]) == min(2, n)
    card = seen.data["cards"][0]
    assert set(card) == {"tf", "speed", "composition", "lines"} and card["tf"] in ("TF1", "TF2")
    assert card["lines"] == [{"TF1": "MOVE E2318 EV 0", "TF2": "MOVE E2115 EV 0"}[card["tf"]]]
    assert told(result.state, "japanese", "sigint-event") == [{"kind": "sigint-event"}]
    assert not told(result.state, "japanese", "sigint")
    assert result.state[PRIVATE]["allied"]["intelligence"]["sigint_left"] == 2
    japanese = witp.view(result.state, result.events, "japanese")
    assert [t["fact"]["kind"] for t in japanese["told_you"]][-1] == "sigint-event"
    allied = witp.view(result.state, result.events, "allied")
    assert "sigint" in [t["fact"]["kind"] for t in allied["told_you"]]


def test_42_3_5_a_ruse_looks_the_same_to_the_japanese_as_a_real_call(witp, start) -> None:  # type: ignore[no-untyped-def]
    real, ruse = _called(witp, start, "SIGINT"), _called(witp, start, "SIGINT RUSE")
    a = play(witp, real, japanese=MOVE_J)
    b = play(witp, ruse, japanese=MOVE_J)
    assert [e.kind for e in b.events if e.seen_by("allied")] == ["sigint-event", "sigint-ruse"][1:]
    assert projection(a.state, "japanese") == projection(b.state, "japanese")
    assert witp.view(a.state, a.events, "japanese") == witp.view(b.state, b.events, "japanese")


def test_42_3_2_once_a_naval_phase_and_only_while_uses_last(witp, start) -> None:  # type: ignore[no-untyped-def]
    half = play(witp, start).state
    assert refused(witp, half, "allied", "SIGINT\nSIGINT") == ["42.3.2"]
    assert refused(witp, half, "allied", "SIGINT HEX E2317") == ["42.3.3"]
    assert refused(witp, half, "allied", "SIGINT DAMAGE Shokaku") == ["42.3.4"]
    assert refused(witp, half, "allied", "SIGINT AMPH") == ["42.3.6"]
    assert refused(witp, start, "japanese", "SIGINT") == ["42.3.1"]
    spent = copy.deepcopy(half)
    spent[PRIVATE]["allied"]["intelligence"].update(sigint_left=0, ruses_left=0)
    assert refused(witp, spent, "allied", "SIGINT") == ["42.2.2"]
    assert refused(witp, spent, "allied", "SIGINT RUSE") == ["42.3.5"]
    assert "Sigint uses left this cycle 3" in witp.order_template(half, "allied")


def test_42_3_1_r71_a_call_that_can_no_longer_be_made_lapses(witp, start) -> None:  # type: ignore[no-untyped-def]
    state = _called(witp, start, "SIGINT")
    state[PRIVATE]["allied"]["intelligence"]["sigint_left"] = 0  # spent meanwhile
    result = play(witp, state)
    (lapsed,) = [e for e in result.events if e.kind == "intelligence-lapsed"]
    assert lapsed.witnesses == ("allied",) and lapsed.rule == "42.2.2"
    assert not [e for e in result.events if e.kind == "sigint-event"]


# -- the dummy plot card (42.9) -----------------------------------------------------------


def test_42_9_dummycard_lines_file_a_card_the_allies_see_as_a_card(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert witp.validate(start, "japanese", f"{MOVE_J}\n{FAKE}").errors == ()
    result = play(witp, start, japanese=f"{MOVE_J}\n{FAKE}")
    slot = {s.time: s for s in schedule(3, 1)}["T1/naval1/plot"]
    deck = intelligence.plot_cards(Work.begin(result.state), slot)
    assert [c.tf for c in deck] == ["TF1", "TF30"]
    real, fake = (c.to_json() for c in deck)
    assert fake == {
        "tf": "TF30",
        "speed": "SC3",
        "composition": ["Shokaku", "Zuikaku", "Haguro"],
        "lines": ["MOVE E2420 EV 2"],
    }
    assert {k: type(v) for k, v in real.items()} == {k: type(v) for k, v in fake.items()}
    # R72: the card commits a JN-25 counter to this cycle's end; the Japanese alone are told
    assert told(result.state, "japanese", "jn25-committed") == [
        {"kind": "jn25-committed", "cycle": 1}
    ]
    assert not told(result.state, "allied", "jn25-committed")
    assert "TF30" not in result.state[PRIVATE]["japanese"]["tfs"]  # no TF: a card only


def test_42_9_sigint_draws_from_the_deck_with_the_dummy_card(witp, start) -> None:  # type: ignore[no-untyped-def]
    state = _called(witp, start, "SIGINT")
    seen: set[str] = set()
    for seed in (b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h"):
        result = play(witp, state, seed, japanese=f"{MOVE_J}\n{FAKE}")
        (sigint,) = [e for e in result.events if e.kind == "sigint"]
        seen |= {c["tf"] for c in sigint.data["cards"]}
    assert seen == {"TF1", "TF30"}  # the secret stream picks either card


def test_42_9_who_may_write_a_dummy_card_and_how(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert refused(witp, start, "japanese", "DUMMYCARD TF30 MOVE E2420") == ["42.9"]  # no header
    assert refused(witp, start, "japanese", "DUMMYCARD TF1 SPEED 3 SHIPS Kaga") == ["42.9"]
    two = f"{FAKE}\nDUMMYCARD TF31 SPEED 1 SHIPS Kaga"
    assert refused(witp, start, "japanese", two) == ["42.9"]  # one card held at a time
    half = play(witp, start).state
    assert refused(witp, half, "allied", "DUMMYCARD TF30 SPEED 3 SHIPS Kaga") == ["42.9"]
    none = copy.deepcopy(start)
    none[PRIVATE]["japanese"]["jn25"] = {"held": 0, "committed_cycle": None}
    assert refused(witp, none, "japanese", FAKE) == ["42.9", "42.9"]
    # one card a Game-Turn: the next Naval Phase may file it again, not another
    state = play(witp, play(witp, start, japanese=FAKE).state).state
    assert refused(witp, state, "japanese", "DUMMYCARD TF31 SPEED 1 SHIPS Kaga") == ["42.9"]
    assert witp.validate(state, "japanese", FAKE).errors == ()


# -- Magic played from a plot (42.4) ------------------------------------------------------


def _holding(state: dict[str, Any], chit: str) -> dict[str, Any]:
    """``state`` with the Allies holding one more ``chit`` (a test's set-up)."""
    new = copy.deepcopy(state)
    new[PRIVATE]["allied"]["intelligence"]["magic"].append(chit)
    new["moderator"]["magic_cup"][chit] -= 1
    return new


def test_42_4_1_reveal_dummy_tf_from_a_plot_is_carried_out_on_the_next_cards(witp, start) -> None:  # type: ignore[no-untyped-def]
    half = _holding(play(witp, start).state, "reveal-dummy-tf")
    state = play(witp, half, allied="MAGIC REVEAL-DUMMY-TF").state
    result = play(witp, state)
    kinds = [(e.kind, e.witnesses) for e in result.events]
    assert ("magic-played", None) in kinds  # 42.4.2: shown when played
    assert ("dummy-sortie-burnt", None) in kinds  # no Japanese dummy at sea: a sortie burns


def test_42_4_magic_lines_name_a_held_chit_a_plot_can_play(witp, start) -> None:  # type: ignore[no-untyped-def]
    half = play(witp, start).state
    held = half[PRIVATE]["allied"]["intelligence"]["magic"]
    absent = next(c for c in ("reveal-dummy-tf", "reveal-2-tf", "reveal-1-tf") if c not in held)
    assert refused(witp, half, "allied", f"MAGIC {absent.upper()}") == ["42.4"]
    assert refused(witp, half, "allied", "MAGIC REPORT-FALSE") == [
        "42.4.1 (played on a search chit, 13.5)"
    ]
    assert refused(witp, half, "allied", "MAGIC STRIKE-SEQUENCE-2") == [
        "42.4.1 (an Air Strike Plot line, with its strike)"
    ]
    assert refused(witp, start, "japanese", "MAGIC REVEAL-DUMMY-TF") == ["42.4"]
    five = _holding(half, "reveal-1-tf")
    # +2: name 3-5 Japanese TFs on the Allies' map (42.4.1, R25); none is Located yet
    assert refused(witp, five, "allied", "MAGIC REVEAL-1-TF TF1 TF2 TF3") == ["42.4.1"]


# -- noninterference (the knowledge model's premise, with the new secrets) ---------------


@pytest.mark.parametrize("jn25", [2, 6])
@pytest.mark.parametrize("japanese", ["PASS", MOVE_J, f"{MOVE_J}\n{FAKE}"])
def test_42_noninterference_the_allies_see_nothing_of_the_uncalled_japanese_half(  # type: ignore[no-untyped-def]
    witp, start, japanese, jn25
) -> None:
    """No Sigint called: the Japanese plot, dummy card and JN-25 holding change
    nothing the Allies are mailed."""
    base = play(witp, start, japanese="PASS")
    other = copy.deepcopy(start)
    other[PRIVATE]["japanese"]["jn25"]["held"] = jn25
    world = play(witp, other, japanese=japanese)
    assert projection(base.state, "allied") == projection(world.state, "allied")
    assert witp.view(base.state, base.events, "allied") == witp.view(
        world.state, world.events, "allied"
    )
    assert witp.order_template(base.state, "allied") == witp.order_template(world.state, "allied")


@pytest.mark.parametrize("call", ["PASS", "SIGINT", "SIGINT RUSE", "MAGIC REVEAL-2-TF TF1 TF2 TF3"])
def test_42_noninterference_the_japanese_see_no_allied_holding_before_his_cards_close(  # type: ignore[no-untyped-def]
    witp, start, call
) -> None:
    """Whatever the Allies hold or call, the Japanese half is the same round with the
    same form and report until his cards close (R70): the split reads public
    knowledge only."""
    half = play(witp, start).state
    held = copy.deepcopy(half)
    held[PRIVATE]["allied"]["intelligence"].update(sigint_left=0, ruses_left=0, magic=[])
    for world in (half, held):
        v = witp.validate(world, "allied", call)
        state = witp.adjudicate(
            world, {"allied": list(v.accepted)}, SeededDice(b"g", "g", 1, "T1-naval1-plot")
        ).state
        state = past_allocation(witp, state)  # T1-air2-allocation: no strike
        assert witp.pending(state).phase == "T1-naval2-plot-japanese"
        assert witp.order_template(state, "japanese") == witp.order_template(
            _baseline(witp, half), "japanese"
        )
        assert projection(state, "japanese") == projection(_baseline(witp, half), "japanese")


def _baseline(witp: WitpRuleset, half: dict[str, Any]) -> dict[str, Any]:
    return past_allocation(
        witp,
        witp.adjudicate(
            half, {"allied": ["PASS"]}, SeededDice(b"g", "g", 1, "T1-naval1-plot")
        ).state,
    )


# -- the property: worlds a side cannot tell apart give it the same mail -------------------

JAPANESE_LINES = st.sampled_from(
    [
        "PASS",
        MOVE_J,
        FAKE,
        f"{MOVE_J}\n{FAKE}",
        "TF2 MOVE E2115 EV 0",
        f"TF2 MOVE E2115 EV 0\n{FAKE}",
    ]
)
CHITS = st.lists(
    st.sampled_from(("blank", "reveal-1-tf", "report-false", "reveal-2-tf")), max_size=4
)


def _same_for(side: str, a: Adjudication, b: Adjudication, witp: WitpRuleset) -> None:
    assert projection(a.state, side) == projection(b.state, side)
    assert [e.to_json() for e in a.events if e.seen_by(side)] == [
        e.to_json() for e in b.events if e.seen_by(side)
    ]
    assert json.dumps(witp.view(a.state, a.events, side)) == json.dumps(
        witp.view(b.state, b.events, side)
    )
    assert witp.order_template(a.state, side) == witp.order_template(b.state, side)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.tuples(JAPANESE_LINES, JAPANESE_LINES),
    jn25=st.tuples(st.integers(1, 6), st.integers(1, 6)),
    seed=st.binary(min_size=1, max_size=4),
)
def test_42_noninterference_the_japanese_half_tells_the_allies_nothing_uncalled(  # type: ignore[no-untyped-def]
    witp, start, lines, jn25, seed
) -> None:
    """The Japanese plot, dummy card and JN-25 holding of two worlds differ; the Allies
    called nothing: their projection, events, report and form are the same."""
    results = []
    for text, held in zip(lines, jn25, strict=True):
        world = copy.deepcopy(start)
        world[PRIVATE]["japanese"]["jn25"]["held"] = held
        results.append(play(witp, world, seed, japanese=text))
    _same_for("allied", *results, witp)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    calls=st.tuples(
        st.sampled_from(("SIGINT", "SIGINT RUSE")), st.sampled_from(("SIGINT", "SIGINT RUSE"))
    ),
    uses=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    ruses=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    magic=st.tuples(CHITS, CHITS),
    mine=JAPANESE_LINES,
    seed=st.binary(min_size=1, max_size=4),
)
def test_42_noninterference_a_sigint_event_is_all_the_japanese_learn(  # type: ignore[no-untyped-def]
    witp, start, calls, uses, ruses, magic, mine, seed
) -> None:
    """Two worlds whose Allies hold different uses, ruses and chits and call a real
    Sigint or a ruse: the Japanese, plotting the same, are told the same."""
    half = play(witp, start).state
    results = []
    for call, n, r, held in zip(calls, uses, ruses, magic, strict=True):
        world = copy.deepcopy(half)
        world[PRIVATE]["allied"]["intelligence"].update(sigint_left=n, ruses_left=r, magic=held)
        called = play(witp, world, allied=call).state
        results.append(play(witp, called, seed, japanese=mine))
    _same_for("japanese", *results, witp)


def test_42_3_1_r70_the_gate_ruling_is_japanese_first_or_off(witp) -> None:  # type: ignore[no-untyped-def]
    bad = {"rulings": {"sigint-plot-gate": {"value": "allied-first"}}}
    with pytest.raises(DataError, match="japanese-first or off"):
        witp.initial_state("coral-sea-1942", {"datapack": bad})
