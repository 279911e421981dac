"""7.1 One naval strike from launch to critical hits, and what each side is told
(witp-hidden-info 4.1-4.2, 6): each disclosure goes through knowledge.disclose with
its rule and audience; the target's owner learns only what the rules announce."""

from __future__ import annotations

from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import plot
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.strikes import AirStrike
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import DISCLOSURES, PRIVATE

from .test_air_world import (
    ALLIED_HEX,
    in_tf,
    kido_butai,
    knowing,
    resolve_stored,
    ship,
    task_force_17,
    told,
    world,
)

TIME = "T1/air1/strike"
STRIKE = "STRIKE S1 FROM TF2 4xSBD-3/D 2xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3@M CLOSE"


def _strike(state: dict[str, Any], text: str = STRIKE, side: str = ALLIED) -> AirStrike:
    p, errors = plot.judge(knowing(state, side), side, text)
    assert errors == []
    return next(iter(p.air_strikes.values()))


def _run(
    state: dict[str, Any], seed: int, text: str = STRIKE, side: str = ALLIED, **kw: Any
) -> tuple[dict[str, Any], list[Any]]:
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    secret = SecretDice(bytes([seed + 1]) * 12, "secret")
    return resolve_stored(state, _strike(state, text, side), dice, secret, TIME, **kw)


def _kinds(state: dict[str, Any], side: str) -> list[str]:
    return [d["fact"]["kind"] for d in state[DISCLOSURES] if side in d["audience"]]


def test_7_1_a_strike_runs_its_sequence_and_every_fact_has_rule_and_audience() -> None:
    st, events = _run(world(), 3)
    kinds = _kinds(st, ALLIED)
    assert kinds[:3] == ["strike-launched", "carrier-coordination", "search-report"]
    assert (
        kinds.index("target-priority")
        < kinds.index("air-surface-placement")
        < kinds.index("strike-altitudes")
    )
    assert len(events) == len(st[DISCLOSURES])
    assert all(d["rule"] and d["audience"] for d in st[DISCLOSURES])


def test_7_1_a_the_striker_gets_a_true_report_and_7_3_the_naval_player_the_priority() -> None:
    st, _ = _run(world(), 3)
    (report,) = told(st, ALLIED, "search-report")
    assert report["report"] == "2 CA, 2 CV, 1 DD; total 5" and report["source"] == "strike-contact"
    (priority,) = told(st, JAPANESE, "target-priority")
    assert priority["priority"] == "CV"  # the doctrine: carriers present, Specific (R92)


def test_5_0_a_carrier_strike_announces_its_launch_hex_not_its_tf() -> None:
    st, _ = _run(world(), 3)
    (launch,) = told(st, JAPANESE, "strike-launched")
    assert launch["from"] == ALLIED_HEX and launch["carrier"]
    assert "TF2" not in str(launch)


def test_7_1_b_the_naval_player_learns_altitudes_and_escort_not_numbers_or_types() -> None:
    small = "STRIKE S1 FROM TF2 1xSBD-3/D 1xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 1xF4F-3@M LOOSE"
    big = "STRIKE S1 FROM TF2 6xSBD-3/D 2xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 4xF4F-3@M CLOSE"
    a, _ = _run(world(), 5, small)
    b, _ = _run(world(), 5, big)
    (alt_a,) = told(a, JAPANESE, "strike-altitudes")
    (alt_b,) = told(b, JAPANESE, "strike-altitudes")
    assert (
        alt_a
        == alt_b
        == {"kind": "strike-altitudes", "tf": "TF1", "levels": {"L": "unescorted", "M": "escorted"}}
    )

    def before_combat(st: dict[str, Any]) -> list[Any]:
        out = []
        for d in st[DISCLOSURES]:
            if JAPANESE in d["audience"] and d["fact"]["kind"] not in ("carrier-coordination",):
                if d["fact"]["kind"] == "air-combat":
                    break
                out.append(d["fact"])
        return out

    assert before_combat(a) == before_combat(b)


def test_7_2_1_placement_shows_types_and_at_least_d2_only() -> None:
    other = kido_butai(damage=1)
    for s in other:
        s["name"] = s["name"] + " Maru"
    a, _ = _run(world(), 7)
    b, _ = _run(world(japanese=other), 7)
    assert told(a, ALLIED, "air-surface-placement") == told(b, ALLIED, "air-surface-placement")
    c, _ = _run(world(japanese=kido_butai(damage=2)), 7)
    (placed,) = told(c, ALLIED, "air-surface-placement")
    assert sum(s["at_least_d2"] for s in placed["ships"]) == 1
    assert all("name" not in s for s in placed["ships"])
    assert not told(a, JAPANESE, "air-surface-placement")


