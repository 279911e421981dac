"""The naval player's CAP altitudes (7.1 B Combat Segment, 6.1, R135), the US PBY
night contact roll (14.2.3, R136) and the night-strike condition of 14.2.2 at plot
time (R137): a plotted ``CAP`` order, its refusals, the CAP fighting where the order
puts it; each PBY rolling before the display; a NIGHT line refused only for what the
plotting side saw."""

from __future__ import annotations

import copy
import re
from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.sides import ALLIED, JAPANESE, SIDES
from pbem.rulesets.witp import airplay
from pbem.rulesets.witp import located as located_chits
from pbem.rulesets.witp.air import capsplit, night, plot
from pbem.rulesets.witp.air.strikeplot import AirPlot
from pbem.rulesets.witp.clock import TurnTrack, schedule
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR, PRIVATE, PUBLIC, Fact, disclose
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.work import Work

from .conftest import SCENARIO
from .journal import Told
from .naval import NO_GATE, tfs
from .strikeworld import opened, report, resolved, strike_section
from .test_air_play import STRIKING_FORCE, TF17, located, play
from .test_air_world import PUBLIC_PACK, knowing, resolve_stored, told, world

TIME = "T1/air1/strike"
# The Allied strike of test_air_naval_strike: dive bombers and escort at M, torpedoes L.
STRIKE = "STRIKE S1 FROM TF2 4xSBD-3/D 2xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3@M CLOSE"


def _judge(state: dict[str, Any], side: str, text: str) -> tuple[AirPlot, list[Any]]:
    return plot.judge(knowing(state, side), side, text)


def _run(
    state: dict[str, Any], seed: int, text: str = STRIKE, side: str = ALLIED, **kw: Any
) -> tuple[dict[str, Any], list[Any]]:
    p, errors = _judge(state, side, text)
    assert errors == [], errors
    strike = next(iter(p.air_strikes.values()))
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    secret = SecretDice(bytes([seed + 1]) * 12, "secret")
    return resolve_stored(state, strike, dice, secret, TIME, **kw)


def _cap_levels(state: dict[str, Any], side: str) -> dict[str, int]:
    """The CAP APs that fought at each level, as ``side`` was told (6.1.1)."""
    return {f["level"]: sum(int(c["n"]) for c in f["cap"]) for f in told(state, side, "air-combat")}


# -- 7.1 B, R135: the CAP order --------------------------------------------------------


def test_7_1_b_r135_a_cap_order_is_judged_line_by_line() -> None:
    s = world()
    p, errors = _judge(s, JAPANESE, "CAP TF1 H:2 m:1\nCAP TF1 L:1\nCAP TF9 L:1\nCAP TF1 X:1")
    assert p.caps == {"TF1": {"H": 2, "M": 1}}
    assert p.filed().to_json()["caps"] == {"TF1": {"H": 2, "M": 1}}
    refused = {e.line: (e.rule, e.message) for e in errors}
    assert refused[2][0] == "7.1" and "already allotted" in refused[2][1]
    assert refused[3][0] == "5.3" and "none of your TFs" in refused[3][1]
    assert refused[4][0] == "7.1" and "<L|M|H>:<share>" in refused[4][1]
    for bad in ("CAP TF1", "CAP TF1 L:0 M:0", "CAP TF1 L:1 L:2", "CAP TF1 H:100"):
        _p, (err,) = _judge(s, JAPANESE, bad)
        assert err.line == 1 and err.rule == "7.1", bad
    # the enemy's TF is not one to fly CAP over
    _p, (err,) = _judge(s, ALLIED, "CAP TF1 L:1")
    assert err.rule == "5.3"


def test_7_1_b_r135_shares_deal_only_over_the_levels_announced() -> None:
    assert capsplit.deal(5, ["L", "M"], {"L": 1, "M": 1, "H": 9}) == {"L": 3, "M": 2}
    assert capsplit.deal(4, ["L", "M"], {"M": 3, "L": 1}) == {"L": 1, "M": 3}
    assert capsplit.deal(4, ["M"], {"L": 1, "H": 2}) == {}  # no share here: the doctrine
    assert capsplit.deal(3, ["L", "M", "H"], {"H": 1, "M": 1, "L": 1}) == {"L": 1, "M": 1, "H": 1}


