"""7.9 AA suppression (R116, R117) and 10.1.1's proximity fuses (R118): the plot
option, the peel-off, the suppression roll by target ring, the AA at the
suppressors and the cut in the wave's AA, and what each side is told."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import plot, suppression
from pbem.rulesets.witp.air.flying import FlyingElement, LaunchedPart
from pbem.rulesets.witp.air.strikeplot import AirPlot
from pbem.rulesets.witp.air.strikes import StrikePart, SuppressionAsk
from pbem.rulesets.witp.air.tables import air_to_air
from pbem.rulesets.witp.datapack import StoredPack, public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PUBLIC
from pbem.rulesets.witp.taskforces import Ship

from .test_air_world import PUBLIC_PACK, in_tf, knowing, resolve_stored, ship, told, world

TIME = "T1/air1/strike"
BOMBERS = "STRIKE S1 FROM TF2 4xSBD-3/D 2xTBD-1/T TARGET TF1\n"
LOOSE = BOMBERS + "ESCORT S1 FROM TF2 3xF4F-3@M LOOSE"
PUBLIC_ = public_pack({"pack": PUBLIC_PACK})


def _judge(text: str, state: dict[str, Any] | None = None) -> tuple[AirPlot, list[Any]]:
    s = state or world()
    return plot.judge(knowing(s, ALLIED), ALLIED, text)


def _no_fighters() -> list[dict[str, Any]]:
    """The Striking Force without fighters: no CAP (7.9: every loose escort in excess)."""
    return [
        ship("Shokaku", "CV", "ship-cv-shokaku", 0, {"D3A1": 2, "B5N2": 2}),
        ship("Zuikaku", "CV", "ship-cv-shokaku", 0, {"D3A1": 2, "B5N2": 2}),
        ship("Myoko", "CA", "ship-ca-myoko"),
        ship("Haguro", "CA", "ship-ca-myoko"),
        ship("DesDiv 7", "DD", "ship-dd-ijn-fleet"),
    ]


def _run(state: dict[str, Any], text: str, seed: int = 3) -> dict[str, Any]:
    p, errors = _judge(text, state)
    assert errors == []
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    st, _ = resolve_stored(
        state, next(iter(p.air_strikes.values())), dice, SecretDice(b"s" * 8, "x"), TIME
    )
    return st


# --- the plot (7.9) -------------------------------------------------------------------


def test_7_9_suppress_is_asked_on_a_loose_escort_line() -> None:
    p, errors = _judge(LOOSE + " SUPPRESS 2")
    assert errors == []
    (escort,) = p.air_strikes["S1"].parts[0].escorts
    assert escort.suppress is not None and escort.suppress.n == 2 and escort.posture == "loose"
    plain, _ = _judge(LOOSE)
    assert "suppress" not in plain.air_strikes["S1"].to_json()["parts"][0]["escorts"][0]


@pytest.mark.parametrize(
    ("tail", "posture", "why"),
    [
        (" SUPPRESS 1", "CLOSE", "only loose-escort fighters"),
        (" SUPPRESS 4", "LOOSE", "more than the 3 fighters"),
        (" SUPPRESS", "LOOSE", "SUPPRESS ends the ESCORT line"),
        (" SUPPRESS 0", "LOOSE", "SUPPRESS ends the ESCORT line"),
        (" SUPPRESS two", "LOOSE", "SUPPRESS ends the ESCORT line"),
        (" SUPPRESS 1 2", "LOOSE", "SUPPRESS ends the ESCORT line"),
    ],
)
def test_7_9_a_bad_suppress_is_refused_naming_line_reason_and_rule(
    tail: str, posture: str, why: str
) -> None:
    p, errors = _judge(BOMBERS + f"ESCORT S1 FROM TF2 3xF4F-3@M {posture}{tail}")
    (err,) = errors
    assert err.line == 2 and err.rule == "7.9" and why in err.message
    assert p.air_strikes["S1"].parts[0].escorts == ()  # the line allocates nothing
    assert p.allocated.get(("TF2", "F4F-3"), 0) == 0


# --- the peel-off (7.9, R116) ----------------------------------------------------------


def _parts(*escorts: FlyingElement) -> list[LaunchedPart]:
    part = StrikePart("TF2", "E2016", True, 6, ())
    return [LaunchedPart(part, (), tuple(escorts))]


def _escort(n: int, posture: str = "loose", ask: int = 0, line: str = "a") -> FlyingElement:
    asked = SuppressionAsk(ask, line) if ask else None
    return FlyingElement("F4F-3", n, "F", "M", posture=posture, suppress=asked)


@pytest.mark.parametrize(("cap", "peeled"), [(0, 3), (2, 3), (3, 2), (4, 1), (5, 0), (9, 0)])
def test_7_9_only_escorts_in_excess_of_the_cap_peel_off(cap: int, peeled: int) -> None:
    """4 loose (3 asked) and 1 close escort: at most escorts - CAP peel off."""
    fight, gone, fact = suppression.peel_off(_parts(_escort(4, ask=3), _escort(1, "close")), cap)
    assert sum(e.n for e in gone) == peeled
    assert sum(e.n for e in fight) == 5 - peeled
    assert fact is not None and fact.escorts == 5 and fact.cap == cap
    assert fact.peeled == ({"F4F-3": peeled} if peeled else {})
    assert all(e.alt == "L" and e.suppressing and e.base == "TF2" for e in gone)


def test_7_9_a_line_split_into_elite_and_regular_asks_once() -> None:
    """7.11: a line split in two keeps one ask (its line id), elite first."""
    elite = replace(_escort(1, ask=2, line="x"), elite=True)
    _fight, gone, fact = suppression.peel_off(_parts(elite, _escort(3, ask=2, line="x")), 0)
    assert [(e.n, e.elite) for e in gone] == [(1, True), (1, False)]
    assert fact is not None and fact.asked == 2


def test_7_9_nothing_asked_nothing_told() -> None:
    fight, gone, fact = suppression.peel_off(_parts(_escort(4)), 0)
    assert (gone, fact) == ([], None) and fight == [_escort(4)]


def _ap(t: str, role: str, alt: str, hexid: str = "E2016") -> FlyingElement:
    return FlyingElement(t, 1, role, alt, hex=hexid)


def test_7_9_1_suppressors_join_the_first_low_wave_of_their_hex_else_its_first() -> None:
    dive = [_ap("SBD-3", "D", "M")]
    torpedo = [_ap("TBD-1", "T", "L")]
    other = [_ap("SBD-3", "D", "M", "E1111")]
    gone = [replace(_ap("F4F-3", "F", "L"), suppressing=True)]
    assert list(suppression.attach([dive, torpedo], gone)) == [1]
    assert list(suppression.attach([other, dive], gone)) == [1]  # its own hex (7.6.1)
    assert suppression.attach([other], gone) == {}  # no bombers of its hex left: home


# --- the suppression roll and its effect (7.9.1, R117) ---------------------------------


@pytest.mark.parametrize(("ring", "adjusted"), [("core", 7), ("inner", 5), ("outer", 3)])
def test_7_9_1_suppression_strength_by_target_ring_rounded_up(ring: str, adjusted: int) -> None:
    assert suppression.by_ring(PUBLIC_, 7, ring) == adjusted


def test_7_9_1_suppression_ring_roll_reads_the_air_to_air_crt() -> None:
    """2 F4F-3 (4 each at Low: one level below their M rating costs nothing, 5.2.1)."""
    group = [FlyingElement("F4F-3", 2, "F", "L", range="normal")]
    assert suppression.strength(PUBLIC_, group) == 8
    for ring, adjusted in (("core", 8), ("inner", 6), ("outer", 3)):
        got = suppression.roll(PUBLIC_, group, ring, ScriptedDice([6, 5]), "t")
        low, high = air_to_air(PUBLIC_, adjusted, 2, 11)
        assert (got.adjusted, got.roll, got.low, got.high) == (adjusted, 11, low, high)
    core = suppression.roll(PUBLIC_, group, "core", ScriptedDice([6, 5]), "t")
    outer = suppression.roll(PUBLIC_, group, "outer", ScriptedDice([6, 5]), "t")
    assert core.low > outer.low  # the ring matters (illustrative CRT: 3/1 v 1/0)


def test_7_9_1_the_left_number_cuts_the_low_aa_the_right_the_high() -> None:
    result = suppression.Suppression("core", 2, 8, 8, 11, 3, 1)
    assert [suppression.reduction(PUBLIC_, m, result) for m in ("L", "DB", "M", "H")] == [
        3,
        3,
        1,
        1,
    ]
    assert suppression.reduction(PUBLIC_, "L", None) == 0


def _fires(state: dict[str, Any], side: str) -> dict[str, dict[str, Any]]:
    return {f"{f['wave']}{f['component']}": f for f in told(state, side, "aa-fire")}


def test_7_9_1_suppressors_fly_with_the_low_component_and_cut_the_wave_aa() -> None:
    state = world(japanese=_no_fighters())
    plain = _run(copy.deepcopy(state), LOOSE)
    st = _run(copy.deepcopy(state), LOOSE + " SUPPRESS 2")
    (asked,) = told(st, ALLIED, "aa-suppressors")
    assert asked["peeled"] == {"F4F-3": 2} and asked["cap"] == 0
    assert told(st, JAPANESE, "aa-suppressors") == []  # the striker's own (R119)
    (entry,) = told(st, JAPANESE, "wave-entry")
    assert {"type": "F4F-3", "n": 2, "role": "F", "mode": "L"} in entry["aps"]
    (roll,) = told(st, JAPANESE, "aa-suppression")
    assert roll == told(st, ALLIED, "aa-suppression")[0] and roll["ring"] == entry["target_ring"]
    before, after = _fires(plain, ALLIED), _fires(st, ALLIED)
    assert after["1L"]["aa"] == max(0, before["1L"]["aa"] - roll["low"])
    assert after["1DB"]["aa"] == max(0, before["1DB"]["aa"] - roll["low"])
    # the suppressors make no attack (7.8.1 is the bombers')
    assert all("F4F-3" not in str(a) for a in told(st, ALLIED, "air-surface-attack"))


def test_7_9_1_a_cut_is_said_in_the_aa_reasons() -> None:
    state = world(japanese=_no_fighters())
    for seed in range(1, 40):
        st = _run(copy.deepcopy(state), LOOSE + " SUPPRESS 3", seed)
        (roll,) = told(st, ALLIED, "aa-suppression")
        if roll["low"]:
            fire = _fires(st, ALLIED)["1L"]
            assert f"AA suppressed -{roll['low']}" in fire["why"]
            return
    pytest.fail("no seed gave a suppression result")


def test_7_9_escorts_not_outnumbering_the_cap_do_not_peel_off() -> None:
    """The Striking Force's 4 A6M2 fly CAP; 3 loose escorts do not outnumber them."""
    for seed in range(1, 40):
        st = _run(world(), LOOSE + " SUPPRESS 3", seed)
        (asked,) = told(st, ALLIED, "aa-suppressors")
        if asked["cap"] >= 3:  # the CAP's carrier coordination (8.1.4) may cut it
            break
    assert asked["peeled"] == {} and asked["escorts"] == 3
    cap = sum(c["n"] for f in told(st, ALLIED, "air-combat") for c in f["cap"])
    assert cap == asked["cap"]  # the CAP the striker is told of is the one that fights
    assert told(st, ALLIED, "aa-suppression") == []
    assert all(a["role"] != "F" for e in told(st, ALLIED, "wave-entry") for a in e["aps"])


