"""5.8 Special strikes against moving TFs in the Naval Phase, as standing orders."""

from __future__ import annotations

from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import special
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import DISCLOSURES

from .test_air_world import knowing, resolve_stored, told, world

MORESBY = {ALLIED: {"Port Moresby": {"hex": "E2016", "air_points": {"B-17E": 4, "P-39": 3}}}}
ORDERS = (
    "SPECIAL X1 FROM TF2 4xSBD-3/D 2xTBD-1/T ESCORT 2xF4F-3@M CLOSE AGAINST CV,MSU RANGE NORMAL"
)


def _report(state: dict[str, Any], text: str) -> None:
    state[DISCLOSURES].append(
        {
            "fact": {
                "kind": "search-report",
                "owner": JAPANESE,
                "tf": "TF1",
                "report": text,
                "source": "air",
            },
            "audience": [ALLIED, JAPANESE],
            "time": "T1/naval1/execution",
            "rule": "13.5.7",
        }
    )


def _orders(state: dict[str, Any], text: str = ORDERS) -> list[special.SpecialOrder]:
    orders, errors = special.judge(knowing(state, ALLIED), ALLIED, text)
    assert errors == []
    return orders


def test_5_8_a_standing_special_strike_is_judged_when_filed() -> None:
    s = world()
    (order,) = _orders(s)
    assert order.against == ("CV", "MSU") and order.range == "normal"
    _o, errors = special.judge(
        knowing(s, ALLIED), ALLIED, "SPECIAL X2 FROM TF2 9xSBD-3 AGAINST ANY"
    )
    assert [(e.line, e.rule) for e in errors] == [(1, "5.8")]
    _o, errors = special.judge(knowing(s, ALLIED), ALLIED, "SPECIAL X2 FROM TF2 2xF4F-3")
    assert errors[0].rule == "5.6"


def test_5_3_and_4_1_a_special_strikes_escort_is_checked_as_the_plots_is() -> None:
    s = world()
    k, order = knowing(s, ALLIED), "SPECIAL X2 FROM TF2 2xSBD-3"
    _o, errors = special.judge(k, ALLIED, f"{order} ESCORT 2xSBD-3@M CLOSE")
    assert [(e.rule, e.message) for e in errors] == [
        ("5.3", "SBD-3 is no fighter: only fighters escort")
    ]
    _o, errors = special.judge(k, ALLIED, f"{order} ESCORT 2xXF9@M CLOSE")
    assert [(e.rule, "no Air Point Chart values for XF9" in e.message) for e in errors] == [
        ("4.1", True)
    ]


def test_5_8_a_contacted_moving_tf_reported_with_carriers_is_struck() -> None:
    s = world()
    _report(s, "2 CV, 2 CA, 1 DD; total 5")
    (strike,) = special.launches(
        knowing(s, ALLIED), ALLIED, _orders(s), JAPANESE, "TF1", "E2010", night=False
    )
    assert strike.special and strike.target.to_json() == {
        "owner": JAPANESE,
        "tf": "TF1",
        "hex": "E2010",
    }
    assert [e.type for e in strike.parts[0].elements] == ["SBD-3", "TBD-1"]
    st, _ = resolve_stored(
        s,
        strike,
        SeededDice(b"s" * 16, "g", 1, "n1"),
        SecretDice(b"t" * 12, "x"),
        "T1/naval1",
    )
    assert told(st, JAPANESE, "strike-launched")  # 5.8: resolved as a Naval Strike


def test_5_8_the_order_filters_by_reported_types_and_range() -> None:
    s = world()
    _report(s, "2 CA, 1 DD; total 3")
    assert (
        special.launches(
            knowing(s, ALLIED), ALLIED, _orders(s), JAPANESE, "TF1", "E2010", night=False
        )
        == []
    )
    _report(s, "1 CV; total 1")
    far = special.launches(
        knowing(s, ALLIED), ALLIED, _orders(s), JAPANESE, "TF1", "E2001", night=False
    )
    assert far == []  # 15 hexes: 90 MP, beyond the SBDs' normal 48


def test_16_6_1_no_special_strike_on_a_tf_moving_at_night() -> None:
    s = world()
    _report(s, "2 CV; total 2")
    assert (
        special.launches(
            knowing(s, ALLIED), ALLIED, _orders(s), JAPANESE, "TF1", "E2010", night=True
        )
        == []
    )