def test_7_1_b_r135_the_cap_fights_where_the_order_puts_it() -> None:
    even, _ = _run(world(), 3)
    assert set(_cap_levels(even, ALLIED)) == {"L", "M"}  # R92: split over both levels
    total = sum(_cap_levels(even, ALLIED).values())  # what the CAP's CC check let up
    assert told(even, JAPANESE, "cap-allotted") == []  # no order: nothing to echo
    mid, _ = _run(world(), 3, cap_split={"M": 1, "H": 5})
    assert _cap_levels(mid, ALLIED) == {"M": total}  # all at M, none at H (unused)
    (echo,) = told(mid, JAPANESE, "cap-allotted")
    assert echo == {
        "kind": "cap-allotted",
        "tf": "TF1",
        "order": "H:5 M:1",
        "levels": {"L": {}, "M": {"A6M2": total}},
    }
    assert told(mid, ALLIED, "cap-allotted") == []  # the order is the owner's alone
    low, _ = _run(world(), 3, cap_split={"L": 1})
    assert _cap_levels(low, ALLIED) == {"L": total}
    # no share at a level the strike uses: the doctrine's even split (R92)
    high, _ = _run(world(), 3, cap_split={"H": 1})
    assert _cap_levels(high, ALLIED) == _cap_levels(even, ALLIED)


def test_7_1_b_r135_a_share_where_the_strike_does_not_fly_changes_nothing_it_sees() -> None:
    """6.1: APs at different levels have no effect on one another; the order's H
    share never meets the strike. The owner's echo differs (the control)."""
    a, _ = _run(world(), 5, cap_split={"M": 1, "H": 1})
    b, _ = _run(world(), 5, cap_split={"M": 1, "H": 7})
    seen = [[d for d in w[DISCLOSURES] if ALLIED in d["audience"]] for w in (a, b)]
    assert seen[0] == seen[1]
    assert told(a, JAPANESE, "cap-allotted") != told(b, JAPANESE, "cap-allotted")


def test_7_1_b_r135_the_plotted_order_reaches_the_strike_segment(witp: WitpRuleset) -> None:
    state = witp.initial_state(SCENARIO, {"datapack": NO_GATE})
    state = dict(witp.adjudicate(state, {}, SeededDice(b"n", "g", 1, "T1-open")).state)
    tfs(state, JAPANESE)[STRIKING_FORCE]["hex"] = "E2320"
    located(state, JAPANESE, STRIKING_FORCE, "2 CV 2 CA 3 DD 1 AO TOTAL 8")
    located(state, ALLIED, TF17, "1 CV 3 CA 2 DD TOTAL 6")
    v = witp.validate(state, JAPANESE, "CAP TF2 H:1")
    assert v.errors == () and v.accepted == ("CAP TF2 H:1",)
    strike = "STRIKE S1 FROM TF3 3xSBD-3 1xTBD-1 TARGET TF2"
    result = play(witp, state, japanese="CAP TF2 L:2 H:1", allied=strike)
    echoes = [e for e in result.events if e.kind == "cap-allotted"]
    assert echoes and all(e.witnesses == (JAPANESE,) for e in echoes)
    assert echoes[0].data["order"] == "H:1 L:2"
    assert airplay.AIR_PLOT not in result.state[PRIVATE][JAPANESE]  # spent with the phase


# -- 14.2.3, R136: US PBY night contact -------------------------------------------------


def test_14_2_3_the_pby_night_contact_table() -> None:
    pub = public_pack({"pack": PUBLIC_PACK})
    assert [night.result(pub, r, 0) for r in range(1, 7)] == [
        night.DESTROYED,
        night.NO_CONTACT,
        night.NO_CONTACT,
        night.CONTACT,
        night.CONTACT,
        night.CONTACT,
    ]
    assert night.result(pub, 1, 1) == night.NO_CONTACT  # +1: never destroyed
    assert night.result(pub, 3, 1) == night.CONTACT
    assert (night.drm(pub, 24), night.drm(pub, 25), night.drm(pub, 26)) == (1, 1, 0)


def _pbys(hexid: str, n: int = 4) -> dict[str, Any]:
    """Night-capable PBYs at a base ``hexid``. The Coral Sea's PBYs only search (the
    Black Cats commence 6/42, 14.2.1): the test's pack lets them strike."""
    bases = {ALLIED: {"Black Cats": {"hex": hexid, "air_points": {"PBY-5": n}}}}
    s = world(bases=bases)
    pack = dict(s[PUBLIC]["pack"])
    unit = pack["units/ap-PBY-5"]
    pack["units/ap-PBY-5"] = {**unit, "value": {**unit["value"], "roles": ["R", "B", "T"]}}
    s[PUBLIC]["pack"] = pack
    return s


