"""12.3.2 Step 2 (R125): with three or more carrier strikes, the strikes flown at each
other (reciprocal) go before or after all the others, as the winner of a Day
initiative roll chose in his plot (RECIPROCAL BEFORE|AFTER; none: before). The
loser's choice is never used: the reports cannot depend on it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.ruleset import Adjudication
from pbem.core.sides import Side
from pbem.rulesets.witp.air import sequencing
from pbem.rulesets.witp.air.strikes import AirStrike, StrikePart, StrikeTarget
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.work import Work

from .conftest import SCENARIO
from .naval import NO_GATE, tfs
from .test_air_play import NEAR, STRIKING_FORCE, TF17, YORKTOWN_STRIKE, kinds, located, play

ALLIED = YORKTOWN_STRIKE + "\nSTRIKE S2 FROM TF2 3xSBD-3 TARGET TF2"  # and Lexington's
JAPANESE = "STRIKE K1 FROM TF2 2xD3A1 2xB5N2 TARGET TF3"  # at Yorktown: S1's and K1's


class Battle(dict[str, Any]):
    """test_air_play's ``battle`` (both carrier forces Located, each told the other's
    composition), once a module, with a short repr for Hypothesis."""

    @classmethod
    def of(cls, witp: WitpRuleset) -> Battle:
        state = witp.initial_state(SCENARIO, {"datapack": NO_GATE})
        state = dict(witp.adjudicate(state, {}, SeededDice(b"n", "g", 1, "T1-open")).state)
        tfs(state, "japanese")[STRIKING_FORCE]["hex"] = NEAR
        located(state, "japanese", STRIKING_FORCE, "2 CV 2 CA 3 DD 1 AO TOTAL 8")
        located(state, "allied", TF17, "1 CV 3 CA 2 DD TOTAL 6")
        return cls(state)

    def __repr__(self) -> str:
        return "Battle(T1-air1-allocation)"


@pytest.fixture(scope="module")
def battle(witp: WitpRuleset) -> Battle:
    return Battle.of(witp)


def _part(tf: str) -> StrikePart:
    return StrikePart(tf, None, True, 0, ())


def _strike(froms: list[str], target: str) -> AirStrike:
    at = StrikeTarget(Side.JAPANESE, target, "")  # only the TFs count here
    return AirStrike("S", Side.ALLIED, at, parts=tuple(_part(f) for f in froms))


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
    battle: dict[str, Any],
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


def segment(
    witp: WitpRuleset, state: dict[str, Any], seed: bytes, allied: str, japanese: str
) -> Adjudication:
    return play(
        witp,
        copy.deepcopy(state),
        seed,
        allied=f"{ALLIED}\nRECIPROCAL {allied}",
        japanese=f"{JAPANESE}\nRECIPROCAL {japanese}",
    )


def winner(out: Adjudication) -> str:
    (told,) = kinds(out, "reciprocal-strikes")
    return str(told["winner"])


def test_12_3_2_step_2_the_winner_chooses_reciprocal_strikes_first_or_last(
    witp: WitpRuleset,
    battle: dict[str, Any],
) -> None:
    seed = next(
        s
        for s in (bytes([i]) * 8 for i in range(40))
        if winner(segment(witp, battle, s, "AFTER", "AFTER")) == "allied"
    )
    after = segment(witp, battle, seed, "AFTER", "BEFORE")
    (told,) = kinds(after, "reciprocal-strikes")
    assert told["choice"] == "after" and len(told["rolls"][-1]) == 2  # open, told to both
    assert _allied_order(after) == ["S2", "S1"]  # the strike not at a launching TF first
    before = segment(witp, battle, seed, "BEFORE", "AFTER")
    assert _allied_order(before) == ["S1", "S2"]  # the winner's choice, not the loser's
    default = play(witp, copy.deepcopy(battle), seed, allied=ALLIED, japanese=JAPANESE)
    assert kinds(default, "reciprocal-strikes")[0]["choice"] == "before"  # none filed


def test_12_3_2_step_2_no_roll_unless_both_kinds_are_plotted(battle: Battle) -> None:
    """All strikes reciprocal (or none): nothing to choose, no die rolled (R125)."""
    plotted = [
        ("allied", "S1", _strike(["TF3"], "TF2")),
        ("allied", "S2", _strike(["TF2"], "TF1")),
        ("japanese", "K1", _strike(["TF2"], "TF3")),
        ("japanese", "K2", _strike(["TF1"], "TF2")),
    ]
    order = [(s, i) for s, i, _x in plotted]
    work = Work.begin(battle)
    got, events = sequencing.play_step_two(work, plotted, order, {}, ScriptedDice([]), "t")
    assert got == order and events == []
    assert work.finish() == Work.begin(battle).finish()  # nothing told


def test_12_3_2_step_2_the_roll_and_choice_are_told_to_both(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    out = segment(witp, battle, b"\x01" * 8, "AFTER", "AFTER")
    (told,) = [e for e in out.events if e.kind == "reciprocal-strikes"]
    assert told.seen_by("allied") and told.seen_by("japanese")
    two = play(witp, copy.deepcopy(battle), b"q", allied=YORKTOWN_STRIKE, japanese=JAPANESE)
    assert not kinds(two, "reciprocal-strikes")  # two carrier strikes: no Step 2
