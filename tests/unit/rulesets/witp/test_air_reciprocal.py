"""12.3.2 Step 2 (R125): with three or more carrier strikes, the strikes flown at each
other (reciprocal) go before or after all the others, as the winner of a Day
initiative roll chose in his plot (RECIPROCAL BEFORE|AFTER; none: before). The
loser's choice is never used: the reports cannot depend on it."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.ruleset import Adjudication
from pbem.rulesets.witp.air import sequencing
from pbem.rulesets.witp.knowledge import Knowledge
from pbem.rulesets.witp.ruleset import WitpRuleset

from .strikeworld import report
from .test_air_play import YORKTOWN_STRIKE, allocation, battle, kinds, play  # noqa: F401

ALLIED = YORKTOWN_STRIKE + "\nSTRIKE S2 FROM TF2 3xSBD-3 TARGET TF2"  # and Lexington's
JAPANESE = "STRIKE K1 FROM TF2 2xD3A1 2xB5N2 TARGET TF3"  # at Yorktown: S1's and K1's


def _part(tf: str) -> dict[str, Any]:
    return {"base": tf, "carrier": True}


def _strike(froms: list[str], target: str) -> dict[str, Any]:
    return {"parts": [_part(f) for f in froms], "target": {"tf": target}}


def test_12_3_2_step_2_strikes_at_each_others_launching_tfs_are_reciprocal() -> None:
    plotted = [
        ("allied", "S1", _strike(["TF3"], "TF2")),
        ("allied", "S2", _strike(["TF2"], "TF2")),
        ("japanese", "K1", _strike(["TF2"], "TF3")),
        ("japanese", "K2", _strike(["TF1"], "TF2")),  # at Lexington, which strikes TF2
    ]
    assert sequencing.reciprocal(plotted) == {("allied", "S1"), ("japanese", "K1")}
    plotted[1] = ("allied", "S2", _strike(["TF2", "TF3"], "TF1"))  # a Joint Strike back
    assert sequencing.reciprocal(plotted) == {
        ("allied", "S1"),
        ("japanese", "K1"),
        ("allied", "S2"),
        ("japanese", "K2"),
    }


def test_12_3_2_step_2_the_chosen_group_first_each_in_step_3_order() -> None:
    order = [("japanese", "K1"), ("allied", "S2"), ("allied", "S1"), ("japanese", "K2")]
    mutual = {("allied", "S1"), ("japanese", "K1")}
    assert sequencing.step_two(order, mutual, "before") == [
        ("japanese", "K1"),
        ("allied", "S1"),
        ("allied", "S2"),
        ("japanese", "K2"),
    ]
    assert sequencing.step_two(order, mutual, "after") == [
        ("allied", "S2"),
        ("japanese", "K2"),
        ("japanese", "K1"),
        ("allied", "S1"),
    ]


def test_12_3_2_step_2_reciprocal_is_judged_once_a_plot(
    witp: WitpRuleset,
    battle: dict[str, Any],  # noqa: F811
) -> None:
    v = witp.validate(battle, "allied", "RECIPROCAL AFTER\nRECIPROCAL BEFORE\nRECIPROCAL SOON")
    assert v.accepted == ("RECIPROCAL AFTER",)
    assert [(e.line, e.rule) for e in v.errors] == [(2, "12.3.2"), (3, "12.3.2")]
    assert "once a plot" in v.errors[0].message and "BEFORE|AFTER" in v.errors[1].message


def _allied_order(out: Adjudication) -> list[str]:
    """The Allied strikes' order, as the Allies are told it (R115)."""
    (told,) = [
        e.data["strikes"]
        for e in out.events
        if e.kind == "carrier-strike-order" and tuple(e.witnesses or ()) == ("allied",)
    ]
    return list(told)


def _segment(
    witp: WitpRuleset, state: dict[str, Any], seed: bytes, allied: str, japanese: str
) -> Adjudication:
    return play(
        witp,
        copy.deepcopy(state),
        seed,
        allied=f"{ALLIED}\nRECIPROCAL {allied}",
        japanese=f"{JAPANESE}\nRECIPROCAL {japanese}",
    )


def _winner(out: Adjudication) -> str:
    (told,) = kinds(out, "reciprocal-strikes")
    return str(told["winner"])


def test_12_3_2_step_2_the_winner_chooses_reciprocal_strikes_first_or_last(
    witp: WitpRuleset,
    battle: dict[str, Any],  # noqa: F811
) -> None:
    seed = next(
        s
        for s in (bytes([i]) * 8 for i in range(40))
        if _winner(_segment(witp, battle, s, "AFTER", "AFTER")) == "allied"
    )
    after = _segment(witp, battle, seed, "AFTER", "BEFORE")
    (told,) = kinds(after, "reciprocal-strikes")
    assert told["choice"] == "after" and len(told["rolls"][-1]) == 2  # open, told to both
    assert _allied_order(after) == ["S2", "S1"]  # the strike not at a launching TF first
    before = _segment(witp, battle, seed, "BEFORE", "AFTER")
    assert _allied_order(before) == ["S1", "S2"]  # the winner's choice, not the loser's
    default = play(witp, copy.deepcopy(battle), seed, allied=ALLIED, japanese=JAPANESE)
    assert kinds(default, "reciprocal-strikes")[0]["choice"] == "before"  # none filed


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.binary(min_size=8, max_size=8), st.sampled_from(("BEFORE", "AFTER")))
def test_12_3_2_step_2_the_losers_choice_cannot_be_told(
    witp: WitpRuleset,
    battle: dict[str, Any],  # noqa: F811
    seed: bytes,
    mine: str,
) -> None:
    """Noninterference: worlds differing in the loser's RECIPROCAL give both sides the
    same knowledge and report; the winner's choice (a control) does show."""
    first = _segment(witp, battle, seed, mine, mine)
    loser = "japanese" if _winner(first) == "allied" else "allied"
    flip = {"BEFORE": "AFTER", "AFTER": "BEFORE"}[mine]
    other = _segment(
        witp,
        battle,
        seed,
        flip if loser == "allied" else mine,
        flip if loser == "japanese" else mine,
    )
    for side in ("allied", "japanese"):
        a, b = (Knowledge.of(o.state, side) for o in (first, other))
        assert a.disclosed == b.disclosed
        assert report(witp, first.state, list(first.events), side) == report(
            witp, other.state, list(other.events), side
        )
    control = _segment(
        witp,
        battle,
        seed,
        flip if loser == "japanese" else mine,
        flip if loser == "allied" else mine,
    )
    assert kinds(control, "reciprocal-strikes") != kinds(first, "reciprocal-strikes")