def _pby_strike(role: str = "T") -> str:
    return f"STRIKE S1 FROM Black_Cats 4xPBY-5/{role} TARGET TF1 NIGHT"


def test_14_2_3_each_pby_rolls_for_contact_before_the_display() -> None:
    for seed in range(40):
        st, _ = _run(_pbys("E2018"), seed, _pby_strike())  # 8 hexes: 48 MP
        (fact,) = told(st, ALLIED, "night-contact")
        if fact["destroyed"] and any(r["result"] == night.CONTACT for r in fact["rolls"]):
            break
    assert told(st, JAPANESE, "night-contact") == [fact]  # open dice: both see them
    assert len(fact["rolls"]) == 4 and all(r["drm"] == 0 for r in fact["rolls"])
    assert [r["result"] for r in fact["rolls"]] == [
        night.result(public_pack(st[PUBLIC]), r["roll"], 0) for r in fact["rolls"]
    ]
    contacts = sum(r["result"] == night.CONTACT for r in fact["rolls"])
    # 14.2.2: one AP a wave; only those that made contact enter the display
    assert len(told(st, ALLIED, "wave-entry")) == contacts
    # those destroyed leave the base (not air combat losses: no 6.3.3 roll)
    left = st[PRIVATE][ALLIED]["air_bases"]["Black Cats"]["air_points"]["PBY-5"]
    assert left == 4 - fact["destroyed"]["PBY-5"]
    assert told(st, ALLIED, "extended-range-losses") == []


def test_14_2_3_plus_one_within_25_mp_and_only_torpedo_armed_pbys_roll() -> None:
    st, _ = _run(_pbys("E2014"), 1, _pby_strike())  # 4 hexes: 24 MP
    (fact,) = told(st, ALLIED, "night-contact")
    assert all(r["drm"] == 1 and r["result"] != night.DESTROYED for r in fact["rolls"])
    bombs, _ = _run(_pbys("E2014"), 1, _pby_strike("B"))
    assert told(bombs, ALLIED, "night-contact") == []  # 14.2.3: torpedo-armed only
    by_day, _ = _run(_pbys("E2014"), 1, "STRIKE S1 FROM Black_Cats 4xPBY-5/T TARGET TF1")
    assert told(by_day, ALLIED, "night-contact") == []


# -- 14.2.2 at plot time, R137: only what the plotting side saw ---------------------------

G4M_NIGHT = "STRIKE K1 FROM Rabaul 2xG4M1/T TARGET TF2 NIGHT"


def _rabaul(at: str) -> dict[str, Any]:
    """Japanese G4Ms at Rabaul, Allied TF2 Located; the clock at the round of ``at``."""
    bases = {JAPANESE: {"Rabaul": {"hex": "E2010", "air_points": {"G4M1": 4}}}}
    s = world(located=("allied:TF2",), bases=bases)
    slots = schedule(2, 1)
    idx = next(i for i, sl in enumerate(slots) if sl.time == at)
    s[PUBLIC]["clock"] = {"at": idx, "game_turns": 2, "turn_in_cycle": 1}
    return s


def _told_moved(s: dict[str, Any], time: str, kind: str = "located-moved") -> None:
    """Both sides told that Allied TF2 moved at ``time``: its Located marker moving
    with it by day (R52), or taken by its night movement (located.night_movement)."""
    if kind == "located-moved":
        fact = {"kind": kind, "owner": ALLIED, "tf": "TF2", "hex": "E2016"}
        disclose(Told(s), Fact.from_json(fact), list(SIDES), time, "13.7.5")
        return
    slots = schedule(2, 1)
    slot = next(sl for sl in slots if sl.time == time)
    work = Work.begin(s)
    (event,) = located_chits.night_movement(work, ALLIED, "TF2", slot)
    assert event.kind == kind
    # found again by an air search since: a target once more (5.1.6)
    search = next(sl for sl in slots if sl.time == "T1/air3/search")
    located_chits.place(work, ALLIED, "TF2", HexId("E2016"), "air", search)
    s.update(work.finish().to_json())


