"""Search and contact played through the rounds (13.3-13.8, searchplay.py): standing
SEARCH, DECEPTION and COASTWATCHERS orders filed in a Plot Segment, the Air Search
Segment, searches as TFs move, Located chits, dummies, and what each side is told."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.core.dice import SeededDice
from pbem.core.mapview import SIDE_COLOURS
from pbem.core.ruleset import Adjudication
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp import chits, hexgrid, searchplay
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.hexgrid import HexId, distance
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, PUBLIC, projection
from pbem.rulesets.witp.taskforces import TaskForce
from pbem.rulesets.witp.work import Work

from .naval import at_plot, blind, past_allocation, tfs
from .searchworld import world
from .test_search_air import always

MAIN_FORCE = "E2317"  # the Japanese TF1 (MO Main Force) at the first Plot Segment


def _play(witp: Any, state: dict[str, Any], dice: Any, **orders: str) -> Adjudication:
    state = past_allocation(witp, state)  # the naval round (stage 2's Allocation passed)
    d = witp.pending(state)
    accepted = {}
    for side in d.sides:
        v = witp.validate(state, side, orders.get(side, ""))
        assert not v.errors, v.errors
        accepted[side] = list(v.accepted)
    return witp.adjudicate(state, accepted, dice)


def _facts(result: Adjudication, kind: str) -> list[dict[str, Any]]:
    return [d for d in result.state["disclosures"] if d["fact"]["kind"] == kind]


def test_13_3_1_13_5_7_a_base_search_finds_a_tf_and_each_side_is_told_what_it_may(
    witp: Any,
) -> None:
    start = at_plot(witp)
    assert tfs(start, "japanese")["TF1"]["hex"] == MAIN_FORCE
    result = _play(
        witp,
        start,
        always(100),  # every open 2D10 reads 100: the search succeeds
        allied=f"SEARCH Port_Moresby {MAIN_FORCE}",
        japanese="DECEPTION ALL TRUE",
    )
    # 13.3: announced to both, rolled openly, in the Second Air Phase's Search Segment.
    (search,) = [d for d in _facts(result, "air-search") if d["fact"]["from"] == "Port Moresby"]
    assert search["audience"] == ["japanese", "allied"] and search["time"] == "T1/air2/search"
    f = search["fact"]
    assert (f["tf"], f["band"], f["roll"], f["contact"]) == ("TF1", "medium", 100, True)
    assert f["value"] == 5 and f["needed"] == 55
    # 13.7.5: a public Located chit at the TF's hex.
    marker = result.state[PUBLIC]["located"]["japanese:TF1"]
    assert (marker["hex"], marker["label"], marker["source"]) == (MAIN_FORCE, "Located 2A", "air")
    # 13.5.3: the chit drawn is told to the owner alone; 13.5.7: the report to both.
    (chit,) = _facts(result, "search-chit")
    assert chit["audience"] == ["japanese"] and chit["fact"]["cup"] == "cup2"
    (report,) = _facts(result, "search-report")
    assert report["audience"] == ["japanese", "allied"]
    assert report["fact"]["report"] == "4 CA, 1 CVL, 1 DD; total 6"  # DECEPTION ALL TRUE
    allied = witp.view(result.state, result.events, "allied")
    japanese = witp.view(result.state, result.events, "japanese")
    assert any("4 CA, 1 CVL, 1 DD; total 6" in c for c in allied["search"]["contacts"])
    assert any("japanese TF1 at E2317: Located 2A" in c for c in allied["search"]["located"])
    assert "drew" not in json.dumps(allied) and chit["fact"]["chit"] not in str(allied["search"])
    assert any("drew" in line for line in japanese["search"]["found"])
    assert any("(reported to the enemy)" in line for line in japanese["search"]["found"])
    # The standing order stays in force (ruling R50) and the form shows it.
    assert result.state[PRIVATE]["allied"]["standing"]["search"] == [
        f"SEARCH Port_Moresby {MAIN_FORCE}"
    ]
    # The next naval plot's form (after the Allocation round) shows the standing search.
    assert f"In force: SEARCH Port_Moresby {MAIN_FORCE}" in witp.order_template(
        past_allocation(witp, result.state), "allied"
    )


def test_13_3_13_7_1_a_moving_tf_is_searched_once_per_band_as_it_enters_it(witp: Any) -> None:
    start = at_plot(witp)
    rabaul = start[PRIVATE]["japanese"]["air_bases"]["Rabaul"]["hex"]
    result = _play(witp, start, SeededDice(b"b", "g", 1, "x"), allied="TF3 MOVE E1916 EV 0")
    log = [s["hex"] for s in tfs(result.state, "allied")["TF3"]["log"]]
    searches = [
        d["fact"]
        for d in _facts(result, "air-search")
        if d["fact"]["from"] == "Rabaul" and d["time"] == "T1/naval1/execution"
    ]
    bands = [f["band"] for f in searches]
    assert len(bands) == len(set(bands)) >= 2  # once per band (13.3), and it crossed bands
    order = ["extended", "long", "medium", "short"]
    assert bands == sorted(bands, key=order.index)  # as it closed on Rabaul
    for f in searches:  # each roll made in the hex where the TF entered that band
        assert f["hex"] in log and f["tf"] == "TF3"
        assert distance(rabaul, f["hex"]) <= {"extended": 24, "long": 19, "medium": 13}.get(
            f["band"], 7
        )


def test_13_7_1_a_tf_that_does_not_move_is_not_searched_in_a_naval_phase(witp: Any) -> None:
    result = _play(witp, at_plot(witp), SeededDice(b"s", "g", 1, "x"))
    assert not [d for d in _facts(result, "air-search") if "naval" in d["time"]]


def test_13_3_3_a_bluff_search_that_succeeds_is_owned_up(witp: Any) -> None:
    start = at_plot(witp)
    tf44 = tfs(start, "allied")["TF4"]["hex"]  # Task Force 44: no carrier
    target = next(h for h in ("E2226", "E2225", "E2028") if 1 <= distance(tf44, h) <= 8)
    result = _play(witp, start, always(100), allied=f"SEARCH TF4 {target} BLUFF 9")
    (bluff,) = [d for d in _facts(result, "air-search") if d["rule"] == "13.3.3"]
    assert bluff["audience"] == ["japanese", "allied"] and bluff["fact"]["value"] == 9
    assert bluff["fact"]["from"] == f"TF at {tf44}"  # shown as a carrier search (13.3.3)
    (owned,) = _facts(result, "no-search-took-place")
    assert owned["audience"] == ["japanese", "allied"] and owned["rule"] == "13.3.3"
    assert not _facts(result, "search-report") and not _facts(result, "search-chit")


def test_13_5_4_an_intensive_search_draws_from_cup_1_and_costs_the_searcher(
    witp: Any,
) -> None:
    start = at_plot(witp)
    before = sum(start[PRIVATE]["allied"]["air_bases"]["Port Moresby"]["air_points"].values())
    result = _play(witp, start, always(100), allied=f"SEARCH Port_Moresby {MAIN_FORCE} INTENSIVE")
    (chit,) = _facts(result, "search-chit")
    assert chit["fact"]["cup"] == "cup1" and chit["audience"] == ["japanese"]
    (loss,) = _facts(result, "intensive-search-loss")
    assert loss["audience"] == ["allied"] and loss["rule"] == "13.5.4"
    after = sum(result.state[PRIVATE]["allied"]["air_bases"]["Port Moresby"]["air_points"].values())
    assert before - after == loss["fact"]["air_points_lost"]
    search = next(d for d in _facts(result, "air-search") if d["fact"]["from"] == "Port Moresby")
    assert search["fact"]["intensive"] is True


def _with_japanese_dummy(state: dict[str, Any], hexid: str) -> dict[str, Any]:
    new = copy.deepcopy(state)
    dummy = TaskForce(HexId(hexid), dummy=True, speed_class="SC3")
    tfs(new, "japanese")["TF9"] = dummy.to_json()
    return new


def test_13_6_2_a_dummy_found_by_air_is_reported_a_dummy_and_not_struck(witp: Any) -> None:
    start = _with_japanese_dummy(at_plot(witp), MAIN_FORCE)
    result = _play(witp, start, always(100), allied=f"SEARCH Port_Moresby {MAIN_FORCE}")
    reports = {d["fact"]["tf"]: d["fact"]["report"] for d in _facts(result, "search-report")}
    assert reports["TF9"] == "dummy"  # 13.6.2 (R21: a False chit keeps it a dummy)
    allied = witp.view(result.state, result.events, "allied")
    (line,) = [x for x in allied["search"]["located"] if "TF9" in x]
    assert "no strike" in line and "13.6.4" in line
    assert "TF9" in tfs(result.state, "japanese")  # the marker stays (13.6.2)


def test_13_6_3_a_dummy_found_by_a_coastwatcher_is_definitively_revealed(witp: Any) -> None:
    start = at_plot(witp)
    log = start[PRIVATE]["allied"]["coastwatchers"]
    watched = sorted(h for cw in log.values() for h in cw["hexes"])
    target = next(h for h in watched if distance(h, MAIN_FORCE) <= 4)
    state = _with_japanese_dummy(blind(start, "allied"), MAIN_FORCE)
    state[PRIVATE]["allied"]["coastwatchers"] = log  # watchers, but no air search
    table = state[PUBLIC]["pack"]["tables/coastwatcher-search"]["value"]["coastwatcher"]
    table["day_min"] = 1  # this test's own table: the watcher always sees it
    result = _play(witp, state, SeededDice(b"c", "g", 1, "x"), japanese=f"TF9 MOVE {target} EV 0")
    (revealed,) = _facts(result, "dummy-revealed")
    assert revealed["audience"] == ["japanese", "allied"] and revealed["rule"] == "13.6.3"
    assert revealed["fact"]["by"] == "coastwatcher search"
    assert "TF9" not in tfs(result.state, "japanese")
    assert not _facts(result, "coastwatcher-island")  # reported a dummy: no island (13.8)
    assert "japanese:TF9" not in result.state[PUBLIC]["located"]
    japanese = witp.view(result.state, result.events, "japanese")
    assert any("was a dummy" in line for line in japanese["search"]["revealed"])


def test_13_7_5_night_movement_removes_a_located_chit(witp: Any) -> None:
    first = _play(witp, at_plot(witp), always(100), allied=f"SEARCH Port_Moresby {MAIN_FORCE}")
    state = dict(first.state)
    assert "japanese:TF1" in state[PUBLIC]["located"]
    # Blind the Allies now, so nothing finds TF1 again as it moves.
    state = blind(state, "allied")
    state[PRIVATE]["allied"]["standing"]["search"] = []
    night = _play(
        witp,
        state,
        SeededDice(b"n", "g", 1, "x"),
        japanese="TF1 MOVE E2114 EV 0\nTF1 NIGHT AFTER 0",
    )
    (removed,) = [d for d in _facts(night, "located-removed") if d["time"] == "T1/naval2/execution"]
    assert removed["fact"]["why"] == "night movement" and removed["rule"] == "13.7.5"
    assert removed["audience"] == ["japanese", "allied"]
    day = _play(witp, state, SeededDice(b"n", "g", 1, "x"), japanese="TF1 MOVE E2114 EV 0")
    moved = [d["fact"]["hex"] for d in _facts(day, "located-moved")]
    assert moved and moved[-1] == "E2114"  # the marker on the map moves with it by day
    (gone,) = [d for d in _facts(day, "located-removed") if d["time"] == "T1/naval2/execution"]
    assert gone["fact"]["why"] == "expired"  # at the end of the succeeding phase (13.7.5)


def test_13_7_5_a_located_tf_that_does_not_move_keeps_its_chit(witp: Any) -> None:
    first = _play(witp, at_plot(witp), always(100), allied=f"SEARCH Port_Moresby {MAIN_FORCE}")
    state = blind(dict(first.state), "allied")
    state[PRIVATE]["allied"]["standing"]["search"] = []
    stay = _play(witp, state, SeededDice(b"n", "g", 1, "x"))
    (renewed,) = _facts(stay, "located-renewed")
    assert renewed["fact"]["label"] == "Located 2N"
    assert stay.state[PUBLIC]["located"]["japanese:TF1"]["label"] == "Located 2N"


def test_13_3_refused_standing_orders_name_line_reason_and_rule(witp: Any) -> None:
    start = at_plot(witp)
    text = "\n".join(
        [
            "SEARCH Nowhere E2317",  # 1
            "SEARCH TF4 E2114 BLUFF 9",  # 2: Long range
            "SEARCH Lae E2317",  # 3: fighters only
            "SEARCH Port_Moresby",  # 4: no hex
            "DECEPTION TF 7 TRUE",  # 5: no TF7
            "DECEPTION ALL SOMETIMES",  # 6
            f"SEARCH Port_Moresby {MAIN_FORCE}",  # 7: accepted
        ]
    )
    errors = witp.validate(start, "allied", text).errors
    got = {e.line: (e.rule, e.text) for e in errors}
    assert got[1] == ("13.0", "SEARCH Nowhere E2317")
    assert got[2][0] == "13.3.3" and got[4][0] == "13.3.1" and got[5][0] == "13.5.7"
    assert got[6][0] == "13.5.7" and 7 not in got
    assert all(e.message for e in errors)
    japanese = witp.validate(start, "japanese", "SEARCH Lae E2317\nCOASTWATCHERS DELAY 2").errors
    assert [(e.line, e.rule) for e in japanese] == [(1, "13.1.3"), (2, "13.8.1")]


def test_r50_standing_orders_are_kept_until_replaced(witp: Any) -> None:
    first = _play(
        witp,
        at_plot(witp),
        SeededDice(b"r", "g", 1, "x"),
        allied=f"SEARCH Port_Moresby {MAIN_FORCE}\nCOASTWATCHERS DELAY END\nDECEPTION TF3 TRUE",
    )
    standing = first.state[PRIVATE]["allied"]["standing"]
    assert standing["search"] == [f"SEARCH Port_Moresby {MAIN_FORCE}"]
    assert standing["coastwatcher_delay"] is None and standing["deception"]["TF3"]["mode"] == "true"
    second = _play(witp, dict(first.state), SeededDice(b"r", "g", 1, "y"), allied="PASS")
    kept = second.state[PRIVATE]["allied"]["standing"]
    assert kept["search"] == standing["search"]  # flown again in the Third Air Phase
    assert [d for d in _facts(second, "air-search") if d["time"] == "T1/air3/search"] or [
        d for d in _facts(second, "air-search-empty") if d["time"] == "T1/air3/search"
    ]
    third = _play(witp, dict(second.state), SeededDice(b"r", "g", 1, "z"), allied="SEARCH NONE")
    assert third.state[PRIVATE]["allied"]["standing"]["search"] == []


# -- noninterference: chit drawn, true composition, dummy or not --------------------


@settings(max_examples=12, deadline=None)
@example([False] * 6, [False] * 6, 0, 3, 100)  # dummies both: "dummy" whatever the chit
@example([True] * 6, [True, False] * 3, 1, 4, 100)
@given(
    st.lists(st.booleans(), min_size=6, max_size=6),
    st.lists(st.booleans(), min_size=6, max_size=6),
    st.integers(0, 7),
    st.integers(0, 7),
    st.sampled_from([100, 55, 62, 73, 90, 45, 30]),  # no 1 or 8: no endless 3.2 ties
)
def test_13_5_7_the_searcher_cannot_tell_worlds_that_report_alike(
    witp: Any, keep_a: list[bool], keep_b: list[bool], cut_a: int, cut_b: int, roll: int
) -> None:
    """Two worlds differing in the Japanese TF1's true composition (or its being a
    dummy), the chits left in Cup 2, and so the chit drawn: whenever the reports the
    Allies receive are the same, the Allies' knowledge, view, order form and events
    are the same (the Japanese policy answers "dummy" when a chit allows it)."""
    base = at_plot(witp)
    worlds = []
    for keep, cut in ((keep_a, cut_a), (keep_b, cut_b)):
        state = copy.deepcopy(base)
        tf1 = tfs(state, "japanese")["TF1"]
        tf1["ships"] = [s for s, k in zip(tf1["ships"], keep, strict=True) if k]
        tf1["dummy"] = not tf1["ships"]
        state[PRIVATE]["japanese"]["standing"] = {
            "deception": {"*": {"goals": {}, "fixed": {"any": "dummy"}, "mode": "random"}}
        }
        work = Work.begin(state)
        searchplay.prepare(work, witp.theatre_map)
        chits.chit_cups(work)  # the cups as printed, then ``cut`` Report True chits gone
        state = work.finish().to_json()
        state[MODERATOR]["search"]["cups"]["cup2"]["true"] -= cut % 5
        result = _play(witp, state, always(roll), allied=f"SEARCH Port_Moresby {MAIN_FORCE}")
        worlds.append(result)
    a, b = worlds
    reports = [[d["fact"]["report"] for d in _facts(r, "search-report")] for r in (a, b)]
    if reports[0] != reports[1]:
        return
    assert projection(a.state, "allied") == projection(b.state, "allied")
    assert [e.to_json() for e in a.events if e.seen_by("allied")] == [
        e.to_json() for e in b.events if e.seen_by("allied")
    ]
    assert json.dumps(witp.view(a.state, a.events, "allied")) == json.dumps(
        witp.view(b.state, b.events, "allied")
    )
    assert witp.order_template(a.state, "allied") == witp.order_template(b.state, "allied")


def test_r57_when_cups_2_and_3_are_empty_the_held_chits_go_back_first() -> None:
    work = Work.begin(world())
    rec = chits.chit_cups(work)
    for cup in (chits.NORMAL, chits.SQUALL):  # every chit of both cups held by some TF
        for chit, n in rec.cups[cup].items():
            for _ in range(n):
                rec = rec.drawn("allied:TF5", cup, chit)
    chits.keep(work, rec)
    chits.draw(work, JAPANESE, "TF1", chits.NORMAL, SecretDice(b"s", "t"))
    rec = chits.chit_cups(work)
    assert rec.left(chits.SQUALL) == 29  # 13.5.1: 30, one drawn
    assert [h.cup for h in rec.held["allied:TF5"]] == [chits.NORMAL] * 40


def test_13_7_5_the_report_map_marks_enemy_tfs_located_and_no_others(witp: Any) -> None:
    result = _play(witp, at_plot(witp), always(100), allied=f"SEARCH Port_Moresby {MAIN_FORCE}")
    allied = witp.view(result.state, result.events, "allied")
    assert allied["search"]["map"] == [{"side": "japanese", "id": "TF1?", "hex": MAIN_FORCE}]
    picture = witp.map_picture(allied)
    enemy = {k.key for k in picture.markers if k.colour == SIDE_COLOURS["japanese"]}
    assert enemy == {hexgrid.key(MAIN_FORCE)}
    japanese = witp.view(result.state, result.events, "japanese")
    assert japanese["search"]["map"] == []  # its own TF1 is marked as its own force


def test_13_8_a_coastwatcher_reports_a_real_tf_and_gives_away_its_island(witp: Any) -> None:
    start = at_plot(witp)
    log = start[PRIVATE]["allied"]["coastwatchers"]
    watched = sorted(h for cw in log.values() for h in cw["hexes"])
    target = next(h for h in watched if distance(h, MAIN_FORCE) <= 4)
    state = blind(start, "allied")
    state[PRIVATE]["allied"]["coastwatchers"] = log
    table = state[PUBLIC]["pack"]["tables/coastwatcher-search"]["value"]["coastwatcher"]
    table["day_min"] = 1  # this test's own table: the watcher always sees it
    result = _play(
        witp,
        state,
        SeededDice(b"w", "g", 1, "x"),
        allied="COASTWATCHERS DELAY END",
        japanese=f"TF1 MOVE {target} EV 0\nDECEPTION ALL TRUE",
    )
    (island,) = _facts(result, "coastwatcher-island")
    assert island["audience"] == ["japanese", "allied"] and island["rule"] == "13.8"
    assert target not in json.dumps(island["fact"])  # the island, not the hex
    (report,) = [d for d in _facts(result, "search-report") if d["fact"]["tf"] == "TF1"]
    assert report["fact"]["source"] == "coastwatcher" and report["audience"] == [
        "japanese",
        "allied",
    ]
    sources = {d["fact"]["source"] for d in _facts(result, "located") if d["fact"]["tf"] == "TF1"}
    assert sources == {"coastwatcher"}  # survives night movement, no strike on it alone


def test_r50_r70_under_the_japanese_first_gate_each_half_files_its_own_standing_orders(
    witp: Any,
) -> None:
    start = at_plot(witp, gate=True)
    assert witp.pending(start).sides == ("japanese",)
    tf17 = tfs(start, "allied")["TF3"]["hex"]
    half = _play(witp, start, always(100), japanese=f"SEARCH Rabaul {tf17}\nDECEPTION ALL TRUE")
    standing = half.state[PRIVATE]["japanese"]["standing"]
    assert standing["search"] == [f"SEARCH Rabaul {tf17}"] and standing["deception"]["*"]
    assert not [d for d in half.state["disclosures"] if "search" in d["fact"]["kind"]]
    rest = _play(witp, dict(half.state), always(100), allied=f"SEARCH Port_Moresby {MAIN_FORCE}")
    flown = {(d["fact"]["searcher"], d["time"]) for d in _facts(rest, "air-search")}
    assert ("japanese", "T1/air2/search") in flown and ("allied", "T1/air2/search") in flown


def test_13_5_7_each_contact_is_shown_at_the_hex_of_its_own_located_chit(witp: Any) -> None:
    start = at_plot(witp)
    result = _play(witp, start, always(100), japanese="TF1 MOVE E2114 EV 0")
    allied = witp.view(result.state, result.events, "allied")
    placed = [
        d["fact"]["hex"]
        for d in _facts(result, "located")
        if d["fact"]["tf"] == "TF1" and d["time"] == "T1/naval1/execution"
    ]
    shown = [c.split(" at ")[1].split(" ")[0] for c in allied["search"]["contacts"] if "TF1" in c]
    assert len(set(placed)) > 1 and shown[: len(placed)] == placed