def test_5_8_13_6_4_no_special_strike_unless_contacted_and_not_a_reported_dummy() -> None:
    s = world(located=())
    assert (
        special.launches(
            knowing(s, ALLIED), ALLIED, _orders(s), JAPANESE, "TF1", "E2010", night=False
        )
        == []
    )
    s = world()
    _report(s, "dummy")
    orders = _orders(s, ORDERS.replace("AGAINST CV,MSU", "AGAINST ANY"))
    assert (
        special.launches(knowing(s, ALLIED), ALLIED, orders, JAPANESE, "TF1", "E2010", night=False)
        == []
    )


def test_5_8_2_one_special_strike_a_base_a_tf_the_next_tf_through_the_apat() -> None:
    s = world(bases=MORESBY)
    _report(s, "2 CV; total 2")
    orders = _orders(s, ORDERS + "\nSPECIAL X2 FROM Port_Moresby 4xB-17E@H AGAINST ANY")
    k = knowing(s, ALLIED)
    assert special.launches(
        k, ALLIED, orders, JAPANESE, "TF1", "E2010", night=False, struck={("TF2", "TF1")}
    ) == [
        s_
        for s_ in special.launches(k, ALLIED, orders, JAPANESE, "TF1", "E2010", night=False)
        if s_.id == "X2"
    ]
    again = special.launches(
        k, ALLIED, orders, JAPANESE, "TF1", "E2010", night=False, struck={("TF2", "TF7")}
    )
    assert next(x for x in again if x.id == "X1").parts[0].apat
    gone = special.launches(
        k,
        ALLIED,
        orders,
        JAPANESE,
        "TF1",
        "E2010",
        night=False,
        aborted={("Port Moresby", "B-17E"): 4},
    )
    assert [x.id for x in gone] == ["X1"]  # aborted APs stay home (5.8.2)


def test_5_8_2_a_successive_special_strike_rolls_the_apat_for_each_type() -> None:
    s = world()
    _report(s, "2 CV; total 2")
    k = knowing(s, ALLIED)
    (strike,) = special.launches(
        k, ALLIED, _orders(s), JAPANESE, "TF1", "E2010", night=False, struck={("TF2", "TF5")}
    )
    st, _ = resolve_stored(
        s,
        strike,
        SeededDice(b"u" * 16, "g", 1, "n1"),
        SecretDice(b"v" * 12, "x"),
        "T1/naval1",
    )
    rolls = told(st, ALLIED, "joint-availability")
    assert {r["type"] for r in rolls} == {"SBD-3", "TBD-1", "F4F-3"}
    assert not told(st, JAPANESE, "joint-availability")


NIGHT_ORDER = "SPECIAL N1 FROM Port_Moresby 2xB-17E NIGHT"


def test_14_2_2_a_night_special_strike_is_night_rated_and_unescorted() -> None:
    s = world(bases=MORESBY)
    (order,) = _orders(s, NIGHT_ORDER)
    assert order.night is True
    k = knowing(s, ALLIED)
    _o, errors = special.judge(k, ALLIED, "SPECIAL N2 FROM TF2 2xSBD-3 NIGHT")
    assert [(e.rule, "not night-rated" in e.message) for e in errors] == [("14.2.2", True)]
    _o, errors = special.judge(k, ALLIED, f"{NIGHT_ORDER} ESCORT 1xP-39@H LOOSE")
    assert [(e.rule, "unescorted" in e.message) for e in errors] == [("14.2.2", True)]


def test_14_2_2_r113_a_night_order_flies_only_at_a_tf_moving_at_night() -> None:
    s = world(bases=MORESBY)
    _report(s, "2 CV; total 2")
    k = knowing(s, ALLIED)
    orders = _orders(s, f"{ORDERS}\n{NIGHT_ORDER}")
    (night,) = special.launches(k, ALLIED, orders, JAPANESE, "TF1", "E2010", night=True)
    assert night.id == "N1" and night.night is True
    assert [e.type for e in night.parts[0].elements] == ["B-17E"]
    assert night.parts[0].escorts == ()
    by_day = special.launches(k, ALLIED, orders, JAPANESE, "TF1", "E2010", night=False)
    assert [o.id for o in by_day] == ["X1"]  # 16.6.1: the day order only, by day


def test_14_2_2_a_night_special_strike_needs_a_located_tf() -> None:
    s = world(bases=MORESBY, located=())
    _report(s, "2 CV; total 2")
    orders = _orders(s, NIGHT_ORDER)
    assert (
        special.launches(knowing(s, ALLIED), ALLIED, orders, JAPANESE, "TF1", "E2010", night=True)
        == []
    )
