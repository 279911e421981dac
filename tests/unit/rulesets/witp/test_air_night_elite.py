"""7.11.5 (R129): Japanese elite APs with "Night" status may fly day missions without
losing it, but then without their elite bonuses; they still count towards the elite
majority of land-based torpedo arming (7.10)."""

from __future__ import annotations

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp.air import elite, torpedo
from pbem.rulesets.witp.air.flying import FlyingElement, LaunchedPart
from pbem.rulesets.witp.air.ships import Holding, holdings
from pbem.rulesets.witp.air.strikes import AirElement, StrikePart
from pbem.rulesets.witp.work import Work

from .test_air_world import knowing, world

RABAUL = {
    "Rabaul": {
        "hex": "E2010",
        "air_points": {"G4M1": 6},
        "elite": {"G4M1": 4},
        "night_elite": {"G4M1": 3},  # three of the four elite hold Night status
    }
}
BETTYS = [FlyingElement("G4M1", 4, "T", "L")]


def _holders() -> list[Holding]:
    return holdings(knowing(world(bases={JAPANESE: RABAUL}), JAPANESE), JAPANESE, "Rabaul")


def test_7_11_5_by_day_the_night_elite_fly_without_their_bonuses() -> None:
    got = elite.split(_holders(), BETTYS)
    assert [(e.n, e.elite) for e in got] == [(1, True), (3, False)]


def test_7_11_5_at_night_they_are_elite() -> None:
    got = elite.split(_holders(), BETTYS, by_day=False)
    assert [(e.n, e.elite) for e in got] == [(4, True)]


def test_7_11_5_the_night_elite_count_for_torpedo_arming() -> None:
    """4 of the 6 G4M1 present are elite, 3 of them Night: still a majority, +1."""
    s = world(bases={JAPANESE: RABAUL})
    plotted = StrikePart("Rabaul", "E2010", False, 36, (AirElement("G4M1", 4, "T", "L"),))
    work = Work.begin(s)
    part = LaunchedPart.of(plotted)
    _got, fact = torpedo.at_launch(work.pack, work, JAPANESE, part, ScriptedDice([1, 1]), "x")
    assert fact is not None and fact.elite_majority and fact.drm == 1


def test_37_1_7_kwajalein_one_elite_nell_in_three_is_attrited() -> None:
    """The rulebook's example: one elite and one non-elite G3M at Kwajalein, one to be
    attrited: the non-elite counts double, so the elite goes on 1 draw in 3."""
    lost = [
        elite.attrition(SeededDice(bytes([i, j]) * 8, "g", 1, "S"), 1, 1, 1, "37.1.7")
        for i in range(30)
        for j in range(10)
    ]
    assert set(lost) == {0, 1}
    assert 0.25 < sum(lost) / len(lost) < 0.42  # 1/3


def test_37_1_7_every_loss_is_drawn_never_more_than_present() -> None:
    dice = ScriptedDice([1] * 20)  # always the first ticket: an elite AP
    assert elite.attrition(dice, 2, 3, 4, "x") == 2  # the elite run out; then regulars
    assert elite.attrition(ScriptedDice([]), 0, 3, 2, "x") == 0  # no draw: no elite
    assert elite.attrition(ScriptedDice([]), 2, 0, 5, "x") == 2  # none but elite