def test_7_8_1_speed_classes_of_the_target_ring_and_identity_once_targeted() -> None:
    for seed in range(40):
        st, _ = _run(world(), seed)
        targeted = told(st, ALLIED, "ship-targeted")
        if targeted:
            break
    speeds = told(st, ALLIED, "target-ring-speeds")
    assert speeds and all(
        set(s) == {"ring", "arc", "type", "speed_class"} for s in speeds[0]["ships"]
    )
    assert targeted[0]["ship"] in {"Shokaku", "Zuikaku"}
    assert not told(st, JAPANESE, "target-ring-speeds") and not told(st, JAPANESE, "ship-targeted")


def test_16_7_the_striker_is_told_only_critical_hits_from_doubles() -> None:
    seen = 0
    for seed in range(60):
        st, _ = _run(world(), seed)
        for own in told(st, JAPANESE, "critical-hit-rolls"):
            seen += 1
            doubles = [r["dice"] for r in own["rolls"] if r["critical"] and r["doubles"]]
            theirs = [
                c["dice"] for c in told(st, ALLIED, "critical-hit") if c["ship"] == own["ship"]
            ]
            assert theirs == doubles
        assert not told(st, ALLIED, "critical-hit-rolls")
    assert seen  # some ship was damaged and rolled


def test_16_7_a_hidden_critical_changes_nothing_the_striker_sees() -> None:
    # the same open dice, different secret streams: the striker's knowledge differs
    # only where a doubles critical was rolled
    for seed in range(60):
        s, open_seed = world(), bytes([seed]) * 16
        a, _ = resolve_stored(
            s, _strike(s), SeededDice(open_seed, "g", 1, "air1"), SecretDice(b"a" * 12, "x"), TIME
        )
        b, _ = resolve_stored(
            s, _strike(s), SeededDice(open_seed, "g", 1, "air1"), SecretDice(b"b" * 12, "x"), TIME
        )
        crits = told(a, ALLIED, "critical-hit") + told(b, ALLIED, "critical-hit")
        if not crits:
            assert knowing(a, ALLIED).disclosed == knowing(b, ALLIED).disclosed


def test_12_0_a_plotted_strike_at_the_target_is_revealed_and_sequenced() -> None:
    ratings = {ALLIED: Ratings("R.Adm. Fletcher", 9, 7), JAPANESE: Ratings("R.Adm. Hara", 6, 6)}
    st, _ = _run(world(), 3, ratings=ratings, target_plotted=True)
    (revealed,) = told(st, ALLIED, "plotted-strike-revealed")
    (seq,) = told(st, JAPANESE, "strike-sequence")
    assert revealed["tf"] == "TF1" and seq["drm"] == 0  # 7 vs 6: no whole multiple of 2


def test_losses_leave_the_display_and_the_carriers_air_groups() -> None:
    s = world()
    before = sum(sum(x.get("air", {}).values()) for x in in_tf(s, ALLIED, "TF2"))
    st, _ = _run(s, 11)
    lost = 0
    for fact in told(st, ALLIED, "air-combat"):
        lost += sum(b["eliminated"] for b in fact["bombers"] + fact["escorts"])
    for fact in told(st, ALLIED, "aa-fire"):
        lost += sum(fact["eliminated"].values())
    lost += sum(f["extra"] for f in told(st, ALLIED, "extended-range-losses"))
    after = sum(sum(x.get("air", {}).values()) for x in in_tf(st, ALLIED, "TF2"))
    assert before - after == lost
    assert s[DISCLOSURES] == []  # the input state is untouched


def test_14_2_2_a_night_strike_sees_blank_counters_until_targets_are_declared() -> None:
    bases = {JAPANESE: {"Rabaul": {"hex": "E2010", "air_points": {"G4M1": 4}}}}
    s = world(located=("allied:TF2",), bases=bases)
    st, _ = _run(s, 4, "STRIKE S1 FROM Rabaul 4xG4M1/T TARGET TF2 NIGHT", side=JAPANESE)
    (placed,) = told(st, JAPANESE, "air-surface-placement")
    assert {x["type"] for x in placed["ships"]} == {"?"}
    assert told(st, ALLIED, "target-priority")[0]["priority"] == "general"
    assert all(len(w["aps"]) == 1 and w["aps"][0]["n"] == 1 for w in told(st, ALLIED, "wave-entry"))
    assert not told(st, ALLIED, "air-combat")  # no night fighters in 1942


def test_7_6_2_a_joint_strike_from_two_hexes_rolls_to_combine_its_waves() -> None:
    bases = {ALLIED: {"Port Moresby": {"hex": "E2022", "air_points": {"B-17E": 4}}}}
    s = world(allied=[*task_force_17(), ship("Chicago", "CA", "ship-ca-portland")], bases=bases)
    text = STRIKE + "\nSTRIKE S1 FROM Port_Moresby 4xB-17E@H TARGET TF1"
    for seed in range(30):
        st, _ = _run(s, seed, text)
        if told(st, ALLIED, "wave-coordination"):
            break
    (coord,) = told(st, ALLIED, "wave-coordination")
    assert coord["between"] == 6 and coord["distance"] == 6 and coord["combined"]
    assert told(st, ALLIED, "joint-availability")


