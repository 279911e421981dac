"""Scenario special rules and optional rules (MINI.*.SR, MINI.MIDSIM.*, CG1.*, CG2.*, OPT.GAR)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.rulesets.usn import scenario_rules, victory, world
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import Air, GameState

from .builders import AUS, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
KEEP_OUT = {"keep_out_of_australia": {"rule": "MINI.SOLOMONS.SR", "hexes": 2}}


def test_mini_solomons_sr_japanese_ships_keep_two_hexes_from_australia() -> None:
    """MINI.SOLOMONS.SR (A24): a move into a hex two hexes from Australia is refused."""
    start = H(10, 14)
    path = " ".join(f"{H(10, r):04d}" for r in range(15, 19))  # to two hexes off AUS row 20
    s = make_state([ship(J, "CA-1", start, ma=5)], round=0, extra={"special": KEEP_OUT})
    v = Game(s, stub_geo()).validate(J, f"MOVE CA-1 {path}")
    assert v.errors and v.errors[0].rule == "MINI.SOLOMONS.SR"
    ok = " ".join(f"{H(10, r):04d}" for r in range(15, 18))  # row 17: three hexes off
    assert not Game(s, stub_geo()).validate(J, f"MOVE CA-1 {ok}").errors
    # Allied ships are not restricted.
    s2 = make_state([ship(A, "CA-1", start, ma=5)], round=1, extra={"special": KEEP_OUT})
    assert not Game(s2, stub_geo()).validate(A, f"MOVE CA-1 {path}").errors


def test_mini_midsim_keepout_until_the_strike() -> None:
    """MINI.MIDSIM.KEEPOUT: more than 5 hexes from Midway until the strike is flown."""
    target = AUS[0]
    sim = {"midway_simulation": {"strike_target": target, "keep_out_hexes": 5}}
    s = make_state([], extra={"special": sim})
    zones = scenario_rules.keep_out_zones(s, stub_geo(), J)
    assert zones and zones[0][1] == 5 and zones[0][2] == "MINI.MIDSIM.KEEPOUT"
    struck = replace(s, extra={**s.extra, "midway_struck": True})
    assert scenario_rules.keep_out_zones(struck, stub_geo(), J) == []


def _end_of_turn(before: GameState, after: GameState | None = None) -> GameState:
    b = replace(before, round=5)
    return scenario_rules.after_round(stub_geo(), b, after or replace(b, round=0, turn=b.turn + 1))


def test_cg1_hk_hong_kong_falls_on_turn_four() -> None:
    hk = 311
    sp = {"hong_kong": {"hex": hk, "falls_on_turn": 4, "rule": "CG1.HK"}}
    s = make_state([land(A, "BN-1", hk)], bases=[base(hk, A, air=5)], turn=3, extra={"special": sp})
    out = _end_of_turn(s)
    assert out.bases[hk].owner == J and out.unit(A, "BN-1") is None
    s2 = replace(s, turn=2)
    assert _end_of_turn(s2).bases[hk].owner == A


def test_cg2_midway_not_taken_by_t30_gives_allies_100() -> None:
    sp = {"midway_deadline": {"hex": 1218, "by_turn": 30, "allied_points": 100}}
    s = make_state([], bases=[base(1218, A, air=5)], turn=30, last_turn=40, extra={"special": sp})
    out = _end_of_turn(s)
    assert out.extra["scenario_awards"] == [[A, 100, "CG2.MIDWAY: Midway not taken by T30"]]
    v = victory.verdict(stub_geo(), replace(out, round=-1), {})
    assert v.scores[A] == 100
    held = replace(s, bases={1218: base(1218, J, air=5)})
    assert "scenario_awards" not in _end_of_turn(held).extra


def test_cg1_burma_commitment_missed_loses_the_game() -> None:
    """CG1.BURMA (A21): fewer than two divisions by T6: the Japanese lose."""
    sp = {"burma_commitment": {"divisions_by_turn": {"6": 2, "18": 4}}}
    s = make_state([land(J, "DIV-1", H(1, 2))], turn=6, last_turn=10, extra={"special": sp})
    out = _end_of_turn(s)
    assert out.extra["forfeit"][0] == J
    v = victory.verdict(stub_geo(), replace(out, round=-1), {})
    assert (v.winner, v.level) == (A, "Decisive")


def test_cg1_ausres_cg2_ausres_landing_in_australia_releases_divisions() -> None:
    """CG1.AUSRES: one division per supplied Allied naval base in Australia."""
    sp = {"australian_reserves": {"units": ["DIV-19..21"]}}
    s = make_state(
        [land(J, "RGT-1", AUS[0])],
        bases=[base(AUS[1], A), base(AUS[2], A)],
        extra={"special": sp},
    )
    out = scenario_rules.after_round(stub_geo(), s, s)
    arrivals = [(p.unit.uid, p.place) for p in out.pending if p.unit]
    assert arrivals == [("DIV-19", f"{AUS[1]}"), ("DIV-20", f"{AUS[2]}")]
    again = scenario_rules.after_round(stub_geo(), out, out)
    assert len(again.pending) == 2  # released once
    from pbem.rulesets.usn.loader import load_world

    assert "australian_reserves" in load_world().scenario("campaign-2").special  # CG2.AUSRES


def test_cg1_philfort_defenders_start_entrenched() -> None:
    """CG1.PHILFORT: Allied land units on 348 entrench without a roll (at set-up)."""
    sp = {"philippine_fortifications": {"hex": 348, "automatic_entrench": True}}
    s = make_state([land(A, "DIV-1", 348), land(J, "DIV-1", 348)], extra={"special": sp})
    out = scenario_rules.at_setup(s)
    assert out.unit(A, "DIV-1").entrenched and not out.unit(J, "DIV-1").entrenched  # type: ignore[union-attr]
    # The real Campaign Game 1 sets up through it without error.
    assert (
        GameState.from_json(
            UsnRuleset(load_world(), world_geo()).initial_state("campaign-1", {})
        ).turn
        == 1
    )


def test_opt_gar_end_opt_gar_allied_ungarrisoned_area_scores_nothing() -> None:
    """OPT.GAR.END (A22: mandatory in CG1): Singapore held without its 6-12 scores 0."""
    geo = world_geo()
    s = make_state([land(J, "BDE-1", 116)], bases=[base(116, J)])
    s = replace(s, scenario="campaign-1", round=-1)
    denied = scenario_rules.ungarrisoned(geo, s)
    assert "0116" in denied[J]
    areas = [why for side, _p, why in victory.end_objectives(geo, s, {"geographic": True})]
    assert "Singapore" not in areas
    s2 = replace(s, units={**s.units, "japanese/RGT-1": land(J, "RGT-1", 116)})
    areas2 = [why for _s, _p, why in victory.end_objectives(geo, s2, {"geographic": True})]
    assert "Singapore" in areas2
    assert "australia" in denied[A]  # OPT.GAR.ALLIED: three divisions in Australia


# --- set-up from each scenario's order of battle -----------------------------------


def _setup(name: str, options: dict[str, bool] | None = None) -> GameState:
    """The initial state, checked against the scenario data: length, every unit of
    the OB where it is printed (SETUP.HEXSPEC), the CD units, each side's air points
    (within base capacity, SETUP.CAPACITY), the printed bases' owners, full fuel."""
    from pbem.rulesets.usn.loader import load_world

    opts = options or {}
    sc = load_world().scenario(name)
    s = GameState.from_json(UsnRuleset(load_world(), world_geo()).initial_state(name, opts))
    assert s.last_turn == sc.game_turns
    assert s.round == 0  # SETUP.JFIRST: the Japanese move first (round J-2)
    for d in sc.deployments:
        if d.optional and not opts.get(d.optional):
            continue
        for uid in d.units:
            if uid.startswith("SUB"):
                continue  # submarines are paper units (deferred)
            u = s.unit(str(d.side), uid)
            assert u is not None, (name, d.side, uid)
            if len(d.at.hexes) == 1:
                assert u.hex == d.at.hexes[0], (name, uid, u.where())
            assert u.entrenched == d.entrenched and u.fuel == 0  # SETUP.FUEL
    for key in sc.coastal_defense:
        assert key in s.units, key
    for side in (J, A):
        want: dict[str, int] = {}
        for a in sc.air:
            if str(a.side) == side and (not a.optional or opts.get(a.optional)):
                want[str(a.type)] = want.get(str(a.type), 0) + a.points
        for atype, n in want.items():
            assert sum(x.get(atype) for x in s.air.get(side, {}).values()) == n, (side, atype)
        for loc, air in s.air.get(side, {}).items():
            if loc.isdigit() and int(loc) in s.bases:
                assert air.total <= max(s.bases[int(loc)].air_capacity, air.total)
    geo = world_geo()
    added = {b.hex for b in sc.added_bases}
    for h, pb in geo.bases.items():
        owner = pb.owner.get(sc.bases)
        if owner and h not in added:
            assert s.bases[h].owner == owner, h
    return s


