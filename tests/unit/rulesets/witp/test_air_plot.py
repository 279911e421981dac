"""The Air Strike Plot (5.0, 5.1, 5.3, 5.10, 4.4.1, 7.1 B, 14.2.2), judged from the
side's Knowledge only; every refused line names its line, reason and rule."""

from __future__ import annotations

from typing import Any

from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import plot
from pbem.rulesets.witp.air.strikeplot import AirPlot
from pbem.rulesets.witp.knowledge import DISCLOSURES, PRIVATE

from .test_air_world import knowing, world

RABAUL = {"Rabaul": {"hex": "E2004", "air_points": {"G4M1": 6, "A6M2": 4, "H6K4": 2}}}
MORESBY = {"Port Moresby": {"hex": "E2020", "air_points": {"B-17E": 4, "P-39": 3}}}


def _judge(state: dict[str, Any], side: str, text: str) -> tuple[AirPlot, list[Any]]:
    return plot.judge(knowing(state, side), side, text)


def _one_error(state: dict[str, Any], side: str, text: str) -> Any:
    _p, errors = _judge(state, side, text)
    assert len(errors) == 1, errors
    return errors[0]


def test_5_0_a_carrier_strike_with_escort_is_accepted() -> None:
    p, errors = _judge(
        world(),
        ALLIED,
        "AIRPLOT\nSTRIKE S1 FROM TF2 3xSBD-3/D 1xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3@M CLOSE",
    )
    assert errors == []
    part = p.air_strikes["S1"].parts[0]
    assert part.carrier and part.mp == 36
    assert [(e.type, e.role, e.alt, e.range) for e in part.elements] == [
        ("SBD-3", "D", "M", "normal"),
        ("TBD-1", "T", "L", "normal"),
    ]
    assert part.escorts[0].posture == "close"


def test_5_1_6_no_strike_on_a_tf_that_is_not_located() -> None:
    err = _one_error(world(located=()), ALLIED, "STRIKE S1 FROM TF2 3xSBD-3 TARGET TF1")
    assert (err.line, err.rule) == (1, "5.1.6") and "not Located" in err.message


def test_13_6_4_no_strike_on_a_tf_last_reported_as_a_dummy() -> None:
    s = world()
    s[DISCLOSURES].append(
        {
            "fact": {
                "kind": "search-report",
                "owner": JAPANESE,
                "tf": "TF1",
                "report": "dummy",
                "source": "air",
            },
            "audience": [ALLIED, JAPANESE],
            "time": "T1/air1/search",
            "rule": "13.5.7",
        }
    )
    err = _one_error(s, ALLIED, "STRIKE S1 FROM TF2 3xSBD-3 TARGET TF1")
    assert err.rule == "13.6.4"


def test_5_1_6_the_gate_reads_knowledge_not_truth() -> None:
    # the Japanese TF1 is real, but what matters is what the Allies were told
    a, b = world(), world()
    b[PRIVATE][JAPANESE]["tfs"]["TF1"]["ships"] = []  # in truth a dummy
    b[PRIVATE][JAPANESE]["tfs"]["TF1"]["dummy"] = True
    text = "STRIKE S1 FROM TF2 3xSBD-3 TARGET TF1"
    assert _judge(a, ALLIED, text)[0].filed() == _judge(b, ALLIED, text)[0].filed()


def test_5_1_1_an_ap_flies_one_mission_a_phase() -> None:
    err = _one_error(
        world(),
        ALLIED,
        "STRIKE S1 FROM TF2 4xSBD-3 TARGET TF1\nCOVER C1 FROM TF2 3xF4F-3 OVER E2016\n"
        "STRIKE S2 FROM TF2 3xSBD-3 TARGET TF1",
    )
    assert (err.line, err.rule) == (3, "5.1.1")


def test_5_1_7_one_strike_a_base_a_target() -> None:
    err = _one_error(
        world(),
        ALLIED,
        "STRIKE S1 FROM TF2 2xSBD-3 TARGET TF1\nSTRIKE S2 FROM TF2 2xSBD-3 TARGET TF1",
    )
    assert (err.line, err.rule) == (2, "5.1.7")


def test_5_6_fighters_do_not_fly_naval_strikes_and_4_2_2_roles_are_the_types() -> None:
    err = _one_error(world(), ALLIED, "STRIKE S1 FROM TF2 2xF4F-3 TARGET TF1")
    assert err.rule == "5.6"
    err = _one_error(world(), ALLIED, "STRIKE S1 FROM TF2 2xSBD-3/T TARGET TF1")
    assert err.rule == "4.2.2"


def test_7_1_b_torpedo_bombers_approach_low() -> None:
    err = _one_error(world(), ALLIED, "STRIKE S1 FROM TF2 1xTBD-1/T@M TARGET TF1")
    assert err.rule == "7.1"


def test_5_0_escorts_only_at_an_altitude_their_bombers_fly() -> None:
    err = _one_error(
        world(),
        ALLIED,
        "STRIKE S1 FROM TF2 1xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3@H LOOSE",
    )
    assert (err.line, err.rule) == (2, "5.0")


