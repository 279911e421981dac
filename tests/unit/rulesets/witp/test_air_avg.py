"""6.2.2, 6.2.3 The AVG in air combat: its bounce, its +1, and the Allied player
told the strike's make-up before the AVG fights (R133)."""

from __future__ import annotations

from typing import Any

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp import strikeview
from pbem.rulesets.witp.air import avg, plot
from pbem.rulesets.witp.air.combat import Attack, Bounce, Stack, resolve_level
from pbem.rulesets.witp.air.strike.plotted import Covering
from pbem.rulesets.witp.air.tables import MAP_START, air_to_air
from pbem.rulesets.witp.datapack import StoredPack, public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import DISCLOSURES, PUBLIC

from .test_air_world import PUBLIC_PACK, knowing, resolve_stored, ship, told, world

P40 = {
    "units/air-P-40B": {
        "provenance": "illustrative",
        "source": "the test's",
        "pack": "test",
        "value": {
            "air": {"normal": 4, "extended": 3, "altitude": "L"},
            "anti_ship": {},
            "torpedo_range": 0,
            "transfer_range": 100,
            "night_rated": False,
        },
    },
    "units/ap-P-40B": {
        "provenance": "illustrative",
        "source": "the test's",
        "pack": "test",
        "value": {
            "roles": ["F"],
            "carrier": False,
            "search": {"short": 0, "medium": 0, "long": 0, "extended": 0},
            "extended_reach": 0,
            "range": {"normal": 48, "extended": 72},
        },
    },
    avg.BASE: {
        "provenance": "history",
        "source": "the test's",
        "pack": "test",
        "value": {"base": "Kunming"},
    },
}
PACK = {**PUBLIC_PACK, **P40}
PUB = public_pack({"pack": PACK})
TIME = "T1/air1/strike"
RABAUL = {"Rabaul": {"hex": "E2004", "air_points": {"G4M1": 4, "A6M2": 2}}}
STRIKE = "STRIKE S1 FROM Rabaul 4xG4M1@M TARGET TF2\nESCORT S1 FROM Rabaul 2xA6M2@M LOOSE"


def _pack(start: str) -> StoredPack:
    return public_pack(
        {
            "pack": {
                **PACK,
                MAP_START: {
                    "value": start,
                    "provenance": "illustrative",
                    "source": "the test's",
                    "pack": "test",
                },
            }
        }
    )


def test_6_2_3_us_p40s_at_the_avg_base_until_0_7_42() -> None:
    assert avg.is_avg(PUB, "Kunming", "P-40B")
    assert not avg.is_avg(PUB, "Rangoon", "P-40B")  # not the AVG Base
    assert not avg.is_avg(PUB, "Kunming", "P-39")  # not a P-40
    assert avg.is_avg(_pack("jun1942"), "Kunming", "P-40B")
    assert not avg.is_avg(_pack("jul1942"), "Kunming", "P-40B")  # disbanded
    assert not avg.is_avg(public_pack({"pack": PUBLIC_PACK}), "Kunming", "P-40B")  # no marker


def _step_points(step: Attack, drm: int) -> None:
    got = (step.aborted_points, step.eliminated_points)
    assert got == air_to_air(PUB, step.strength, step.aps, step.roll + drm)


def test_6_2_3_the_avg_cap_takes_the_bounce_unrolled_and_adds_1_to_its_rolls() -> None:
    dice = ScriptedDice([3, 3] * 20)
    tigers = [Stack("P-40B", 3, 4, 4, True, avg=True)]
    zeros = [Stack("A6M2", 2, 5, 5, True)]
    fight = resolve_level(PUB, "M", tigers, zeros, [], [], dice)
    assert fight.bounce == Bounce(None, 0, "cap", avg=True)
    assert fight.routine == "C"
    assert not any(p.startswith("bounce") for _, p in dice.rolls)
    for step in fight.steps:
        drm = 1 if step.attacker == "cap" else 0
        assert step.drm == drm
        _step_points(step, drm)
    assert any(s.attacker == "cap" for s in fight.steps)


def test_6_2_3_an_avg_escort_takes_the_bounce_over_the_cap() -> None:
    dice = ScriptedDice([3, 3] * 20)
    escort = [Stack("P-40B", 2, 4, 4, True, avg=True)]
    fight = resolve_level(PUB, "M", [Stack("A6M2", 2, 5, 5, True)], escort, [], [], dice)
    assert fight.bounce is not None and fight.bounce.to == "escort"
    assert fight.routine == "D" and fight.steps[0].attacker == "loose escort"
    assert fight.steps[0].drm == 1


def _struck(seed: int) -> dict[str, Any]:
    s = world(
        allied=[ship("Astoria", "CA", "ship-ca-new-orleans")],
        located=("allied:TF2",),
        bases={JAPANESE: RABAUL},
    )
    s[PUBLIC]["pack"] = PACK
    p, errors = plot.judge(knowing(s, JAPANESE), JAPANESE, STRIKE)
    assert errors == []
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    cover = [Covering("P-40B", 3, avg=True)]
    st, _ = resolve_stored(
        s, p.air_strikes["S1"], dice, SecretDice(b"x" * 12, "s"), TIME, cover=cover
    )
    return st


def test_6_2_2_the_allied_player_is_told_the_strikes_make_up_before_the_avg_fights() -> None:
    st = _struck(3)
    (told_,) = told(st, ALLIED, "avg-strike-composition")
    assert told_["levels"] == {"M": {"bombers": {"G4M1": 4}, "escorts": {"A6M2 loose": 2}}}
    assert told(st, JAPANESE, "avg-strike-composition") == []
    kinds = [d["fact"]["kind"] for d in st[DISCLOSURES]]
    assert kinds.index("avg-strike-composition") < kinds.index("air-combat")
    (fight,) = told(st, ALLIED, "air-combat")
    assert fight["bounce"]["to"] == "cap" and fight["bounce"].get("avg")
    (block,) = strikeview.build(knowing(st, ALLIED))
    assert any("before the AVG fights, the strike at M" in n for n in block["notes"])
    assert any("(6.2.3: the AVG)" in n for n in block["notes"])