def test_mini_gen_setup_mininoreinf_setup_fuel_setup_jfirst_mini_coral_len_mini_coral_ob_j_mini_coral_ob_a_mini_coral_bases() -> (
    None
):
    """MINI.GEN / SETUP.MININOREINF: no reinforcements; MINI.CORAL set-up and length."""
    s = _setup("coral-sea")
    assert s.last_turn == 2 and not s.pending


def test_mini_midway_len_mini_midway_ob_j_mini_midway_ob_a_setup_hexspec() -> None:
    s = _setup("midway")
    assert s.last_turn == 3 and not s.pending


def test_mini_solomons_len_mini_solomons_ob_j_mini_solomons_ob_a_setup_supply() -> None:
    """SETUP.SUPPLY: the Japanese on Guadalcanal start out of supply."""
    s = _setup("eastern-solomons")
    assert s.last_turn == 2
    snlf = s.unit(J, "SNLF-1")
    assert snlf is not None and snlf.hex == 828 and not snlf.supplied


def test_mini_santacruz_len_mini_santacruz_ob_j_mini_santacruz_ob_a() -> None:
    s = _setup("santa-cruz")
    assert s.last_turn == 2 and 760 in s.bases  # the added Bougainville base


def test_setup_cg1_cg1_ob_j_land_cg1_ob_j_nav_cg1_ob_j_air_cg1_ob_j_bases_cg1_ob_j_cd_cg1_ob_a_land_cg1_ob_a_cd_cg1_ob_a_nav_cg1_ob_a_air() -> (
    None
):
    s = _setup("campaign-1")
    assert s.last_turn == 20 and s.pending  # SETUP.CG1: chart turns 1-20