def test_14_2_2_r137_a_night_strike_at_a_tf_the_side_saw_move_is_refused() -> None:
    for kind, moved_at in (
        ("located-moved", "T1/naval2/execution"),
        ("located-moved", "T1/naval1/execution"),
        ("located-removed", "T1/naval2/execution"),
    ):
        s = _rabaul("T1/air3/allocation")  # the last two Naval Phases: naval2, naval1
        _told_moved(s, moved_at, kind)
        _p, (err,) = _judge(s, JAPANESE, G4M_NIGHT)
        assert err.line == 1 and err.rule == "14.2.2" and moved_at in err.message
    # seen moving three Naval Phases ago: outside 14.2.2's two; the line stands
    s = _rabaul("T2/air1/allocation")
    _told_moved(s, "T1/naval1/execution")
    p, errors = _judge(s, JAPANESE, G4M_NIGHT)
    assert errors == [] and p.air_strikes["K1"].night


def test_14_2_2_r137_the_plot_reads_no_movement_the_side_was_not_told() -> None:
    """The moderator's count (R109) and moves told to the enemy alone change nothing
    at plot time: the line is judged from the plotting side's knowledge."""
    answers = []
    for count, told_owner in ((0, True), (2, False), (0, False)):
        s = _rabaul("T1/air3/allocation")
        s[MODERATOR]["stationary"] = {"allied:TF2": count}
        if told_owner:
            fact = {"kind": "located-moved", "owner": ALLIED, "tf": "TF2", "hex": "E2016"}
            disclose(Told(s), Fact.from_json(fact), [ALLIED], "T1/naval2/execution", "13.7.5")
        p, errors = _judge(s, JAPANESE, G4M_NIGHT)
        answers.append((copy.deepcopy(p.filed().to_json()), errors))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][1] == []


# -- the reports (strikeview): readable, within 72 columns ---------------------------------


def test_r135_r136_the_strike_report_tells_the_cap_order_and_the_contact_rolls(
    witp: WitpRuleset,
) -> None:
    base = opened(witp)
    st, events = resolved(base, 2, cap_split={"H": 1, "M": 2})
    owner = strike_section(report(witp, st, events, JAPANESE)[1])
    told_owner = " ".join(owner.split())
    assert "Your CAP over TF2 (H:1 M:2): low level none; medium level " in told_owner
    assert "Your CAP over" not in strike_section(report(witp, st, events, ALLIED)[1])
    # a night strike by PBYs from Nouméa's side of the sea (the test's pack lets them strike)
    pby = copy.deepcopy(base)
    pby[PRIVATE][ALLIED]["air_bases"]["Black Cats"] = {"hex": "E2118", "air_points": {"PBY-5": 4}}
    unit = pby[PUBLIC]["pack"]["units/ap-PBY-5"]
    pby[PUBLIC]["pack"] = {
        **pby[PUBLIC]["pack"],
        "units/ap-PBY-5": {**unit, "value": {**unit["value"], "roles": ["R", "B", "T"]}},
    }
    p, errors = _judge(pby, ALLIED, "STRIKE N1 FROM Black_Cats 4xPBY-5/T TARGET TF2 NIGHT")
    assert errors == []
    st, events = resolve_stored(
        pby,
        p.air_strikes["N1"],
        SeededDice(b"pby" * 6, "g", 1, "air2"),
        SecretDice(b"pby-secret", "secret"),
        "T1/air2/strike",
    )
    # From a land base the /T PBYs are cut to those the base may arm (7.10.1, R127):
    # each armed one rolls for contact; the rest fly as bombers and roll none.
    (arming,) = told(st, ALLIED, "torpedo-arming")
    armed = int(arming["armed"])
    assert 1 <= armed <= 4
    for side in SIDES:
        section = strike_section(report(witp, st, events, side)[1])
        flat = " ".join(section.split())
        assert "Night contact on " in flat
        assert (
            len(
                re.findall(
                    r"PBY-5 from Black Cats 1D6 \d( \+1)?: (contact|no contact|destroyed)", flat
                )
            )
            == armed
        )
        plain = strike_section(report(witp, st, events, side)[0])  # a strike a line
        assert plain and max(len(line) for line in plain.splitlines()) <= 72


def test_14_2_2_the_two_naval_phases_before_the_pending_round() -> None:
    # at T1/air3/search (slot 15) the last two Naval Phases are naval2 and naval1
    assert night.last_naval_phases(TurnTrack(15, 2, 1)) == ["T1/naval2/", "T1/naval1/"]
    assert night.last_naval_phases(TurnTrack(8, 2, 1)) == ["T1/naval1/"]  # only one yet