def test_5_3_1_an_escort_names_its_altitude() -> None:
    err = _one_error(
        world(), ALLIED, "STRIKE S1 FROM TF2 1xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3 LOOSE"
    )
    assert err.rule == "5.3.1"


def test_5_14_1_torpedoes_have_their_own_range() -> None:
    s = world(bases={ALLIED: MORESBY})
    s[PRIVATE][ALLIED]["tfs"]["TF2"]["hex"] = "E2030"  # 20 hexes: 120 MP, beyond the TBD's 36
    err = _one_error(s, ALLIED, "STRIKE S1 FROM TF2 1xTBD-1/T TARGET TF1")
    assert err.rule == "5.14.1"


def test_5_15_extreme_range_is_6_mp_beyond_extended() -> None:
    s = world(bases={JAPANESE: RABAUL}, located=("allied:TF2",))
    s[PRIVATE][JAPANESE]["air_bases"]["Rabaul"]["hex"] = "E2040"  # 24 hexes: 144 MP
    p, errors = _judge(s, JAPANESE, "STRIKE S1 FROM Rabaul 2xG4M1@M TARGET TF2")
    assert errors == [] and p.air_strikes["S1"].parts[0].elements[0].range == "extended"
    s[PRIVATE][JAPANESE]["air_bases"]["Rabaul"]["hex"] = "E2041"  # 150 MP: extreme
    p, errors = _judge(s, JAPANESE, "STRIKE S1 FROM Rabaul 2xG4M1@M TARGET TF2")
    assert p.air_strikes["S1"].parts[0].elements[0].range == "extreme"
    s[PRIVATE][JAPANESE]["air_bases"]["Rabaul"]["hex"] = "E2043"  # 162 MP: out of reach
    assert _one_error(s, JAPANESE, "STRIKE S1 FROM Rabaul 2xG4M1@M TARGET TF2").rule == "5.15"


def test_5_10_a_second_base_on_the_same_strike_is_a_joint_strike() -> None:
    s = world(bases={JAPANESE: RABAUL}, located=("allied:TF2",))
    p, errors = _judge(
        s,
        JAPANESE,
        "STRIKE S1 FROM TF1 2xD3A1 2xB5N2/T TARGET TF2\nSTRIKE S1 FROM Rabaul 4xG4M1/T TARGET TF2",
    )
    assert errors == []
    assert [part.base for part in p.air_strikes["S1"].parts] == ["TF1", "Rabaul"]


def test_14_2_2_only_night_rated_bombers_strike_ships_at_night_unescorted() -> None:
    s = world(bases={JAPANESE: RABAUL}, located=("allied:TF2",))
    p, errors = _judge(s, JAPANESE, "STRIKE S1 FROM Rabaul 2xG4M1/T TARGET TF2 NIGHT")
    assert errors == [] and p.air_strikes["S1"].night
    err = _one_error(s, JAPANESE, "STRIKE S1 FROM TF1 2xD3A1 TARGET TF2 NIGHT")
    assert err.rule == "14.2.2"
    err = _one_error(
        s,
        JAPANESE,
        "STRIKE S1 FROM Rabaul 2xG4M1/T TARGET TF2 NIGHT\nESCORT S1 FROM Rabaul 2xA6M2@L LOOSE",
    )
    assert err.rule == "14.0"


def test_5_3_4_naval_cover_protects_ones_own_tf() -> None:
    s = world(bases={ALLIED: MORESBY})
    p, errors = _judge(s, ALLIED, "NAVALCOVER C1 FROM Port_Moresby 2xP-39 OVER TF2")
    assert (
        errors == []
        and p.cover_flights["C1"].kind == "naval-cover"
        and p.cover_flights["C1"].mp == 24
    )
    err = _one_error(s, ALLIED, "NAVALCOVER C1 FROM Port_Moresby 2xP-39 OVER TF1")
    assert err.rule == "5.3.4"
    err = _one_error(s, ALLIED, "COVER C2 FROM Port_Moresby 2xB-17E OVER E2016")
    assert err.rule == "5.3"


def test_4_4_1_air_transfers_are_plotted_within_transfer_range() -> None:
    s = world(bases={JAPANESE: RABAUL})
    p, errors = _judge(s, JAPANESE, "TRANSFER T1 2xA6M2 FROM Rabaul TO TF1")
    assert errors == [] and p.air_transfers["T1"].to_carrier
    err = _one_error(
        s,
        JAPANESE,
        "TRANSFER T1 2xA6M2 FROM Rabaul TO TF1\nSTRIKE S1 FROM Rabaul 3xA6M2 TARGET TF2",
    )
    assert err.line == 2


def test_refusals_name_line_reason_and_rule_and_unknown_words_are_refused() -> None:
    _p, errors = _judge(
        world(), ALLIED, "\n# plot\nLAUNCH everything\nSTRIKE S1 FROM Nowhere 2xSBD-3 TARGET TF1"
    )
    assert [(e.line, e.rule) for e in errors] == [(3, None), (4, "5.0")]
    assert all(e.message for e in errors)