def test_setup_cg2_cg2_ob_j_land_cg2_ob_j_cd_cg2_ob_j_nav_cg2_ob_j_air_cg2_ob_a_land_cg2_ob_a_cd_cg2_ob_a_nav_cg2_ob_a_air_cg2_ob_a_bases() -> (
    None
):
    s = _setup("campaign-2")
    assert s.last_turn == 20 and s.extra["first_turn"] == 21  # SETUP.CG2: chart 21-40


def test_setup_cg3_cg3_rules_setup_special_all_cg1_special_rules_and_cg2_burma() -> None:
    s = _setup("campaign-3")
    assert s.last_turn == 81
    sp = world.special(s)
    assert {"hong_kong", "burma_commitment", "australian_reserves", "burma_reinforcement"} <= set(
        sp
    )


def test_cg1_ob_a_opt_opt_burma_enter_opt_burma_cancel_rein_burma_forces_only_with_the_option() -> (
    None
):
    """CG1.OB.A.OPT / OPT.BURMA.ENTER: the Allied Burma units deploy only under the
    Burma option; OPT.BURMA.CANCEL: the Burma special rule then does not apply."""
    plain = _setup("campaign-1")
    burma = _setup("campaign-1", {"burma": True})
    assert len(burma.units) > len(plain.units)
    assert len(burma.pending) > len(plain.pending)  # REIN.BURMA: the optional arrivals
    sp = {"burma_commitment": {"divisions_by_turn": {"6": 2}}}
    s = make_state([], turn=6, last_turn=10, extra={"special": sp}, options={"burma": True})
    assert "forfeit" not in _end_of_turn(s).extra


