"""Cover CAP's missing cases (5.3.3-5.3.6, R120-R124): carrier-launched cover's
coordination check, the Army-type fighters' Naval Cover DRM, the 2R of cover over a
hex held solely by the enemy; each told its owner alone, in its strike report."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from pbem.core.dice import SeededDice
from pbem.rulesets.witp import airplay, clock, draws
from pbem.rulesets.witp.air import availability, cover
from pbem.rulesets.witp.air.strike.plotted import Covering
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, Fact
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.work import Work

from .conftest import SCENARIO
from .journal import Told
from .naval import NO_GATE, tfs
from .test_air_play import located, play

LAE, MORESBY = "E1015", "E1018"  # the Japanese air base at Lae; the Allied, Port Moresby


@pytest.fixture
def world(witp: WitpRuleset) -> dict[str, Any]:
    """T1-air1-allocation, both carrier forces Located (as test_air_play's battle)."""
    state = witp.initial_state(SCENARIO, {"datapack": NO_GATE})
    state = dict(witp.adjudicate(state, {}, SeededDice(b"n", "g", 1, "T1-open")).state)
    tfs(state, "japanese")["TF2"]["hex"] = "E2320"
    located(state, "japanese", "TF2", "2 CV 2 CA 3 DD 1 AO TOTAL 8")
    located(state, "allied", "TF3", "1 CV 3 CA 2 DD TOTAL 6")
    return state


def _segment(
    state: dict[str, Any], side: str, covers: dict[str, Any], mp: pytest.MonkeyPatch, seed: int = 0
) -> Any:
    mp.setattr(draws, "round_secret", lambda *_a: draws.SecretDice(bytes([seed]) * 4, "test"))
    st = copy.deepcopy(state)
    st[PRIVATE][side][airplay.AIR_PLOT] = {"strikes": {}, "covers": covers}
    slot = next(s for s in clock.schedule(1) if s.time.endswith("/strike"))
    return airplay._Segment(Work.begin(st), slot, SeededDice(b"c", "g", seed, "x"), load_map())


def _flight(cid: str, kind: str, base: str, t: str, n: int, over: str, over_hex: str) -> Any:
    carrier = base.startswith("TF")
    return {  # as plot.py files it (air/strikes.py's CoverFlight)
        "id": cid,
        "kind": kind,
        "base": base,
        "hex": None,
        "carrier": carrier,
        "type": t,
        "n": n,
        "alt": None,
        "over": over,
        "over_hex": over_hex,
        "mp": 18,
        "range": "normal",
    }


def _apat(mp: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every AP launched arrives; each APAT call recorded (APs, mission, DRM)."""
    calls: list[dict[str, Any]] = []

    def spy(_p: Any, n: int, _mp: int, mission: str, *_a: Any, **_k: Any) -> Any:
        drm = _a[2] if len(_a) > 2 else _k.get("drm", 0)
        calls.append({"n": n, "mission": mission, "drm": drm})
        return n, 7, 100

    mp.setattr(availability, "available", spy)
    return calls


def _facts(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


# -- 5.3.6, 8.1.4: carrier-launched cover's carrier coordination (R120) -------------


def test_5_3_6_carrier_cover_launches_what_its_coordination_check_lets_go(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Striking Force's four A6M2 plotted as cover over its own hex: the first
    CC check cannot pass (number 0), the second launches 50%: two fly, and only
    those two are rolled on the APAT."""
    calls = _apat(monkeypatch)
    flight = _flight("C1", "cover", "TF2", "A6M2", 4, "E2320", "E2320")
    seg = _segment(world, "japanese", {"C1": flight}, monkeypatch)
    pack = seg.work.json[PUBLIC]["pack"]
    pack["tables/cc-check-1"]["value"] |= {"base": -999, "minimum": 0}
    pack["tables/cc-check-2"]["value"] |= {"minimum": 50, "maximum": 50}
    flights, events = seg.cover("japanese", "TF2", "E2320")
    (cc,) = _facts(events, "cover-coordination")
    assert cc.witnesses == ("japanese",)
    assert (cc.data["second"] is not None, cc.data["percent"], cc.data["fighters"]) == (
        True,
        50,
        2,
    )
    assert calls == [{"n": 2, "mission": "plotted-cover", "drm": 0}]
    (rolled,) = _facts(events, "cover-availability")
    assert (rolled.data["of"], rolled.data["available"]) == (2, 2)
    assert [f.id for f in flights] == ["C1"]


def test_5_3_6_the_check_is_made_once_with_the_cover_roll(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _apat(monkeypatch)
    flight = _flight("C1", "naval-cover", "TF2", "A6M2", 2, "TF2", "E2320")
    seg = _segment(world, "japanese", {"C1": flight}, monkeypatch)
    _f, first = seg.cover("japanese", "TF2", "E2320")
    _g, again = seg.cover("japanese", "TF2", "E2320")
    assert len(_facts(first, "cover-coordination")) == 1 and again == []


def test_5_3_6_land_based_cover_makes_no_carrier_coordination_check(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _apat(monkeypatch)
    flight = _flight("C1", "cover", "Lae", "A6M2", 2, "E2320", "E2320")
    seg = _segment(world, "japanese", {"C1": flight}, monkeypatch)
    _f, events = seg.cover("japanese", "TF2", "E2320")
    assert _facts(events, "cover-coordination") == []
    assert calls == [{"n": 2, "mission": "plotted-cover", "drm": 0}]


# -- 5.3.4: Army-type fighters on Naval Cover (R121) ---------------------------------


def test_5_3_4_army_drm_is_the_rolls_shortfall_under_the_types_number() -> None:
    assert cover.army_drm(8, 5) == -3
    assert cover.army_drm(8, 8) == 0 and cover.army_drm(8, 12) == 0


def test_5_3_4_army_type_naval_cover_rolls_one_2d6_for_all_its_flights(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two P-39 Naval Cover flights and an F4F-3 one over TF17: one Army-type roll,
    its shortfall under the P-39's number (8, the pack's) on both P-39 rolls; the
    Navy's F4F-3 none; a P-39 on plain Cover CAP none (Naval Cover only)."""
    covers = {
        "A": _flight("A", "naval-cover", "Port Moresby", "P-39", 1, "TF3", "E2324"),
        "B": _flight("B", "naval-cover", "Port Moresby", "P-39", 1, "TF3", "E2324"),
        "N": _flight("N", "naval-cover", "TF3", "F4F-3", 1, "TF3", "E2324"),
        "C": _flight("C", "cover", "Port Moresby", "P-39", 1, "E2324", "E2324"),
    }
    shortfalls = set()
    for seed in range(12):
        calls = _apat(monkeypatch)
        seg = _segment(world, "allied", covers, monkeypatch, seed)
        _f, events = seg.cover("allied", "TF3", "E2324")
        (army,) = _facts(events, "army-naval-cover-roll")
        assert army.witnesses == ("allied",)
        drm = -max(0, 8 - int(army.data["roll"]))
        assert [c["drm"] for c in calls] == [drm, drm, 0, 0]
        shortfalls.add(drm)
    assert 0 in shortfalls and min(shortfalls) < 0  # the roll can fall short, or not


def test_5_3_4_no_army_roll_without_army_type_naval_cover(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _apat(monkeypatch)
    covers = {"N": _flight("N", "naval-cover", "TF3", "F4F-3", 1, "TF3", "E2324")}
    seg = _segment(world, "allied", covers, monkeypatch)
    _f, events = seg.cover("allied", "TF3", "E2324")
    assert _facts(events, "army-naval-cover-roll") == []


# -- 5.3.3: Cover CAP over a hex held solely by the enemy: 2R (R122) ----------------


def test_5_3_3_cover_over_a_solely_enemy_held_hex_is_rolled_2r(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """P-39s from Port Moresby over Lae (a Japanese air base, no Allied one there):
    the non-plotted procedure, 2R; over Port Moresby itself: no shift."""
    calls = _apat(monkeypatch)
    covers = {
        "L": _flight("L", "cover", "Port Moresby", "P-39", 1, LAE, LAE),
        "M": _flight("M", "cover", "Port Moresby", "P-39", 1, MORESBY, MORESBY),
    }
    seg = _segment(world, "allied", covers, monkeypatch)
    _f, at_lae = seg.cover("allied", "TF3", LAE)
    _g, at_home = seg.cover("allied", "TF3", MORESBY)
    assert [c["mission"] for c in calls] == ["emergency-cover", "plotted-cover"]
    (lae,) = _facts(at_lae, "cover-availability")
    assert lae.data["mission"] == "emergency-cover"
    told = [d for d in seg.work.json["disclosures"] if d["fact"]["kind"] == "cover-availability"]
    assert [d["rule"] for d in told] == ["5.3.3", "5.3.3"]
    assert _facts(at_home, "cover-availability")[0].data["mission"] == "plotted-cover"


def test_5_3_3_the_2r_shift_moves_the_apat_two_columns(world: dict[str, Any]) -> None:
    public = public_pack(world[PUBLIC])
    for roll in range(2, 13):
        assert availability.percent(public, 18, "emergency-cover", roll) == availability.percent(
            public, 42, "plotted-cover", roll
        )


def test_5_3_3_a_hex_with_the_owners_base_too_is_not_solely_enemy_held(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Who holds a hex is read from the public map's bases (at the scenario's start),
    never from the enemy's air there: Kavieng, a Japanese base with no Japanese air
    in the scenario, is as enemy-held as Lae; a hex with a base of each side is not."""
    seg = _segment(world, "allied", {}, monkeypatch)
    assert seg.enemy_held("allied", LAE) and not seg.enemy_held("japanese", LAE)
    assert seg.enemy_held("allied", "E1412")  # Kavieng
    assert "Kavieng" not in world[PRIVATE]["japanese"]["air_bases"]
    assert not seg.enemy_held("allied", "E2324")  # open sea: nobody's

    class Base:
        def __init__(self, side: str) -> None:
            self.side = side

        def owner_at(self, _start: str) -> str:
            return self.side

    class Shared:
        def bases_in(self, _h: str) -> tuple[Any, ...]:
            return (Base("japanese"), Base("allied"))

    seg.sea = Shared()
    assert not seg.enemy_held("allied", LAE)


# -- the owner's report ----------------------------------------------------------------


def test_r120_r121_the_cover_lines_are_in_the_owners_strike_report(
    witp: WitpRuleset, world: dict[str, Any]
) -> None:
    """A Japanese strike at TF17 under Yorktown's plotted Naval Cover and Port
    Moresby's P-39 Naval Cover: the Allied block tells the coordination check, the
    Army-type roll and the APAT rolls; the Japanese block none of them."""
    tfs(world, "allied")["TF3"]["hex"] = "E1920"  # within the P-39's range of Moresby
    world[PUBLIC]["located"]["allied:TF3"]["hex"] = "E1920"
    allied = (
        "NAVALCOVER C1 FROM TF3 1xF4F-3 OVER TF3\nNAVALCOVER C2 FROM Port_Moresby 1xP-39 OVER TF3"
    )
    out = play(witp, world, japanese="STRIKE K1 FROM TF2 2xD3A1 TARGET TF3", allied=allied)
    mine = witp.view(out.state, out.events, "allied")
    (block,) = [b for b in mine["strikes"] if "strike on your TF3" in b["title"]]
    notes = "\n".join(block["notes"])
    assert "[8.1.4] cover C1 carrier coordination, TF3" in notes
    assert "[5.3.4] Army-type fighters on Naval Cover: 2D6" in notes
    assert "cover C2 (P-39 over TF3" in notes and ", 2R)" in notes
    theirs = witp.view(out.state, out.events, "japanese")
    assert not any("cover" in n for b in theirs["strikes"] for n in b["notes"])
    assert not [x for x in mine["told_you"] if x["fact"]["kind"] in strikeview_cover()]


def strikeview_cover() -> frozenset[str]:
    from pbem.rulesets.witp import strikeview

    return strikeview.COVER


def test_r120_r122_the_comparison_can_fail_the_owner_reads_its_cover_rolls(
    witp: WitpRuleset,
) -> None:
    """The control of the noninterference property's cover facts (strikeworld's
    SECRET_FACTS): the same strike, the owner told other cover rolls: its report
    changes, the striker's does not."""
    from pbem.rulesets.witp.knowledge import disclose

    from .strikeworld import TIME, opened, report, resolved

    base = opened(witp)
    worlds = []
    for roll in (3, 11):
        st = copy.deepcopy(base)
        fact = {
            "kind": "cover-availability",
            "tf": "TF2",
            "cover": "C1",
            "over": "TF2",
            "type": "A6M2",
            "mission": "plotted-naval-cover",
            "mp": 0,
            "roll": roll,
            "drm": 0,
            "percent": 50,
            "available": 1,
            "of": 2,
        }
        told = [disclose(Told(st), Fact.from_json(fact), ["japanese"], TIME, "5.3.4")]
        after, events = resolved(st, 1)
        worlds.append((after, told + events))
    (a, ea), (b, eb) = worlds
    assert report(witp, a, ea, "japanese") != report(witp, b, eb, "japanese")
    assert report(witp, a, ea, "allied") == report(witp, b, eb, "allied")
    assert "APAT 2D6 3 = 50%" in " ".join(report(witp, a, ea, "japanese")[1].split())


# -- 5.3.3: cover over an enemy airbase intercepts its launches (R123) ---------------

RABAUL = "E1613"
BETTY_STRIKE = "STRIKE K1 FROM Rabaul 2xG4M1 TARGET TF3"
OVER_RABAUL = f"COVER C1 FROM Port_Moresby 1xP-39 OVER {RABAUL}"


def _flown(
    witp: WitpRuleset, state: dict[str, Any], mp: pytest.MonkeyPatch, japanese: str, allied: str
) -> tuple[Any, list[Any]]:
    """The round played, every cover AP over its hex; the strikes that reached TF3."""
    from pbem.rulesets.witp.air import naval_strike

    _apat(mp)
    given: list[Any] = []
    real = naval_strike.resolve_into

    def spy(*a: Any, **k: Any) -> Any:
        given.append(a[1].to_json())  # the strike as it reached the target
        return real(*a, **k)

    mp.setattr(naval_strike, "resolve_into", spy)
    return play(witp, state, japanese=japanese, allied=allied), given


def _bettys(state: dict[str, Any]) -> int:
    return int(state[PRIVATE]["japanese"]["air_bases"]["Rabaul"]["air_points"]["G4M1"])


def test_5_3_3_cover_over_an_enemy_airbase_intercepts_the_strike_launching_there(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Port Moresby's P-39 over Rabaul (held by the Japanese alone), Rabaul's fighter
    away: the cover fights the Bettys as they launch; those it eliminates or aborts
    never reach TF17, the eliminated leave Rabaul; both sides are told the combat."""
    world[PRIVATE]["japanese"]["air_bases"]["Rabaul"]["air_points"]["A6M2"] = 0
    out, given = _flown(witp, world, monkeypatch, BETTY_STRIKE, OVER_RABAUL)
    (fight,) = [e for e in out.events if e.kind == "launch-interception"]
    assert fight.witnesses is None or set(fight.witnesses) == {"allied", "japanese"}
    assert fight.data["stage"] == "launch" and fight.data["base"] == "Rabaul"
    assert fight.data["cap"][0]["type"] == "P-39" and fight.data["steps"]
    (betty,) = fight.data["bombers"]
    stopped = betty["eliminated"] + betty["aborted"]
    arrived = sum(e["n"] for s in given for p in s["parts"] for e in p["elements"])
    assert arrived == 2 - stopped
    later = sum(e.data["eliminated"].get("G4M1", 0) for e in out.events if e.kind == "aa-fire")
    later += sum(
        b["eliminated"] for e in out.events if e.kind == "air-combat" for b in e.data["bombers"]
    )
    assert _bettys(out.state) == 2 - betty["eliminated"] - later


def test_5_3_3_the_bases_cap_fights_the_cover_first_as_a_strike_on_the_base(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rabaul's unplotted A6M2 flies CAP against the P-39 (the bounce rolled
    normally: the cover flies as loose escort), before the cover meets the launch."""
    out, _given = _flown(witp, world, monkeypatch, BETTY_STRIKE, OVER_RABAUL)
    fights = [e.data for e in out.events if e.kind == "launch-interception"]
    assert fights[0]["stage"] == "base CAP"
    assert fights[0]["cap"][0]["type"] == "A6M2" and fights[0]["escorts"][0]["type"] == "P-39"
    assert fights[0]["bounce"] is not None
    lost = fights[0]["escorts"][0]["eliminated"] + fights[0]["escorts"][0]["aborted"]
    assert [f["stage"] for f in fights] == ["base CAP"] + (["launch"] if not lost else [])


def test_5_3_3_a_plotted_escort_flies_no_base_cap_against_the_cover(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    japanese = f"{BETTY_STRIKE}\nESCORT K1 FROM Rabaul 1xA6M2@M CLOSE"
    out, _given = _flown(witp, world, monkeypatch, japanese, OVER_RABAUL)
    fights = [e.data for e in out.events if e.kind == "launch-interception"]
    assert [f["stage"] for f in fights] == ["launch"]
    assert fights[0]["escorts"][0]["type"] == "A6M2"


def test_5_3_3_cover_elsewhere_intercepts_no_launch(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    allied = f"COVER C1 FROM Port_Moresby 1xP-39 OVER {LAE}"
    out, given = _flown(witp, world, monkeypatch, BETTY_STRIKE, allied)
    assert [e for e in out.events if e.kind == "launch-interception"] == []
    assert sum(e["n"] for s in given for p in s["parts"] for e in p["elements"]) == 2


def test_r123_both_sides_read_the_interception_in_the_strike_report(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    world[PRIVATE]["japanese"]["air_bases"]["Rabaul"]["air_points"]["A6M2"] = 0
    out, _given = _flown(witp, world, monkeypatch, BETTY_STRIKE, OVER_RABAUL)
    for side in ("allied", "japanese"):
        view = witp.view(out.state, out.events, side)
        notes = [n for b in view["strikes"] for n in b["notes"]]
        assert any(n.startswith("[5.3.3] over Rabaul, the cover v the launch at M") for n in notes)
    allied = witp.view(out.state, out.events, "allied")
    japanese = witp.view(out.state, out.events, "japanese")
    assert any("APAT" in n for b in allied["strikes"] for n in b["notes"])
    assert not any("APAT" in n for b in japanese["strikes"] for n in b["notes"])


# -- 5.3.4: Naval Cover accompanies its TF into the next Naval Phase (R124) ----------


def _special_at_striking_force(
    witp: WitpRuleset, state: dict[str, Any], mp: pytest.MonkeyPatch, japanese: str
) -> tuple[Any, Any, list[Any]]:
    """The Air Phase (Yorktown's standing special strike filed, the Japanese plot),
    then the Naval Phase where the Striking Force moves into its range: (the Air
    Phase, the Naval Phase, the cover each strike met)."""
    from pbem.rulesets.witp.air import naval_strike

    _apat(mp)
    given: list[Any] = []
    real = naval_strike.resolve_into

    def spy(*a: Any, **k: Any) -> Any:
        given.append((k.get("cover"), dict(k.get("committed") or {})))
        return real(*a, **k)

    mp.setattr(naval_strike, "resolve_into", spy)
    air = play(witp, state, allied="SPECIAL X1 FROM TF3 3xSBD-3 AGAINST CV", japanese=japanese)
    naval = play(witp, air.state, japanese="TF2 SPEED 2\nTF2 MOVE E2321 EV 4", allied="PASS")
    return air, naval, given


def test_5_3_4_naval_cover_accompanies_its_tf_into_the_next_naval_phase(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shoho's fighter plotted as Naval Cover over the Striking Force: no strike in
    the Air Phase, so it is first rolled (carrier coordination, APAT) when
    Yorktown's special strike meets the TF in the Naval Phase, and flies CAP there
    beside the TF's own fighters; the Naval Phase over, it is home."""
    air, naval, given = _special_at_striking_force(
        witp, world, monkeypatch, "NAVALCOVER C1 FROM TF1 1xA6M2 OVER TF2"
    )
    kept = air.state[PRIVATE]["japanese"][airplay.ALOFT]
    assert [(f["id"], f["up"]) for f in kept["TF2"]] == [("C1", None)]
    assert kinds_of(naval, "special-strike") and given == [([Covering("A6M2", 1)], {})]
    (rolled,) = _facts(list(naval.events), "cover-availability")
    assert rolled.witnesses == ("japanese",) and rolled.data["tf"] == "TF2"
    assert _facts(list(naval.events), "cover-coordination")
    assert airplay.ALOFT not in naval.state[PRIVATE]["japanese"]


def test_5_3_4_a_tfs_own_naval_cover_is_no_cap_twice(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Striking Force's own A6M2 plotted as Naval Cover over it: in the Naval
    Phase they fly as the cover, not again as the TF's own CAP (committed)."""
    _air, _naval, given = _special_at_striking_force(
        witp, world, monkeypatch, "NAVALCOVER C1 FROM TF2 2xA6M2 OVER TF2"
    )
    ((cover_given, committed),) = given
    assert cover_given == [Covering("A6M2", 2, elite=2)]  # 7.11: their elite
    assert committed == {"A6M2": 2}


def test_5_3_4_without_naval_cover_the_special_strike_meets_none(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    air, _naval, given = _special_at_striking_force(witp, world, monkeypatch, "PASS")
    assert airplay.ALOFT not in air.state[PRIVATE]["japanese"]
    assert given == [([], {})]


def test_9_2_cover_already_over_the_tf_rolls_no_more_and_keeps_its_losses(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """R124: a flight rolled in the Air Phase keeps its APs over the TF (no new
    roll, 9.2); one eliminated or aborted entirely is not kept."""
    calls = _apat(monkeypatch)
    covers = {
        "A": _flight("A", "naval-cover", "TF2", "A6M2", 2, "TF2", "E2320"),
        "B": _flight("B", "naval-cover", "Lae", "A6M2", 2, "TF2", "E2320"),
        "C": _flight("C", "cover", "Lae", "A6M2", 1, "E2320", "E2320"),
    }
    seg = _segment(world, "japanese", covers, monkeypatch)
    seg.over.update({("japanese", "A"): 1, ("japanese", "B"): 0, ("japanese", "C"): 1})
    seg.keep_naval_cover()
    kept = seg.work.json[PRIVATE]["japanese"][airplay.ALOFT]
    assert [(f["id"], f["up"]) for f in kept["TF2"]] == [("A", 1)]
    again = airplay._Segment(seg.work, seg.slot, seg.dice)
    flights, events = again.aloft("japanese", "TF2", "E2321")
    assert [f.id for f in flights] == ["A"] and events == [] and calls == []
    again.aloft_losses("japanese", flights, {"A6M2": [0, 1, 0]})
    kept = seg.work.json[PRIVATE]["japanese"][airplay.ALOFT]
    assert kept["TF2"][0]["up"] == 0


def test_5_3_4_naval_cover_turns_back_at_its_extended_range(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Port Moresby's P-39 (extended range 60 MP) over TF17: it follows the TF to
    54 MP from its base, not to 66."""
    _apat(monkeypatch)
    covers = {"P": _flight("P", "naval-cover", "Port Moresby", "P-39", 1, "TF3", "E1920")}
    seg = _segment(world, "allied", covers, monkeypatch)
    seg.over[("allied", "P")] = 1
    seg.keep_naval_cover()
    assert seg.aloft("allied", "TF3", "E1920")[0]  # 9 hexes: 54 MP
    assert seg.aloft("allied", "TF3", "E2120")[0] == []  # 11 hexes: 66 MP
    assert seg.aloft("allied", "TF3", "E1920")[0] == []  # home for the phase


def kinds_of(result: Any, kind: str) -> list[Any]:
    return [e for e in result.events if e.kind == kind]


# -- 5.3.5: emergency (non-plotted) cover (R122) ---------------------------------------


def test_5_3_5_emergency_lines_are_judged_as_cover_and_refused_with_the_rule(
    witp: WitpRuleset, world: dict[str, Any]
) -> None:
    tfs(world, "allied")["TF3"]["hex"] = "E1920"  # within the P-39's range
    text = (
        "EMERGENCY E1 FROM Port_Moresby 1xP-39 OVER TF3\n"
        "EMERGENCY E2 FROM TF3 1xF4F-3 OVER TF3\n"
        "EMERGENCY E3 FROM TF3 1xF4F-3 OVER E2320\n"
        "EMERGENCY E4 FROM Port_Moresby 1xP-39 OVER E1018\n"
        "EMERGENCY E5 FROM TF3 1xSBD-3 OVER TF1\n"
        "EMERGENCY E6 FROM TF3 1xF4F-3"
    )
    v = witp.validate(world, "allied", text)
    assert v.accepted == (
        "EMERGENCY E1 FROM Port_Moresby 1xP-39 OVER TF3",
        "EMERGENCY E3 FROM TF3 1xF4F-3 OVER E2320",
    )
    refused = {e.line: (e.message, e.rule) for e in v.errors}
    assert refused[2] == ("TF3's fighters fly CAP over it unplotted, not emergency cover", "5.3")
    assert refused[4][1] == "5.1.1"  # Port Moresby's one P-39 is already plotted
    assert refused[5][1] == "5.3"  # no fighter
    assert set(refused) == {2, 4, 5, 6}
    from pbem.rulesets.witp.air import plot
    from pbem.rulesets.witp.known import Knowledge

    p, _errors = plot.judge(Knowledge.of(world, "allied"), "allied", text)
    assert p.cover_flights["E1"].kind == "emergency-naval-cover"
    assert p.cover_flights["E3"].kind == "emergency-cover"


def test_5_3_5_emergency_shifts_2r_over_a_hex_and_4r_over_a_tf_from_0(
    world: dict[str, Any],
) -> None:
    """9.0's example: emergency Naval Cover at 24 MP on the 61+ column without a
    DRM, at 25 MP with -1; from a carrier over a TF in its hex, 4R from column 0."""
    public = public_pack(world[PUBLIC])
    for roll in range(2, 13):
        p = availability.percent
        assert p(public, 0, "emergency-naval-cover", roll) == p(public, 40, "plotted-cover", roll)
        assert p(public, 0, "emergency-cover", roll) == p(public, 20, "plotted-cover", roll)
        assert p(public, 24, "emergency-naval-cover", roll) == p(public, 61, "plotted-cover", roll)
        down = max(2, roll - 1)
        assert p(public, 25, "emergency-naval-cover", roll) == p(public, 61, "plotted-cover", down)


def test_5_3_6_emergency_cover_rolls_at_each_strike_as_if_the_first(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two P-39s on emergency Naval Cover over TF17: each strike a new APAT roll
    (4R), of the APs not yet eliminated nor aborted."""
    calls = _apat(monkeypatch)
    flight = _flight("E1", "emergency-naval-cover", "Port Moresby", "P-39", 2, "TF3", "E2324")
    seg = _segment(world, "allied", {"E1": flight}, monkeypatch)
    seg.work.json[PRIVATE]["allied"]["air_bases"]["Port Moresby"]["air_points"]["P-39"] = 2
    flights, first = seg.cover("allied", "TF3", "E2324")
    seg.cover_losses("allied", flights, {"P-39": [0, 1]})
    _g, second = seg.cover("allied", "TF3", "E2324")
    rolls = [e.data for e in _facts(first + second, "cover-availability")]
    assert [(r["mission"], r["of"]) for r in rolls] == [
        ("emergency-naval-cover", 2),
        ("emergency-naval-cover", 1),
    ]
    assert [c["mission"] for c in calls] == ["emergency-naval-cover"] * 2
    assert [d["rule"] for d in seg.work.json["disclosures"][-2:]] == ["5.3.5", "5.3.5"]


def test_5_3_3_no_emergency_cover_over_a_hex_the_enemy_holds_alone(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _apat(monkeypatch)
    flight = _flight("E1", "emergency-cover", "Port Moresby", "P-39", 1, LAE, LAE)
    seg = _segment(world, "allied", {"E1": flight}, monkeypatch)
    flights, events = seg.cover("allied", "TF3", LAE)
    assert flights == [] and calls == []
    (told,) = _facts(events, "cover-not-flown")
    assert told.witnesses == ("allied",) and told.data["cover"] == "E1"


def test_5_3_5_emergency_naval_cover_flies_only_over_the_tf_struck(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Japanese strike at TF17: P-39 emergency Naval Cover over TF17 flies CAP
    there (the owner reads it, 4R); one over TF4 (not struck) is never rolled."""
    tfs(world, "allied")["TF3"]["hex"] = "E1920"
    world[PUBLIC]["located"]["allied:TF3"]["hex"] = "E1920"
    tfs(world, "allied")["TF4"]["hex"] = "E1720"
    world[PRIVATE]["allied"]["air_bases"]["Port Moresby"]["air_points"]["P-39"] = 2
    allied = (
        "EMERGENCY E1 FROM Port_Moresby 1xP-39 OVER TF3\n"
        "EMERGENCY E2 FROM Port_Moresby 1xP-39 OVER TF4"
    )
    out, _given = _flown(witp, world, monkeypatch, "STRIKE K1 FROM TF2 2xD3A1 TARGET TF3", allied)
    rolled = [e.data for e in out.events if e.kind == "cover-availability"]
    assert [(r["cover"], r["mission"]) for r in rolled] == [("E1", "emergency-naval-cover")]
    view = witp.view(out.state, out.events, "allied")
    notes = [n for b in view["strikes"] for n in b["notes"]]
    assert any("cover E1 (P-39 over TF3" in n and "emergency, 4R" in n for n in notes)


def test_r123_a_strike_stopped_whole_at_launch_has_a_block_of_its_own(
    witp: WitpRuleset, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every Betty eliminated or aborted by the cover over Rabaul (scripted): the
    strike flies no further, its side is told why, and both sides read the combat
    in a block of its own, not in another strike's."""
    from pbem.rulesets.witp.air import intercept

    world[PRIVATE]["japanese"]["air_bases"]["Rabaul"]["air_points"]["A6M2"] = 0
    real = intercept.against_launch

    def stopped(*a: Any, **k: Any) -> Any:
        part, cover_lost, part_lost, fights = real(*a, **k)
        return replace(part, elements=(), escorts=()), cover_lost, part_lost, fights

    monkeypatch.setattr(intercept, "against_launch", stopped)
    out, given = _flown(witp, world, monkeypatch, BETTY_STRIKE, OVER_RABAUL)
    assert given == []
    (why,) = [e.data for e in out.events if e.kind == "strike-not-flown"]
    assert why["strike"] == "K1" and "cover" in why["why"]
    for side in ("allied", "japanese"):
        (block,) = witp.view(out.state, out.events, side)["strikes"]
        assert block["title"] == "T1/air1/strike: a strike from Rabaul stopped at launch"
        assert any("the cover v the launch" in n for n in block["notes"])


def test_r110_r120_r121_cover_rolls_leave_the_open_dice_alone(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cover's rolls (its carrier coordination, the Army-type 2D6, the APAT) are told
    its owner alone, so they come from the moderator's stream: the open dice the enemy
    reads later are the same with a secret cover plot and without one."""
    covers = {
        "A": _flight("A", "naval-cover", "Port Moresby", "P-39", 1, "TF3", "E2324"),
        "N": _flight("N", "naval-cover", "TF3", "F4F-3", 1, "TF3", "E2324"),
    }
    plotted = _segment(world, "allied", covers, monkeypatch)
    _f, events = plotted.cover("allied", "TF3", "E2324")
    assert _facts(events, "cover-availability")  # the cover did roll
    bare = _segment(world, "allied", {}, monkeypatch)
    bare.cover("allied", "TF3", "E2324")
    assert plotted.dice.rolls == bare.dice.rolls
