"""Air strikes against ships played through the rounds (airplay.py): the Allocation
Segment's round (5.0), AIRPLOT validation and the targeting gate (5.1.6, 13.6.4, R90),
carriers launching from their TFs (5.0, 8.1.4), the Strike Segment's order (3.1 B) and
strike sequencing (12.0, R95), special strikes as TFs move (5.8, R105), sunk ships
leaving the display (7.8.1) and the Coral Sea verdict (R106). On the Coral Sea scenario,
its Plot Segments one round each (R70 "off")."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pbem.core.dice import SeededDice
from pbem.core.ruleset import Adjudication
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp import airplay, victory
from pbem.rulesets.witp.air import admirals, naval_strike, sequencing
from pbem.rulesets.witp.air.sequencing import AFTER, BEFORE
from pbem.rulesets.witp.air.strike.plotted import Covering
from pbem.rulesets.witp.air.strikes import AirStrike
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.knowledge import (
    DISCLOSURES,
    MODERATOR,
    PRIVATE,
    PUBLIC,
    Fact,
    disclose,
    projection,
)
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.state import WitpState
from pbem.rulesets.witp.work import Work

from .conftest import SCENARIO
from .journal import Told
from .naval import NO_GATE, tfs

BOTH = ("japanese", "allied")
STRIKING_FORCE, TF17 = "TF2", "TF3"  # the Japanese carriers; the Allied Yorktown TF
NEAR = "E2320"  # four hexes (24 MP) from TF17 at E2324


def _marker(owner: str, tf: str, hexid: str) -> dict[str, Any]:
    return {
        "owner": owner,
        "tf": tf,
        "hex": hexid,
        "label": "Located 1A",
        "placed": 0,
        "time": "T1/air1/search",
        "source": "air",
    }


def located(state: dict[str, Any], owner: str, tf: str, report: str) -> None:
    """``owner``'s ``tf`` Located where it is, and the report both sides were told."""
    hexid = tfs(state, owner)[tf]["hex"]
    state[PUBLIC].setdefault("located", {})[f"{owner}:{tf}"] = _marker(owner, tf, hexid)
    fact = {"kind": "search-report", "owner": owner, "tf": tf, "report": report, "source": "air"}
    disclose(Told(state), Fact.from_json(fact), list(BOTH), "T1/air1/search", "13.5.7")


@pytest.fixture
def allocation(witp: WitpRuleset) -> dict[str, Any]:
    """T1-air1-allocation, the Striking Force moved up to NEAR (a test's set-up)."""
    state = witp.initial_state(SCENARIO, {"datapack": NO_GATE})
    state = dict(witp.adjudicate(state, {}, SeededDice(b"n", "g", 1, "T1-open")).state)
    tfs(state, "japanese")[STRIKING_FORCE]["hex"] = NEAR
    return state


@pytest.fixture
def battle(allocation: dict[str, Any]) -> dict[str, Any]:
    """Both carrier forces Located, each told the other's True composition."""
    state = copy.deepcopy(allocation)
    located(state, "japanese", STRIKING_FORCE, "2 CV 2 CA 3 DD 1 AO TOTAL 8")
    located(state, "allied", TF17, "1 CV 3 CA 2 DD TOTAL 6")
    return state


def play(
    witp: WitpRuleset, state: dict[str, Any], seed: bytes = b"s", **orders: str
) -> Adjudication:
    d = witp.pending(state)
    assert d is not None
    accepted = {}
    for side in d.sides:
        v = witp.validate(state, side, orders.get(side, "PASS"))
        assert not v.errors, v.errors
        accepted[side] = list(v.accepted)
    return witp.adjudicate(state, accepted, SeededDice(seed, "g", d.turn, d.phase))


def kinds(result: Adjudication, kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in result.events if e.kind == kind]


def air(state: dict[str, Any], side: str, ship: str) -> dict[str, int]:
    got: dict[str, int] = state[PRIVATE][side]["ships"][ship].get("air", {})
    return got


YORKTOWN_STRIKE = "STRIKE S1 FROM TF3 3xSBD-3 1xTBD-1 TARGET TF2"