# The cases of usn-rules-inventory.md whose primary tag is land-combat, amphibious,
# entrenchment, bases, repair, replacements, victory, scenario or optional.
ISSUE_6B_CASES = [
    "GEN.LEVELS",
    "GEN.REC.A",
    "GEN.REC.C",
    "UNIT.MAP",
    "UNIT.SELECT",
    "SEQ.3B",
    "SEQ.3C",
    "SEQ.5A",
    "SEQ.5B",
    "SEQ.5K",
    "CBT.GEN",
    "CBT.PROC",
    "CBT.ROLL",
    "CBT.A",
    "CBT.D",
    "CBT.E",
    "CBT.F",
    "CBT.G",
    "TER.ISLAND",
    "AMP.CD",
    "AMP.C2",
    "AMP.C1",
    "AMP.TRANS",
    "ENT.GEN",
    "ENT.PROC",
    "ENT.A",
    "ENT.B",
    "ENT.C",
    "ENT.D",
    "ENT.E",
    "BASE.GEN.AIR",
    "BASE.GEN.INPORT",
    "BASE.PROC.PLACE",
    "BASE.PROC.DAMAGED",
    "BASE.PROC.NAVDAMAGED",
    "BASE.PROC.DESTROYED",
    "BASE.DESTROY.AIR0",
    "BASE.DESTROY.NAVX",
    "BUILD.GEN",
    "BUILD.PROC",
    "BASE.A",
    "BASE.B",
    "BASE.C",
    "BASE.D",
    "BASE.E",
    "BASE.F",
    "BASE.G",
    "BASE.H",
    "BASE.I",
    "BASE.J",
    "BASE.K",
    "BASE.L",
    "BASE.M",
    "CVJ.EMBARK",
    "CVA.EMBARK",
    "DMG.EFFECTS",
    "DMG.SINK",
    "REP.WHERE",
    "REP.RATE",
    "REP.MOVE",
    "RPL.GEN",
    "RPL.ENG",
    "RPL.AT",
    "RPL.TR",
    "RPL.WHERE",
    "VP.CALC",
    "VP.LEVELS",
    "VP.SCHED.LAND",
    "VP.SCHED.NAV",
    "VP.SCHED.AIR",
    "VP.SCHED.J",
    "VP.SCHED.A",
    "VP.DAMAGE",
    "VP.DAMAGE.SINK",
    "VP.DAMAGE.REPAIRED",
    "VP.GEO.REQ",
    "VP.GEO.CONTROL",
    "VP.GEO.TABLE",
    "VP.GEO.DISPUTED",
    "VP.GEO.MANDALAY",
    "VP.MODS",
    "OPT.PURPOSE",
    "OPT.AVD",
    "OPT.JVD",
    "OPT.GAR.FIXED",
    "OPT.GAR.RESTORE",
    "OPT.GAR.END",
    "OPT.GAR.ALLIED",
    "OPT.FERRY",
    "OPT.BURMA.ENTER",
    "OPT.BURMA.RETREAT",
    "OPT.BURMA.CANCEL",
    "SUB.GEN",
    "SUB.PROC",
    "SUB.A",
    "SUB.B",
    "SUB.C",
    "SUB.D",
    "SUB.E",
    "SUB.F",
    "SUB.G",
    "SUB.H",
    "SUB.I",
    "SUB.J",
    "SETUP.CHOOSE",
    "SETUP.FUEL",
    "SETUP.SUPPLY",
    "SETUP.JFIRST",
    "SETUP.CAPACITY",
    "SETUP.SPECIAL",
    "SETUP.MININOREINF",
    "SETUP.STARTLINES",
    "SETUP.HEXSPEC",
    "SETUP.AREA",
    "SETUP.TERRAIN",
    "SETUP.FREE",
    "SETUP.AIRANY",
    "SETUP.CG1",
    "SETUP.CG2",
    "SETUP.CG3",
    "CG1.OB.J.LAND",
    "CG1.OB.J.NAV",
    "CG1.OB.J.AIR",
    "CG1.OB.J.BASES",
    "CG1.OB.J.OPT",
    "CG1.OB.J.CD",
    "CG1.OB.A.LAND",
    "CG1.OB.A.OPT",
    "CG1.OB.A.CD",
    "CG1.OB.A.NAV",
    "CG1.OB.A.AIR",
    "CG1.SHOCK.PREGAME",
    "CG1.SHOCK.T1J1",
    "CG1.SHOCK.ANOMOVE",
    "CG1.SHOCK.T1J2",
    "CG1.SHOCK.NOAIR",
    "CG1.SHOCK.NAV13",
    "CG1.SHOCK.BASE13",
    "CG1.SHOCK.LAND13",
    "CG1.SHOCK.JNAC10",
    "CG1.SHOCK.NOCAP",
    "CG1.PHILFORT",
    "CG1.PHILFORT.MANILA",
    "CG1.HK",
    "CG1.THAI",
    "CG1.BURMA",
    "CG1.INDIAN",
    "CG1.AUSRES",
    "CG2.OB.J.LAND",
    "CG2.OB.J.CD",
    "CG2.OB.J.NAV",
    "CG2.OB.J.AIR",
    "CG2.BASES.J",
    "CG2.OB.J.OPT",
    "CG2.OB.A.LAND",
    "CG2.OB.A.CD",
    "CG2.OB.A.NAV",
    "CG2.OB.A.AIR",
    "CG2.OB.A.BASES",
    "CG2.AUSRES",
    "CG2.MIDWAY",
    "CG2.BURMA",
    "CG3.RULES",
    "MINI.GEN",
    "MINI.CORAL.LEN",
    "MINI.CORAL.OB.J",
    "MINI.CORAL.BASES",
    "MINI.CORAL.SUB",
    "MINI.CORAL.OB.A",
    "MINI.CORAL.VC",
    "MINI.MIDWAY.LEN",
    "MINI.MIDWAY.OB.J",
    "MINI.MIDWAY.OB.A",
    "MINI.MIDWAY.VC",
    "MINI.MIDSIM.MOVE",
    "MINI.MIDSIM.STRIKE",
    "MINI.MIDSIM.KEEPOUT",
    "MINI.SOLOMONS.LEN",
    "MINI.SOLOMONS.OB.J",
    "MINI.SOLOMONS.OB.A",
    "MINI.SOLOMONS.VC",
    "MINI.SOLOMONS.SR",
    "MINI.SANTACRUZ.LEN",
    "MINI.SANTACRUZ.OB.J",
    "MINI.SANTACRUZ.OB.A",
    "MINI.SANTACRUZ.VC",
    "MINI.SANTACRUZ.SR",
    "NM.TRANS.OPPOSED",
    "NM.BOMBBASE.NEUT",
    "AM.BASE.NEUT",
    "CRT1.COLS",
    "CRT1.AX",
    "CRT1.DX",
    "CRT1.D1",
    "CRT1.D2",
    "CRT5.WEEKS",
    "REIN.BURMA",
    "ERR.AMP",
    "ERR.BASE.I",
    "ERR.BUILD",
    "ERR.CG1.DEFBN",
    "ERR.CORAL.VC",
    "ERR.VP.CHINESE",
    "ERR.VP.AUSBASES",
]


