"""7.10 land-based torpedo arming at launch (R127): 1D10 x 10% of the base's
torpedo-capable APs within torpedo range may carry torpedoes; an elite majority
among them takes the chart's DRM (7.10, 7.11.5; the pack's illustrative +1); the
torpedo bombers beyond that fly as level bombers (7.10.1's default); trained
carrier groups always carry them."""

from __future__ import annotations

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import plot, torpedo
from pbem.rulesets.witp.air.flying import LaunchedPart
from pbem.rulesets.witp.air.strikes import AirElement, StrikePart
from pbem.rulesets.witp.datapack import StoredPack, public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PUBLIC

from .test_air_world import knowing as knowledge_of
from .test_air_world import resolve_stored, told, world

ONE = [1, 1]  # draws.d10 from a pair of 1D6: (1, 1) reads 1


def _part(n: int, carrier: bool = False, mp: int = 36) -> LaunchedPart:
    elements = (
        AirElement("G4M1", n, "T", "L", range="normal"),
        AirElement("A6M2", 1, "FB", "L", range="normal"),
    )
    return LaunchedPart.of(StrikePart("Rabaul", "E2010", carrier, mp, elements))


def _pack() -> StoredPack:
    return public_pack(world()[PUBLIC])


def test_7_10_1_the_block_beyond_its_percentage_flies_with_bombs() -> None:
    """10 G4M1 present, none elite, 1D10 = 1: 10% of 10 = 1 may carry torpedoes; of 4
    plotted with torpedoes 3 fly as level bombers at their rated altitude."""
    got, fact = torpedo.arm(_pack(), {"G4M1": 10}, {}, _part(4), ScriptedDice(ONE), "x")
    assert [e.to_json() for e in got] == [
        {"type": "G4M1", "n": 1, "role": "T", "alt": "L", "range": "normal"},
        {"type": "G4M1", "n": 3, "role": "B", "alt": "M", "range": "normal"},
        {"type": "A6M2", "n": 1, "role": "FB", "alt": "L", "range": "normal"},
    ]
    assert fact is not None
    assert (fact.present, fact.roll, fact.drm, fact.may_arm) == (10, 1, 0, 1)
    assert (fact.armed, fact.plotted, fact.elite_majority) == (1, 4, False)


def test_7_10_elite_majority_takes_the_charts_drm() -> None:
    """6 of 10 present elite: +1, 20% of 10 = 2 may carry torpedoes (7.10, 7.11.5)."""
    got, fact = torpedo.arm(_pack(), {"G4M1": 10}, {"G4M1": 6}, _part(4), ScriptedDice(ONE), "x")
    assert fact is not None and fact.elite_majority and fact.drm == 1
    assert [(e.role, e.n) for e in got if e.type == "G4M1"] == [("T", 2), ("B", 2)]


def test_7_10_half_elite_is_no_majority() -> None:
    assert not torpedo.elite_majority({"G4M1": 10}, {"G4M1": 5})
    assert torpedo.elite_majority({"G4M1": 4, "G3M2": 6}, {"G4M1": 4, "G3M2": 2})


def test_7_10_1_only_aps_within_torpedo_range_count_as_present() -> None:
    """The G4M1 reaches 96 MP with torpedoes, the B5N2 42: at 60 MP only the G4M1s
    count (7.10.1 Notes), fighters never."""
    part = _part(1, mp=60)
    _got, fact = torpedo.arm(
        _pack(), {"G4M1": 3, "B5N2": 5, "A6M2": 9}, {}, part, ScriptedDice(ONE), "x"
    )
    assert fact is not None and fact.present == 3


def test_7_10_carrier_groups_and_strikes_without_torpedoes_roll_nothing() -> None:
    public = _pack()
    got, fact = torpedo.arm(public, {"G4M1": 10}, {}, _part(4, carrier=True), ScriptedDice([]), "x")
    assert fact is None and got == _part(4).elements
    bombs = _part(0)
    _got, fact = torpedo.arm(public, {"G4M1": 10}, {}, bombs, ScriptedDice([]), "x")
    assert fact is None


def test_7_10_1_a_land_based_strike_arms_at_launch_told_to_its_side() -> None:
    bases = {
        JAPANESE: {"Rabaul": {"hex": "E2010", "air_points": {"G4M1": 6}, "elite": {"G4M1": 4}}}
    }
    s = world(located=("allied:TF2",), bases=bases)
    p, errors = plot.judge(
        knowledge_of(s, JAPANESE), JAPANESE, "STRIKE S1 FROM Rabaul 6xG4M1/T TARGET TF2"
    )
    assert errors == []
    dice = SeededDice(b"t" * 16, "g", 1, "air1")
    st, _ = resolve_stored(
        s, p.air_strikes["S1"], dice, SecretDice(b"s" * 12, "s"), "T1/air1/strike"
    )
    (fact,) = told(st, JAPANESE, "torpedo-arming")
    assert not told(st, ALLIED, "torpedo-arming")  # the launching side's own roll
    assert fact["elite_majority"] and fact["drm"] == 1 and fact["present"] == 6
    roles: dict[str, int] = {}
    for w in told(st, ALLIED, "wave-entry"):
        for a in w["aps"]:
            roles[a["role"]] = roles.get(a["role"], 0) + int(a["n"])
    assert roles.get("T", 0) <= fact["armed"]  # only the armed fly with torpedoes