# -- the round and its form ---------------------------------------------------------


def test_5_0_the_allocation_segment_is_a_round_both_sides_plot_in(
    witp: WitpRuleset, allocation: dict[str, Any]
) -> None:
    d = witp.pending(allocation)
    assert d is not None
    assert (d.phase, d.sides) == ("T1-air1-allocation", BOTH)
    assert d.steps[:2] == (
        "3.1 B First Air Phase: Allocation Segment (5.0)",
        "3.1 B First Air Phase: Strike Segment (3.2, 5.0)",
    )
    form = witp.order_template(allocation, "allied")
    assert "STRIKE <id> FROM <base|TFn>" in form and form.splitlines()[-1] == "PASS"
    # The side's own air: carriers by TF (5.0), land bases by name, with their APs.
    assert "#   TF3 (carrier TF) at E2324: 2xF4F-3, 3xSBD-3, 1xTBD-1" in form
    assert "#   Townsville at E1028: 2xB-17E, 2xB-26" in form
    # Nothing Located yet: no target, and nothing of the enemy's in the form.
    assert "Enemy TFs Located" in form and "#   none" in form
    assert "Shokaku" not in form and NEAR not in form


def test_5_0_the_form_lists_the_located_targets_and_why_one_is_none(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    located(battle, "japanese", "TF1", "dummy")
    form = witp.order_template(battle, "allied")
    assert f"#   TF2 at {NEAR}: target; last report: 2 CV 2 CA 3 DD 1 AO TOTAL 8" in form
    assert "#   TF1 at E2317: NOT a target: TF TF1 was last reported as a dummy (13.6.4)" in form


# -- validation: the targeting gate and refused lines (R90) ---------------------------


def test_5_1_6_no_strike_on_a_tf_that_is_not_located(
    witp: WitpRuleset, allocation: dict[str, Any]
) -> None:
    v = witp.validate(allocation, "allied", f"PASS\n{YORKTOWN_STRIKE}")
    assert v.accepted == ("PASS",)
    ((line, rule, message),) = [(e.line, e.rule, e.message) for e in v.errors]
    assert (line, rule) == (2, "5.1.6") and "TF2 is not Located" in message


def test_13_6_4_a_tf_last_reported_a_dummy_is_no_target(
    witp: WitpRuleset, allocation: dict[str, Any]
) -> None:
    located(allocation, "japanese", STRIKING_FORCE, "dummy")
    (err,) = witp.validate(allocation, "allied", YORKTOWN_STRIKE).errors
    assert (err.line, err.rule) == (1, "13.6.4")


def test_r90_refused_lines_name_their_line_reason_and_rule(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    text = "\n".join(
        [
            "AIRPLOT",
            YORKTOWN_STRIKE,
            "STRIKE S2 FROM Townsville 1xB-26 TARGET TF2",
            "STRIKE S3 FROM Townsville 1xB-17E TARGET TF2",  # 5.1.7: one a base a target
            "STRIKE S4 FROM Port_Moresby 9xHudson TARGET TF2",  # 5.1.1: it has 1
            "STRIKE S5 FROM TF3 1xF4F-3 TARGET TF2",  # 5.6: fighters fly no naval strike
            "STRIKE S6 FROM TF2 1xSBD-3 TARGET TF2 NIGHT",  # 14.2.2: not night-rated
            "BOMB Rabaul",
        ]
    )
    v = witp.validate(battle, "allied", text)
    assert v.accepted == (YORKTOWN_STRIKE, "STRIKE S2 FROM Townsville 1xB-26 TARGET TF2")
    assert [(e.line, e.rule) for e in v.errors] == [
        (4, "5.1.7"),
        (5, "5.1.1"),
        (6, "5.6"),
        (7, "14.2.2"),
        (8, None),
    ]
    assert "Port Moresby has 1 Hudson" in v.errors[1].message
    # A Japanese plot is judged from Japanese knowledge: the Allied TF is not Located to it.
    (err,) = witp.validate(battle, "japanese", "STRIKE K1 FROM TF2 2xD3A1 TARGET TF4").errors
    assert err.rule == "5.1.6"


# -- carriers launch from their TFs (5.0, 8.1.4); losses and damage persist -----------


def test_5_0_carrier_air_groups_are_on_their_ships_from_set_up(witp: WitpRuleset) -> None:
    state = witp.initial_state(SCENARIO, {})
    assert air(state, "allied", "Yorktown") == {"F4F-3": 2, "SBD-3": 3, "TBD-1": 1}
    assert air(state, "japanese", "Shokaku") == {"A6M2": 2, "D3A1": 2, "B5N2": 2}
    assert state[PRIVATE]["allied"]["ships"]["Astoria"]["damage"] == 0


def test_5_0_7_8_1_a_carrier_tf_strikes_and_its_losses_and_damage_persist(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    result = play(witp, battle, b"v", allied=YORKTOWN_STRIKE)  # a seed where bombers get through
    (launch,) = kinds(result, "strike-launched")
    # 5.0: the launch is announced to both, a carrier by its hex only.
    assert launch == {
        "kind": "strike-launched",
        "side": "allied",
        "from": "E2324",
        "carrier": True,
        "time": "T1/air1/strike",
    }
    (event,) = [e for e in result.events if e.kind == "strike-launched"]
    assert event.witnesses is None
    attacks = kinds(result, "air-surface-attack")
    assert attacks and all(a["tf"] == STRIKING_FORCE for a in attacks)
    after = result.state[PRIVATE]
    for a in attacks:  # the damage each attack left is on the ship's record
        assert after["japanese"]["ships"][a["ship"]]["damage"] >= a["damage"]
    last = {a["ship"]: a["damage"] for a in attacks}
    assert all(after["japanese"]["ships"][s]["damage"] >= d for s, d in last.items())
    # The APs lost are gone from the carrier that launched them, and stay gone; the
    # damage stays on the ships through the rounds that follow.
    yorktown = air(result.state, "allied", "Yorktown")
    assert sum(yorktown.values()) <= 6 and yorktown["F4F-3"] == 2  # the fighters stayed home
    later = play(witp, result.state).state
    assert air(later, "allied", "Yorktown") == yorktown
    assert {n: s["damage"] for n, s in later[PRIVATE]["japanese"]["ships"].items()} == {
        n: s["damage"] for n, s in after["japanese"]["ships"].items()
    }
    # The plot is spent at the end of the Air Phase (5.1.1: one strike a phase).
    assert "air_plot" not in after["allied"]


def test_3_1_b_no_strike_plotted_no_strike_flown(witp: WitpRuleset, battle: dict[str, Any]) -> None:
    result = play(witp, battle)
    assert kinds(result, "strike-launched") == [] and len(kinds(result, "initiative")) == 1
    assert witp.pending(result.state).phase == "T1-naval1-plot"


# -- 12.0-12.2 strike sequencing (R95) ------------------------------------------------


@pytest.mark.parametrize(
    ("result", "first"),
    [(BEFORE, "allied"), (AFTER, "japanese")],
)
def test_12_0_r95_a_carrier_tf_with_its_own_strike_plotted_is_sequenced(
    witp: WitpRuleset,
    battle: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    result: str,
    first: str,
) -> None:
    """The Allies win 3.2 and strike first (the Japanese choose, R3); the Striking
    Force has its own strike plotted, so it is revealed and the striker rolls (12.0).
    "before": the Allied strike arrives first; "after enemy strike": the Japanese
    strike launched first and flies first (R95)."""
    calls: list[dict[str, Any]] = []
    real = naval_strike.sequence_strike

    def scripted(st: Any, strike: AirStrike, *a: Any, **k: Any) -> Any:
        calls.append(strike.to_json())
        _roll, events = real(st, strike, *a, **k)
        return result, events

    monkeypatch.setattr(naval_strike, "sequence_strike", scripted)
    state = copy.deepcopy(battle)
    state[PUBLIC]["pack"]["rulings/initiative-choice"]["value"] = "first"
    japanese = "STRIKE K1 FROM TF2 2xD3A1 2xB5N2 TARGET TF3"
    seed = next(
        s for s in (bytes([i]) for i in range(64)) if _winner_first(witp, state, s) == "allied"
    )
    out = play(witp, state, seed, allied=YORKTOWN_STRIKE, japanese=japanese)
    launched = [e["side"] for e in kinds(out, "strike-launched")]
    assert launched[0] == first and sorted(launched) == ["allied", "japanese"]
    (revealed,) = [e for e in out.events if e.kind == "plotted-strike-revealed"]
    assert revealed.witnesses is None and revealed.data["tf"] == STRIKING_FORCE
    assert len(calls) == 1 and calls[0]["side"] == "allied"  # the one strike rolled for


def _winner_first(witp: WitpRuleset, state: dict[str, Any], seed: bytes) -> str:
    out = play(witp, state, seed)
    (init,) = kinds(out, "initiative")
    return str(init["first"])


# -- special strikes in the Naval Phase (5.8, R105) ------------------------------------


def test_5_8_r105_a_special_strike_launches_at_a_located_tf_moving_by_day(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    special = "SPECIAL X1 FROM TF3 3xSBD-3 AGAINST CV"
    filed = play(witp, battle, allied=special)
    assert kinds(filed, "strike-launched") == []  # standing: nothing flies yet
    kept = filed.state[PRIVATE]["allied"]["standing"]["special"]
    assert [o["id"] for o in kept] == ["X1"]
    assert "special" not in projection(filed.state, "japanese")[PRIVATE].get("standing", {})
    moved = play(witp, filed.state, japanese="TF2 SPEED 2\nTF2 MOVE E2321 EV 4", allied="PASS")
    (sp,) = kinds(moved, "special-strike")
    assert (sp["strike"], sp["tf"], sp["hex"]) == ("X1", STRIKING_FORCE, "E2321")
    (launch,) = kinds(moved, "strike-launched")
    assert launch["side"] == "allied" and launch["from"] == "E2324"
    # It reaches the TF where it halted (7.1: its True report, to both).
    (report,) = [e for e in kinds(moved, "search-report") if e["source"] == "strike-contact"]
    assert report["tf"] == STRIKING_FORCE


def test_5_8_16_6_1_no_special_strike_at_a_tf_moving_at_night(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    filed = play(witp, battle, allied="SPECIAL X1 FROM TF3 3xSBD-3 AGAINST ANY")
    moved = play(
        witp,
        filed.state,
        japanese="TF2 SPEED 2\nTF2 MOVE E2321 EV 4\nTF2 NIGHT AFTER 0",
        allied="PASS",
    )
    assert kinds(moved, "special-strike") == []


def test_r105_special_none_clears_the_standing_orders(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    filed = play(witp, battle, allied="SPECIAL X1 FROM TF3 3xSBD-3 AGAINST CV")
    state = filed.state
    while witp.pending(state).phase != "T1-air2-allocation":
        state = play(witp, state).state
    cleared = play(witp, state, allied="SPECIAL NONE")
    assert cleared.state[PRIVATE]["allied"]["standing"]["special"] == []


# -- 7.8.1: sunk ships leave the display; R106: the verdict ----------------------------


def _sink(state: dict[str, Any], side: str, *names: str, level: int = 5) -> None:
    for n in names:
        state[PRIVATE][side]["ships"][n]["damage"] = level


def test_7_8_1_sunk_ships_leave_their_tf_and_a_tf_with_none_afloat_leaves_the_map(
    battle: dict[str, Any], witp: WitpRuleset
) -> None:
    from pbem.rulesets.witp.clock import schedule

    state = copy.deepcopy(battle)
    slot = schedule(3, 1)[3]
    _sink(state, "japanese", "Shokaku")
    work = Work.begin(state)
    airplay.clear_sunk(work, slot)
    state = work.finish().to_json()
    assert "Shokaku" not in tfs(state, "japanese")[STRIKING_FORCE]["ships"]
    rest = list(tfs(state, "japanese")[STRIKING_FORCE]["ships"])
    _sink(state, "japanese", *rest)
    work = Work.begin(state)
    events = airplay.clear_sunk(work, slot)
    state = work.finish().to_json()
    assert STRIKING_FORCE not in tfs(state, "japanese")
    assert "japanese:TF2" not in state[PUBLIC]["located"]
    assert [e.kind for e in events] == ["tf-sunk", "located-removed"]
    assert events[0].witnesses == ("japanese",)


def test_r106_34_1_1_the_verdict_counts_enemy_ships_sunk(battle: dict[str, Any]) -> None:
    state = copy.deepcopy(battle)
    assert victory.verdict(WitpState.from_json(state)).level == "Draw"
    _sink(state, "japanese", "Shokaku")  # CV: 2 VP to the Allies
    _sink(state, "allied", "Neosho")  # AO: 1/3 VP to the Japanese
    _sink(state, "japanese", "Port Moresby transports (1)")  # MSU: not counted
    out = victory.verdict(WitpState.from_json(state))
    assert (out.winner, out.level, dict(out.scores)) == (
        "allied",
        "Marginal",
        {"japanese": 2, "allied": 12},
    )
    assert "allied 2 VP" in out.summary and "japanese 1/3 VP" in out.summary
    assert "japanese lost Port Moresby transports (1)" not in out.summary
    _sink(state, "japanese", "Zuikaku")
    assert (
        victory.verdict(WitpState.from_json(state)).level == "Decisive"
    )  # 4 VP against 1/3: 2 VP or more
    # 34.1.1: a DD at D2 counts as sunk.
    _sink(state, "japanese", "DesDiv 7", level=2)
    assert "DesDiv 7" in victory.sunk_ships(WitpState.from_json(state), JAPANESE)


def test_r106_the_game_over_verdict_is_the_rulesets_outcome(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    state = copy.deepcopy(battle)
    assert witp.outcome(state) is None  # the game runs on
    state[PUBLIC]["clock"]["at"] = 10**6  # past the last segment
    _sink(state, "allied", "Yorktown")
    out = witp.outcome(state)
    assert out is not None and out.winner == "japanese"
    assert state[DISCLOSURES] is not None


# -- 14.2.2: night strikes in an Air Phase -----------------------------------------------

NIGHT_STRIKE = "STRIKE K1 FROM TF2 2xB5N2 TARGET TF3 NIGHT"


def test_14_2_2_no_night_strike_in_an_air_phase_at_a_tf_that_has_moved(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    result = play(witp, battle, japanese=NIGHT_STRIKE)
    assert kinds(result, "strike-launched") == []
    (event,) = [e for e in result.events if e.kind == "strike-not-flown"]
    assert event.witnesses == ("japanese",) and event.rule == "14.2.2"


def test_14_2_2_a_tf_stationary_two_naval_phases_may_be_struck_at_night(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    state = copy.deepcopy(battle)
    state["moderator"]["stationary"] = {"allied:TF3": 2}  # a test's set-up (14.2.2)
    result = play(witp, state, japanese=NIGHT_STRIKE)
    (launch,) = kinds(result, "strike-launched")
    assert launch["side"] == "japanese"
    # 14.2.2: placed as for a General priority, the counters masked (no types).
    (placed,) = kinds(result, "air-surface-placement")
    assert {s["type"] for s in placed["ships"]} == {"?"}
    (priority,) = kinds(result, "target-priority")
    assert priority["priority"] == "general"


def test_14_2_2_the_moderator_counts_naval_phases_a_tf_stays_put(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    state = play(witp, battle).state  # T1-air1-allocation
    state = play(witp, state, allied="TF3 SPEED 3\nTF3 MOVE E2323 EV 4").state
    assert airplay.stationary(Work.begin(state), "allied", "TF3") == 0
    assert airplay.stationary(Work.begin(state), "allied", "TF2") == 1
    assert "stationary" not in projection(state, "allied")


def test_r90_pass_and_the_airplot_header_are_accepted_once(
    witp: WitpRuleset, allocation: dict[str, Any]
) -> None:
    v = witp.validate(allocation, "allied", "AIRPLOT\n# no strike today\npass\nPASS")
    assert v.accepted == ("PASS",) and v.errors == ()


# -- 5.3.2-5.3.6 plotted Cover CAP and Naval Cover over the target (R102, R110) -------


def _all_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every covering AP arrives (a 100% APAT row), so the tests read the wiring."""
    from pbem.rulesets.witp.air import availability

    monkeypatch.setattr(availability, "available", lambda _p, n, *_a, **_k: (n, 7, 100))


def _cover_given(
    witp: WitpRuleset, state: dict[str, Any], monkeypatch: pytest.MonkeyPatch, japanese: str
) -> tuple[Adjudication, list[Any]]:
    given: list[Any] = []
    real = naval_strike.resolve_into

    def spy(*a: Any, **k: Any) -> Any:
        given.append(k.get("cover"))
        return real(*a, **k)

    monkeypatch.setattr(naval_strike, "resolve_into", spy)
    return play(witp, state, allied=YORKTOWN_STRIKE, japanese=japanese), given


@pytest.mark.parametrize(
    ("order", "rule", "mission"),
    [
        (f"COVER C1 FROM TF1 1xA6M2 OVER {NEAR}", "5.3.3", "plotted-cover"),
        ("NAVALCOVER C1 FROM TF1 1xA6M2 OVER TF2", "5.3.4", "plotted-naval-cover"),
    ],
)
def test_5_3_2_5_3_4_plotted_cover_flies_cap_over_the_tf_struck(
    witp: WitpRuleset,
    battle: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    order: str,
    rule: str,
    mission: str,
) -> None:
    """Shoho's fighter (TF1) plotted over the Striking Force's hex, or over the TF
    itself, joins its CAP against the Allied strike; the APAT roll is the owner's."""
    _all_up(monkeypatch)
    result, given = _cover_given(witp, battle, monkeypatch, order)
    assert given == [[Covering("A6M2", 1)]]
    (event,) = [e for e in result.events if e.kind == "cover-availability"]
    assert event.witnesses == ("japanese",)
    assert (event.data["mission"], event.data["available"], event.data["tf"]) == (
        mission,
        1,
        STRIKING_FORCE,
    )
    told = [d for d in result.state["disclosures"] if d["fact"]["kind"] == "cover-availability"]
    assert [d["rule"] for d in told] == [rule]


def test_5_3_2_cover_over_another_hex_does_not_cover_the_tf(
    witp: WitpRuleset, battle: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _all_up(monkeypatch)
    result, given = _cover_given(witp, battle, monkeypatch, "COVER C1 FROM TF1 1xA6M2 OVER E2317")
    assert given == [[]]
    assert kinds(result, "cover-availability") == []


def _segment(battle: dict[str, Any], covers: dict[str, Any], mp: pytest.MonkeyPatch) -> Any:
    """A Strike Segment with the Japanese plot ``covers`` (no critical hit rolled here)."""
    from pbem.rulesets.witp import clock, draws

    mp.setattr(draws, "round_secret", lambda *_a: draws.SecretDice(b"s", "test"))

    state = copy.deepcopy(battle)
    state[PRIVATE]["japanese"][airplay.AIR_PLOT] = {"strikes": {}, "covers": covers}
    slot = next(s for s in clock.schedule(1) if s.time.endswith("/strike"))
    return airplay._Segment(Work.begin(state), slot, SeededDice(b"c", "g", 1, "x"))


COVER_C1 = {  # as plot.py files it (air/strikes.py's CoverFlight)
    "id": "C1",
    "kind": "cover",
    "base": "TF1",
    "hex": None,
    "carrier": False,
    "type": "A6M2",
    "n": 1,
    "alt": None,
    "over": NEAR,
    "over_hex": NEAR,
    "mp": 18,
    "range": "normal",
}


def test_5_3_3_the_cover_roll_is_made_once_an_air_phase(
    battle: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    seg = _segment(battle, {"C1": COVER_C1}, monkeypatch)
    _flights, first = seg.cover("japanese", STRIKING_FORCE, NEAR)
    _again, second = seg.cover("japanese", STRIKING_FORCE, NEAR)
    assert len(first) == 1 and second == []  # the second strike: no new roll


def test_r110_5_3_6_cover_losses_leave_its_base_and_it_covers_no_more(
    battle: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _all_up(monkeypatch)
    seg = _segment(battle, {"C1": COVER_C1}, monkeypatch)
    flights, _ = seg.cover("japanese", STRIKING_FORCE, NEAR)
    seg.cover_losses("japanese", flights, {"A6M2": [1, 0]})
    assert air(seg.work.json, "japanese", "Shoho")["A6M2"] == 0  # Shoho's fighter, not TF2's
    assert air(seg.work.json, "japanese", "Shokaku")["A6M2"] == 2
    assert seg.cover("japanese", STRIKING_FORCE, NEAR)[0] == []


def test_r110_the_tfs_own_cap_takes_the_losses_first() -> None:
    from pbem.rulesets.witp.air import cover

    assert cover.own_first(2, 3, 1) == (2, 0, 1, 1)
    assert cover.own_first(4, 1, 2) == (1, 2, 0, 0)
    assert cover.split(3, [2, 2]) == [2, 1]


def test_7_11_the_striking_forces_elite_fly_as_elite_and_both_see_the_markers(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    """Shokaku's and Zuikaku's groups are elite (the scenario's pack, illustrative):
    a strike from TF2 fights as elite, and the markers are on the Air Display (7.11)."""
    out = play(witp, battle, japanese="STRIKE K1 FROM TF2 2xD3A1 2xB5N2 TARGET TF3")
    fights = kinds(out, "air-combat")
    bombers = [b for f in fights for b in f["bombers"]]
    assert bombers and all(b.get("elite") is True for b in bombers)
    told = next(e for e in out.events if e.kind == "air-combat")
    assert told.witnesses is None or set(told.witnesses) == set(BOTH)
    ships = out.state[PRIVATE]["japanese"]["ships"]
    for name in ("Shokaku", "Zuikaku"):  # 7.11.2: never more elite than APs aboard
        for t, n in ships[name]["elite"].items():
            assert n <= ships[name]["air"].get(t, 0)


# -- 8.1, 8.8 carrier admirals (R112) ------------------------------------------------


def test_8_1_a_carrier_tfs_admiral_is_its_forces_commander(battle: dict[str, Any]) -> None:
    from pbem.rulesets.witp.air import admirals

    pack = public_pack(battle[PUBLIC])
    assert (
        admirals.commander(pack, Knowledge.of(battle, "allied"), "allied", TF17)
        == "R.Adm. Fletcher"
    )
    assert admirals.commander(
        pack, Knowledge.of(battle, "japanese"), "japanese", STRIKING_FORCE
    ) == ("V.Adm. Takagi")
    # 8.2: an admiral imparts nothing from a carrier no longer operational (D3+): 8.8
    state = copy.deepcopy(battle)
    state[PRIVATE]["allied"]["ships"]["Yorktown"]["damage"] = 3
    assert admirals.commander(pack, Knowledge.of(state, "allied"), "allied", TF17) is None


def test_8_1_admirals_ratings_are_rolled_once_told_their_side_and_used(
    witp: WitpRuleset, battle: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    real = naval_strike.resolve_into

    def spy(*a: Any, **k: Any) -> Any:
        seen.append(k.get("ratings"))
        return real(*a, **k)

    monkeypatch.setattr(naval_strike, "resolve_into", spy)
    first = play(witp, battle, b"t", allied=YORKTOWN_STRIKE)
    told = [e for e in first.events if e.kind == "admiral-ratings"]
    assert sorted((e.data["admiral"], e.witnesses) for e in told) == [
        ("R.Adm. Fletcher", ("allied",)),
        ("V.Adm. Takagi", ("japanese",)),
    ]
    ((ratings),) = seen
    assert {s: r.admiral for s, r in ratings.items()} == {
        "allied": "R.Adm. Fletcher",
        "japanese": "V.Adm. Takagi",
    }
    # Kept for the battle (8.1 "prior to combat"): asked again later, no new roll.
    from pbem.rulesets.witp.air import admirals

    state = copy.deepcopy(dict(first.state))
    dice = SeededDice(b"other", "g", 1, "x")
    again, events = admirals.ratings(Work.begin(state), "allied", TF17, dice, "T1/air2/strike")
    assert again == ratings["allied"] and events == []


def test_14_2_2_r113_a_night_special_strike_at_a_tf_moving_at_night(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    """The Striking Force moves at night; the Hudsons at Port Moresby stand ready
    with a NIGHT order: they strike it in the Naval Phase, at night (blank counters)."""
    filed = play(witp, battle, allied="SPECIAL N1 FROM Port_Moresby 1xHudson NIGHT")
    moved = play(
        witp,
        filed.state,
        japanese="TF2 SPEED 2\nTF2 MOVE E2321 EV 4\nTF2 NIGHT AFTER 0",
        allied="PASS",
    )
    (launch,) = kinds(moved, "special-strike")
    assert launch["strike"] == "N1"
    (placed,) = kinds(moved, "air-surface-placement")
    assert {s["type"] for s in placed["ships"]} == {"?"}  # 14.2.2: blank counters
    assert kinds(moved, "carrier-coordination") == [] or all(
        not c.get("cap") for c in kinds(moved, "carrier-coordination")
    )  # 14.0: no CAP at night


# -- 12.3.2 three or more carrier strikes (R115) ---------------------------------------


def test_12_3_2_step_1_a_joint_strike_averages_its_admirals_the_lead_counted_twice() -> None:
    assert sequencing.joint_rating([4, 1]) == 3.0  # (4 + 4 + 1) / 3
    assert sequencing.joint_rating([None, 3]) == 3.0  # a leaderless TF adds nothing
    assert sequencing.joint_rating([None]) is None


def test_12_3_2_step_3_highest_air_rating_first_irrespective_of_side() -> None:
    strikes = [("allied", "S1", 2.0), ("japanese", "K1", 5.0), ("japanese", "K2", None)]
    strikes.append(("allied", "S2", 3.0))
    got = sequencing.rank(strikes, SeededDice(b"r" * 16, "g", 1, "air1"), "x")
    assert got == [("japanese", "K1"), ("allied", "S2"), ("allied", "S1"), ("japanese", "K2")]


def test_12_3_2_step_3_equal_ratings_are_ordered_by_the_die() -> None:
    strikes = [("allied", "S1", 3.0), ("japanese", "K1", 3.0)]
    seen = {
        tuple(sequencing.rank(strikes, SeededDice(bytes([i]) * 16, "g", 1, "air1"), "x"))
        for i in range(20)
    }
    assert len(seen) == 2  # either may go first


def test_12_3_2_three_carrier_strikes_are_ranked_each_side_told_its_own(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    allied = YORKTOWN_STRIKE + "\nSTRIKE S2 FROM TF2 3xSBD-3 TARGET TF2"  # and Lexington's
    japanese = "STRIKE K1 FROM TF2 2xD3A1 2xB5N2 TARGET TF3"
    out = play(witp, copy.deepcopy(battle), b"q", allied=allied, japanese=japanese)
    told = {
        tuple(e.witnesses or ()): e.data["strikes"]
        for e in out.events
        if e.kind == "carrier-strike-order"
    }
    assert set(told) == {("allied",), ("japanese",)}  # each side only its own
    assert sorted(told[("allied",)]) == ["S1", "S2"] and told[("japanese",)] == ["K1"]
    rated = out.state[MODERATOR]["admiral_ratings"]
    st = battle  # the commanders as the strikes were ranked (a carrier may end the round damaged)
    air = {
        sid: rated[
            f"allied:{admirals.commander(public_pack(st[PUBLIC]), Knowledge.of(st, 'allied'), 'allied', tf)}"
        ]["air"]
        for sid, tf in (("S1", TF17), ("S2", "TF2"))
    }
    first, second = told[("allied",)]
    assert air[first] >= air[second]  # Step 3: the higher Air Rating first
    hexes = {"S1": "E2324", "S2": "E2525"}  # Yorktown's and Lexington's launch hexes
    launched = [e["from"] for e in kinds(out, "strike-launched") if e["side"] == "allied"]
    assert launched == [hexes[s] for s in told[("allied",)]]  # flown in the ranked order
    two = play(witp, copy.deepcopy(battle), b"q", allied=YORKTOWN_STRIKE, japanese=japanese)
    assert not [e for e in two.events if e.kind == "carrier-strike-order"]  # fewer than 3