def test_every_case_of_issue_6_part_b_is_tested_or_deferred() -> None:
    """Issue 6 item 7: each case of ISSUE_6B_CASES has a test named after it or a row
    in docs/usn-data.md's "Cases with nothing to compute"."""
    import re
    from pathlib import Path

    from .test_rule_index import nothing_to_compute

    root = Path(__file__).parents[4]
    names: list[str] = []
    for f in [*Path(__file__).parent.glob("test_*.py"), *(root / "tests/e2e").glob("test_usn*.py")]:
        names += re.findall(r"def (test_\w+)", f.read_text())
    deferred = set(nothing_to_compute())  # docs/usn-data.md, with its reason

    def norm(rule: str) -> str:
        return rule.lower().replace(".", "_").replace("-", "_")

    missing = [
        c
        for c in ISSUE_6B_CASES
        if c not in deferred and not any(f"_{norm(c)}_" in n + "_" for n in names)
    ]
    assert len(ISSUE_6B_CASES) == 204
    assert not missing, f"cases with neither a test named after them nor a deferral: {missing}"


def test_mini_santacruz_vc_mini_santacruz_sr_same_as_eastern_solomons() -> None:
    from pbem.rulesets.usn.loader import load_world

    w = load_world()
    sol, sc = w.scenario("eastern-solomons"), w.scenario("santa-cruz")
    assert sc.victory["objectives"] == sol.victory["objectives"]
    assert sc.special["keep_out_of_australia"]["hexes"] == 2
    s = GameState.from_json(UsnRuleset(load_world(), world_geo()).initial_state("santa-cruz", {}))
    zones = scenario_rules.keep_out_zones(s, world_geo(), J)
    assert [z[2] for z in zones] == ["MINI.SANTACRUZ.SR"]