# --- proximity fuses (10.1.1, R118) ------------------------------------------------------


ITEM = {"provenance": "illustrative", "source": "the test's", "pack": "test"}


def _dated(month: str) -> StoredPack:
    return public_pack({"pack": {**PUBLIC_PACK, "scenario/map-start": {"value": month, **ITEM}}})


def _navy(navy: str) -> Ship:
    return Ship.from_json({**ship("Astoria", "CA", "ship-ca-new-orleans"), "navy": navy})


@pytest.mark.parametrize(
    ("month", "navy", "drm"),
    [
        ("may1942", "USN", 0),
        ("dec1942", "USN", 0),
        ("jan1943", "USN", 1),
        ("jan1943", "CW", 0),
        ("dec1944", "CW", 0),
        ("jan1945", "CW", 1),
        ("jan1945", "IJN", 0),
    ],
)
def test_10_1_1_proximity_fuses_by_the_game_date(month: str, navy: str, drm: int) -> None:
    public = _dated(month)
    got, why = suppression.proximity(public, [_navy(navy)], "H")
    assert got == drm and (why is not None) == bool(drm)
    assert suppression.proximity(public, [_navy(navy)], "M")[0] == drm


def test_10_1_1_proximity_fuses_only_when_high_aa_is_applied() -> None:
    public = _dated("jun1943")
    assert suppression.proximity(public, [_navy("USN")], "L") == (0, None)
    assert suppression.proximity(public, [_navy("USN")], "DB") == (0, None)
    assert suppression.proximity(public, [], "H") == (0, None)