def test_7_3_a_plotted_priority_is_kept_and_none_lets_the_doctrine_choose() -> None:
    st, _ = _run(world(), 3, STRIKE.replace("TARGET TF1", "TARGET TF1 PRIORITY GENERAL"))
    assert told(st, JAPANESE, "target-priority")[0]["priority"] == "general"
    st, _ = _run(world(), 3, STRIKE.replace("TARGET TF1", "TARGET TF1 PRIORITY CA"))
    assert told(st, JAPANESE, "target-priority")[0]["priority"] == "CA"


AUDIENCE = {  # witp-hidden-info 4.1-4.2 and 6: who is told each fact of a naval strike
    "strike-launched": {ALLIED, JAPANESE},  # 5.0
    "carrier-coordination": None,  # 8.1.4: the launching side's own roll
    "joint-availability": {ALLIED},  # 9.3: the striker's own roll
    "plotted-strike-revealed": {ALLIED, JAPANESE},  # 12.0
    "strike-sequence": {ALLIED, JAPANESE},  # 12.1
    "search-report": {ALLIED, JAPANESE},  # 7.1 A
    "target-priority": {ALLIED, JAPANESE},  # 7.3
    "air-surface-placement": {ALLIED},  # 7.2.1
    "strike-altitudes": {ALLIED, JAPANESE},  # 7.1 B
    "air-combat": {ALLIED, JAPANESE},  # 6.x, R11
    "wave-coordination": {ALLIED},  # 7.6.2
    "wave-entry": {ALLIED, JAPANESE},  # 7.7.1, 10.1.1
    "aa-fire": {ALLIED, JAPANESE},  # 10.1
    "target-ring-speeds": {ALLIED},  # 7.8.1 Step 1
    "ship-targeted": {ALLIED},  # 7.2.1
    "air-surface-attack": {ALLIED, JAPANESE},  # 7.8.1 (open dice)
    "critical-hit-rolls": {JAPANESE},  # 16.7: the owner's
    "critical-hit": {ALLIED},  # 16.7: doubles only
    "extended-range-losses": {ALLIED},  # 6.3.3: the striker's own
    "extreme-range-losses": {ALLIED},  # 5.15: the striker's own
}


def test_every_disclosure_goes_to_the_audience_its_rule_names() -> None:
    ratings = {ALLIED: Ratings("R.Adm. Fletcher", 9, 7), JAPANESE: Ratings("R.Adm. Hara", 6, 6)}
    kinds = set()
    for seed in range(25):
        st, _ = _run(world(), seed, ratings=ratings, target_plotted=True)
        for d in st[DISCLOSURES]:
            kind, audience = d["fact"]["kind"], set(d["audience"])
            kinds.add(kind)
            want = AUDIENCE[kind]
            if want is None:  # a side's own roll: that side alone
                assert len(audience) == 1, kind
                if kind == "carrier-coordination" and not d["fact"].get("cap"):
                    assert audience == {ALLIED}
            else:
                assert audience == want, kind
    assert {"air-surface-placement", "air-combat", "aa-fire", "air-surface-attack"} <= kinds


def test_noninterference_the_striker_learns_nothing_of_an_untouched_enemy_tf() -> None:
    a = world()
    b = world()
    b[PRIVATE][JAPANESE]["tfs"]["TF3"] = {**a[PRIVATE][JAPANESE]["tfs"]["TF1"], "hex": "E2030"}
    for seed in (1, 2, 3):
        sa, _ = _run(a, seed)
        sb, _ = _run(b, seed)
        assert knowing(sa, ALLIED).disclosed == knowing(sb, ALLIED).disclosed
        assert knowing(sa, ALLIED).part(ALLIED) == knowing(sb, ALLIED).part(ALLIED)


def test_5_3_6_cap_aborted_flies_no_later_cap_and_committed_fighters_none() -> None:
    for seed in range(100):
        st, _ = _run(world(), seed)
        grounded = dict(st[PRIVATE][JAPANESE]["cap_aborted"]["TF1"])
        if grounded:
            break
    assert grounded  # the owner's own record: no disclosure to the striker
    zeros = sum(x["air"].get("A6M2", 0) for x in in_tf(st, JAPANESE, "TF1") if "air" in x)
    st[PRIVATE][ALLIED] = world()[PRIVATE][ALLIED]  # a second, fresh Allied strike
    seen = len(told(st, JAPANESE, "air-combat"))
    again, _ = _run(st, 1)
    flew = sum(c["n"] for f in told(again, JAPANESE, "air-combat")[seen:] for c in f["cap"])
    assert flew <= zeros - grounded["A6M2"]
    none, _ = _run(world(), 2, committed={"A6M2": 4})
    assert told(none, JAPANESE, "air-combat") == []  # no CAP left: no air combat