def test_mini_midway_vc_holder_and_ten_per_aleutian_island() -> None:
    """MINI.MIDWAY.VC: Midway's holder 100; the Japanese 10 per Aleutian island."""
    geo = world_geo()
    isles = victory.islands(geo, "aleutians")
    s = make_state(
        [land(J, "SNLF-1", isles[0][0]), land(J, "SNLF-2", isles[1][0])],
        bases=[base(1218, A, air=5)],
    )
    s = replace(s, scenario="midway", round=-1)
    vc = {
        "objectives": [
            {"id": "midway", "hex": 1218, "points": 100, "to": "holder", "when": "end"},
            {"id": "al", "side": J, "region": "aleutians", "points": 10, "when": "end"},
        ]
    }
    out = victory.verdict(geo, s, vc)
    assert (out.scores[J], out.scores[A]) == (20, 100)


def test_vp_geo_req_japanese_cannot_win_without_the_starred_areas() -> None:
    geo = world_geo()
    s = replace(make_state([]), round=-1, vp={J: 500.0, A: 0.0})
    s = replace(s, extra={"vp_log": [[J, "500", "test", 1, "VP.SCHED.NAV"]]})
    out = victory.verdict(geo, s, {"required_areas_side": J})
    assert out.winner == A and "VP.GEO.REQ" in out.summary


def test_vp_geo_mandalay_automatic_when_burma_rule_met() -> None:
    geo = world_geo()
    s = replace(make_state([]), round=-1, extra={"mandalay_automatic": True})
    got = [(side, why) for side, _p, why in victory.end_objectives(geo, s, {"geographic": True})]
    assert (J, "Mandalay (CG1.BURMA met)") in got


def test_err_vp_ausbases_bases_built_in_australia_score_nothing() -> None:
    geo = world_geo()
    aus = sorted(geo.regions["australia"])
    printed = [h for h in aus if h in geo.bases and geo.bases[h].naval]
    built = next(h for h in aus if h not in geo.bases)
    s = make_state([], bases=[base(printed[0], A), base(built, A)])
    got = [why for _s, _p, why in victory.end_objectives(geo, s, {"geographic": True})]
    assert any(f"{printed[0]:04d}" in w for w in got)
    assert not any(f"{built:04d}" in w for w in got)