def test_10_1_1_proximity_fuses_in_a_strike_from_the_scenario_date() -> None:
    """G4M1 level bombers at Medium from Rabaul on TF 17 (USN): no DRM in May 1942
    (the Coral Sea start); with the map start set to 1943 the High AA fires +1."""
    tf17 = [
        {**ship("Yorktown", "CV", "ship-cv-yorktown", 0, {"SBD-3": 1}), "navy": "USN"},
        {**ship("Astoria", "CA", "ship-ca-new-orleans"), "navy": "USN"},
    ]
    bases = {JAPANESE: {"Rabaul": {"hex": "E2010", "air_points": {"G4M1": 6}}}}
    fires = []
    for month in ("may1942", "jan1943"):
        state = world(allied=tf17, located=("allied:TF2",), bases=bases)
        start = {"value": month, **ITEM}  # a stored item
        state[PUBLIC]["pack"] = {**PUBLIC_PACK, "scenario/map-start": start}
        p, errors = plot.judge(
            knowing(state, JAPANESE), JAPANESE, "STRIKE S1 FROM Rabaul 6xG4M1/B@M TARGET TF2"
        )
        assert errors == []
        dice = SeededDice(b"\x05" * 16, "g", 1, "air1")
        st, _ = resolve_stored(
            state,
            next(iter(p.air_strikes.values())),
            dice,
            SecretDice(b"s" * 8, "x"),
            TIME,
        )
        fires.append(_fires(st, JAPANESE)["1M"])
    assert not any("proximity" in r for r in fires[0]["why"])
    assert "proximity fuses (USN) +1" in fires[1]["why"]
    assert fires[1]["drm"] == fires[0]["drm"] + 1


def test_7_9_1_suppressors_lost_to_aa_leave_their_carriers() -> None:
    """10.3.2: suppressing fighters are subject to AA; those eliminated are lost."""
    state = world(japanese=_no_fighters())
    for seed in range(1, 80):
        st = _run(copy.deepcopy(state), LOOSE + " SUPPRESS 3", seed)
        lost = sum(f["eliminated"].get("F4F-3", 0) for f in told(st, JAPANESE, "aa-fire"))
        if lost:
            break
    assert lost
    ships = in_tf(st, ALLIED, "TF2")
    assert sum(s["air"].get("F4F-3", 0) for s in ships if "air" in s) == 4 - lost
