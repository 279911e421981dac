"""The naval Execution Segment (3.1 C, 16.0, 16.6, 17.x, 18.x): cards carried out
hex by hex, the sides alternating, fuel spent, ports entered, secrets kept."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.core.dice import ScriptedDice
from pbem.rulesets.witp.ruleset import WitpRuleset

from .naval import at_plot, blind, edited, executed, past_allocation, play, refusal, tfs


@pytest.fixture(scope="module")
def start(witp: WitpRuleset) -> dict[str, Any]:
    return at_plot(witp)


def test_17_13_a_move_is_logged_hex_by_hex(witp, start) -> None:  # type: ignore[no-untyped-def]
    result = play(witp, start, allied="TF3 MOVE E2320 EV 2")
    tf3 = tfs(result.state, "allied")["TF3"]
    assert [s["hex"] for s in tf3["log"]] == ["E2323", "E2322", "E2321", "E2320"]
    assert [s["mp"] for s in tf3["log"]] == [6, 12, 18, 24]  # 17.13.3: Tropical hexes, 6 MP
    assert tf3["hex"] == "E2320" and tf3["mission"]["missions"][0]["ev"] == 2
    (fact,) = executed(result, "allied")
    assert fact["tf"] == "TF3" and fact["to"] == "E2320" and fact["mp"] == 24


def test_3_1_c_sides_alternate_tf_by_tf_from_the_initiative(witp, start) -> None:  # type: ignore[no-untyped-def]
    allied = "TF3 MOVE E2323 EV 0\nTF4 MOVE E2126 EV 0\nTF2 MOVE E2524 EV 0"
    japanese = "TF2 MOVE E2115 EV 0"
    v = {
        s: list(witp.validate(start, s, t).accepted)
        for s, t in (("allied", allied), ("japanese", japanese))
    }
    # 3.2: Japanese 6, Allied 1: the Japanese win and go second (R3): the Allies first.
    # (The round's first 12 dice seed its secret stream, draws.take_round_seed.)
    result = witp.adjudicate(start, v, ScriptedDice([1] * 12 + [6, 1] + [1, 2] * 400))
    order = [(e.witnesses, e.data["tf"]) for e in result.events if e.kind == "tf-executed"]
    assert order == [
        (("allied",), "TF3"),
        (("japanese",), "TF2"),
        (("allied",), "TF4"),
        (("allied",), "TF2"),
    ]


def test_16_1_6_the_enemy_learns_nothing_of_a_move(witp, start) -> None:  # type: ignore[no-untyped-def]
    # Out of every Japanese search (13.3): the move alone tells the enemy nothing.
    start = blind(start, "japanese")
    quiet = play(witp, start, seed=b"h", allied="PASS")
    moved = play(witp, start, seed=b"h", allied="TF3 MOVE E2320 EV 2\nTF3 NIGHT AFTER 1")
    for r in (quiet, moved):
        assert not [e for e in r.events if e.kind == "tf-executed" and e.seen_by("japanese")]
    assert witp.view(quiet.state, quiet.events, "japanese") == witp.view(
        moved.state, moved.events, "japanese"
    )
    assert witp.order_template(quiet.state, "japanese") == witp.order_template(
        moved.state, "japanese"
    )


def test_16_6_night_runs_from_the_declared_hex_up_to_the_night_allowance(witp, start) -> None:  # type: ignore[no-untyped-def]
    # Night allowance 63 MP at speed class 3 (illustrative): 10 hexes of 6 MP, then day.
    result = play(witp, start, allied="TF3 MOVE E2305 EV 0\nTF3 NIGHT AFTER 2")
    log = tfs(result.state, "allied")["TF3"]["log"]
    night = [s["night"] for s in log]
    assert night[:2] == [False, False]
    assert night[2:13] == [True] * 11  # 63 MP: the 11th hex starts at 60 MP, still inside
    assert not any(night[13:])


def test_17_10_linked_tfs_move_as_one(witp, start) -> None:  # type: ignore[no-untyped-def]
    together = edited(start, "allied", "TF1", hex="E2324")
    result = play(witp, together, allied="TF3 MOVE E2321 EV 0\nTF3 NIGHT AFTER 1\nTF1 LINK TF3")
    t = tfs(result.state, "allied")
    assert t["TF1"]["log"] == t["TF3"]["log"] and t["TF1"]["hex"] == "E2321"
    facts = {f["tf"]: f for f in executed(result, "allied")}
    assert (
        facts["TF1"]["linked_to"] == "TF3"
        and facts["TF1"]["night_hexes"] == facts["TF3"]["night_hexes"]
    )


def test_17_11_ships_change_tf_where_both_are(witp, start) -> None:  # type: ignore[no-untyped-def]
    result = play(witp, start, allied="TF3 REGP TF7 SHIPS Astoria, Chester\nTF3 MOVE E2322 EV 0")
    t = tfs(result.state, "allied")
    assert t["TF7"]["ships"] == ["Astoria", "Chester"] and t["TF7"]["hex"] == "E2324"
    assert "Astoria" not in t["TF3"]["ships"] and t["TF3"]["hex"] == "E2322"
    # The receiving TF is elsewhere at the moment of regrouping: nothing moves (17.11).
    apart = play(witp, start, allied="TF3 REGP TF4 SHIPS Astoria")
    assert "Astoria" in tfs(apart.state, "allied")["TF3"]["ships"]
    (fact,) = executed(apart, "allied")
    assert fact["missions"][0]["failed"].startswith("TF4 is in E2127")


def test_17_11_regroup_deploys_a_dummy_from_the_allotment(witp, start) -> None:  # type: ignore[no-untyped-def]
    before = start["private"]["allied"]["dummy_allotment"]["sorties"]
    result = play(witp, start, allied="TF3 REGP DUMMY TF9\nTF3 MOVE E2322 EV 0")
    t = tfs(result.state, "allied")
    assert t["TF9"]["dummy"] and t["TF9"]["ships"] == [] and t["TF9"]["hex"] == "E2324"
    assert result.state["private"]["allied"]["dummy_allotment"]["sorties"] == before + 1
    # 13.6.1: a dummy moves like a TF, any speed class, and needs no fuel.
    after = play(witp, result.state, allied="TF9 MOVE E2320 EV 0")
    assert tfs(after.state, "allied")["TF9"]["fuel"] is None


def test_13_6_the_allotment_is_told_to_its_owner_alone(witp) -> None:  # type: ignore[no-untyped-def]
    state = witp.initial_state("coral-sea-1942", {})
    # The last twelve seed the secret stream (42.8, 42.2.2: R71).
    result = witp.adjudicate(state, {}, ScriptedDice([3, 4, 6, 2, 4, 5, 1] + [1] * 12))
    facts = [(e.witnesses, e.data["allowed"]) for e in result.events if e.kind == "dummy-allotment"]
    # Japanese 3+4 = 7: 1D6 more (6); Allied SI level 3 + |2-4| = 5. Then 3.2 rolls.
    assert facts == [(("japanese",), 6), (("allied",), 5)]


def test_17_9_fuelling_at_sea_refills_and_costs_mp(witp, start) -> None:  # type: ignore[no-untyped-def]
    low = edited(start, "allied", "TF3", hex="E2424", fuel=1, speed_class="SC3")
    result = play(witp, low, allied="TF3 FUEL FROM TF1")
    t3 = tfs(result.state, "allied")["TF3"]
    assert t3["fuel"] is None and not t3["unsupplied"]  # the period restarts (16.0 B)
    (fact,) = executed(result, "allied")
    # USN: 2 x points + 20 (17.9); Yorktown 2 + three CAs 3 (DDs fed by the big ships, 17.9.6).
    assert fact["mp"] == 2 * 5 + 20 and fact["missions"][0]["points"] == 5
    oilers = result.state["private"]["allied"]["ships"]
    assert oilers["Neosho"]["fuel_left"] + oilers["Tippecanoe"]["fuel_left"] == 20 - 5


def test_18_1_18_3_past_its_fuelling_period_a_tf_is_unsupplied(witp, start) -> None:  # type: ignore[no-untyped-def]
    low = edited(start, "allied", "TF3", fuel=1, speed_class="SC3")
    result = play(witp, low, allied="TF3 MOVE E2320 EV 2")
    t3 = tfs(result.state, "allied")["TF3"]
    assert t3["fuel"] == 0 and t3["unsupplied"] and t3["speed_class"] == "SC1"
    assert [e.rule for e in result.events if e.kind == "tf-unsupplied"] == ["18.3"]
    assert refusal(witp, result.state, "allied", "TF3 MOVE E2319 EV 2")[0] in ("18.3", "16.0")


def test_18_1_the_fuelling_period_starts_at_the_first_active_phase(witp, start) -> None:  # type: ignore[no-untyped-def]
    result = play(witp, start, allied="TF3 MOVE E2320 EV 0")
    assert tfs(result.state, "allied")["TF3"]["fuel"] == 3 - 1  # SC3: every 3 active phases


def test_18_4_a_game_turns_unused_active_phases_are_spent(witp, start) -> None:  # type: ignore[no-untyped-def]
    state = play(witp, start, allied="TF3 MOVE E2320 EV 0").state
    while witp.pending(state) is not None and witp.pending(state).turn == 1:
        state = play(witp, state).state
    # SC3: three active phases a Game-Turn; one used, two spent idle: 3 - 1 - 2 = 0.
    t3 = tfs(state, "allied")["TF3"]
    assert t3["fuel"] == 0 and t3["unsupplied"] and t3["active_phases"] == 0


def test_18_4_1_a_tf_entering_port_stays_a_phase_then_deactivates(witp, start) -> None:  # type: ignore[no-untyped-def]
    r1 = play(witp, start, allied="TF4 MOVE Port_Moresby EV 0\nTF4 PORT")
    t4 = tfs(r1.state, "allied")["TF4"]
    assert t4["in_port"] == "Port Moresby" and t4["fuel"] is None and not t4["deactivated"]
    assert refusal(witp, r1.state, "allied", "TF4 MOVE E1119 EV 0")[0] == "18.4.1"
    r2 = play(witp, r1.state)
    assert tfs(r2.state, "allied")["TF4"]["deactivated"]
    assert [(e.witnesses, e.rule) for e in r2.events if e.kind == "tf-deactivated"] == [
        (("allied",), "18.4.1")
    ]
    plot = past_allocation(witp, r2.state)  # the next naval plot (stage 2's Allocation passed)
    assert not witp.validate(plot, "allied", "TF4 SPEED 3\nTF4 MOVE E1119 EV 0").errors