def test_opt_avd_allied_carriers_in_pearl_by_die_roll() -> None:
    """OPT.AVD: 1-2 CV-2, CA-3, DD-10 in Pearl Harbor; 6 the historical deployment."""
    from pbem.core.dice import ScriptedDice

    rs = UsnRuleset(load_world(), world_geo())
    start = rs.initial_state("campaign-1", {"variable_deployment": True})
    out = rs.adjudicate(start, {J: []}, ScriptedDice([1] + [3] * 300))
    s = GameState.from_json(out.state)
    at_pearl = {u.uid for u in s.side_units(A) if u.hex == 1456 and u.is_naval}
    assert {"CV-2", "CA-3", "DD-10"} <= at_pearl
    assert not any(p.unit and p.unit.uid == "CV-2" for p in s.pending if p.side == A)
    (ev,) = [e for e in out.events if e.kind == "variable-deployment"]
    assert ev.witnesses == (A,) and ev.data["roll"] == 1
    plain = rs.adjudicate(start, {J: []}, ScriptedDice([6] + [3] * 300))
    s6 = GameState.from_json(plain.state)
    assert s6.unit(A, "CV-2") is None or s6.unit(A, "CV-2").hex != 1456  # type: ignore[union-attr]
    off = rs.adjudicate(rs.initial_state("campaign-1", {}), {J: []}, ScriptedDice([3] * 300))
    assert not any(e.kind == "variable-deployment" for e in off.events)


def test_opt_gar_fixed_saigon_brigade_and_lac_stay() -> None:
    """OPT.GAR.FIXED (A22: mandatory in CG1): the Saigon brigade may not walk away and
    Saigon keeps 5 LAC; missions are still allowed (not checked here)."""
    from pbem.core.errors import IllegalOrderError
    from pbem.rulesets.usn.work import Work

    s = make_state(
        [land(J, "BDE-1", 181), land(J, "BDE-2", 181)],
        bases=[base(181, J, air=10)],
        air={J: {"0181": Air(lac=7)}},
    )
    s = replace(s, scenario="campaign-1")
    w = Work.start(world_geo(), s)
    w.side = J
    scenario_rules.check_garrison_unit(w, w.units["japanese/BDE-1"])  # two: one may go
    w.remove(w.units["japanese/BDE-2"])
    with pytest.raises(IllegalOrderError) as e:
        scenario_rules.check_garrison_unit(w, w.units["japanese/BDE-1"])
    assert e.value.rule == "OPT.GAR.FIXED"
    scenario_rules.check_garrison_air(w, "0181", "LAC", 2)
    with pytest.raises(IllegalOrderError):
        scenario_rules.check_garrison_air(w, "0181", "LAC", 3)
    # Not in a scenario with garrisons: no restriction.
    w2 = Work.start(world_geo(), replace(s, scenario="campaign-2"))
    w2.side = J
    scenario_rules.check_garrison_air(w2, "0181", "LAC", 7)


def test_opt_gar_restore_garrison_short_at_the_end_gives_the_allies_the_game() -> None:
    s = make_state([land(J, "BDE-1", 181)], air={J: {"0181": Air(lac=5), "0177": Air(lac=5)}})
    s = replace(s, scenario="campaign-1", round=-1, vp={J: 100.0})
    s = replace(s, extra={"vp_log": [[J, "100", "test", 1, "VP.SCHED.NAV"]]})
    assert scenario_rules.garrisons_short(s) == []
    short = replace(s, air={J: {"0181": Air(lac=4), "0177": Air(lac=5)}})
    assert scenario_rules.garrisons_short(short) == []  # never formed: not counted
    s = scenario_rules.after_round(world_geo(), s, s)  # the garrisons stand
    short = replace(s, air={J: {"0181": Air(lac=4), "0177": Air(lac=5)}})
    assert scenario_rules.garrisons_short(short) == ["0181"]
    out = victory.verdict(world_geo(), short, {})
    assert out.winner == A and "OPT.GAR.RESTORE" in out.summary


def test_cg1_thai_bangkok_bases_open_when_japanese_cross_the_border() -> None:
    geo = world_geo()
    sp = {"thailand": {"region": "thailand", "bases_hex": 112}}
    s = make_state([land(J, "DIV-1", 181)], extra={"special": sp})
    assert 112 not in scenario_rules.after_round(geo, s, s).bases
    thai = next(h for h in sorted(geo.regions["thailand"]) if h != 112)
    s2 = make_state([land(J, "DIV-1", thai)], extra={"special": sp})
    b = scenario_rules.after_round(geo, s2, s2).bases[112]
    assert (b.owner, b.air_capacity, b.naval) == (J, 15, True)
