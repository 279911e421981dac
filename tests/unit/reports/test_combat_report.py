"""Combats as the rulebook resolves them: who attacked whom, strengths, odds or
column, each die with its purpose, the result and the losses (issue 13)."""

from __future__ import annotations

import re
from typing import Any

from pbem.lifecycle.publishing import audience_view
from pbem.reports.context import Header
from pbem.reports.report import render_report

from .combat_events import (
    AIR_STRIKE,
    COMBATS,
    DAMAGED,
    LAND,
    LAND_BOMBING,
    LAND_STRIKE,
    SURFACE,
)
from .test_render import PHASE, demo_report
from .usn_world import A, played


def _report(events: list[dict[str, Any]], docs_url: str = "") -> Any:
    g, state = played()
    view = dict(audience_view(g.rs, state, g.events, A))
    view["events"] = [*view["events"], *events]
    header = Header("g7", "usn", g.rs.title, "test", A, A, "t", phase=PHASE)
    return render_report(header, view, with_map=False, docs_url=docs_url)


def _section(text: str, name: str) -> str:
    """The section's words, line wraps undone (a 72-column report wraps sentences)."""
    start = text.index(f"\n{name}\n")
    nxt = re.search(r"\n\n[A-Z][^\n]*\n-{3,}\n", text[start + len(name) + 2 :])
    body = text[start : start + len(name) + 2 + nxt.start()] if nxt else text[start:]
    return " ".join(body.split())


def test_am_bombnav_seq_air_strike_shows_cap_aa_and_bombs_with_each_die() -> None:
    text = _section(_report([AIR_STRIKE]).text, "Combat")
    assert "Allied NAC air strike on ship group 1 (CV-1 and CA-1) at 0279" in text
    assert "[AM.BOMBNAV.SEQ]" in text
    assert "10 NAC from CV-5 and 4 NAC from CV-6" in text
    assert "CAP: air-to-air strength 20 against the strike's 14 (CRT2)" in text
    assert "Die 5 (CAP fire at the strike): strike: 2 NAC destroyed, 4 NAC aborted" in text
    assert "Die 2 (strike fire at the CAP): CAP: no losses" in text
    assert "Die 3 (AA fire): strike: 1 NAC destroyed" in text
    assert "Bombs at CV-1: attack 14 against defense 5, odds 2-1 on CRT3" in text
    assert "Die 4 (CRT3, damage number): damage number 3" in text
    assert "Die 6 (CRT5, weeks of damage): 5 weeks of damage" in text
    assert "odds below 1-1 on CRT3: no die rolled" in text
    # No union-of-keys table: no "destroyed , aborted" dump.
    assert "destroyed , aborted" not in text and "strike losses" not in text


def test_nm_surf_5_both_sides_fire_and_an_x_sinks() -> None:
    text = _section(_report([SURFACE]).text, "Combat")
    assert "Surface engagement at 0681, Japanese attacking" in text
    assert "Japanese fire at CV-2: attack 25 against defense 5, odds 5-1 on CRT4" in text
    assert "Die 6 (CRT4, damage number): no damage number, no effect" in text
    assert "Die 1 (CRT5, weeks of damage): X, destroyed" in text


def test_seq_5k_land_combat_shows_strengths_column_and_die() -> None:
    text = _section(_report([LAND]).text, "Combat")
    assert "Land combat at 0213, Allied attacking" in text
    assert "Attackers RGT-1, strength 40; defenders RGT-9, strength 15" in text
    assert (
        "CRT1 column 2-1. Die 6 (CRT1 result): D1: on Class 1 land the defender is destroyed"
        in text
    )
    assert "[CRT1.D1]" in text
    assert "This CRT1 entry is reconstructed" in text  # the printed table lacks it


def test_am_bombland_an_air_strike_on_land_units_is_told_once_as_an_air_strike() -> None:
    """AM.BOMBLAND: the strike's CAP and AA, then its bombing on CRT1, in one block
    under the strike's title; its D2 said to count for nothing (only DX applies)."""
    text = _section(_report([LAND_BOMBING, LAND_STRIKE]).text, "Combat")
    assert "naval bombardment" not in text and "CRT1, below" not in text
    assert text.count("0277") == 1
    assert "Allied air strike on the land unit BN-1 at 0277 [AM.BOMBLAND]" in text
    assert "Attacking: 5 LAC from 0212." in text
    assert "Bombs at BN-1: attack 80 against defense 2 (CRT1)." in text
    assert (
        "Die 1 (CRT1 result): D2: no effect (bombing land units from the air applies only DX"
        in text
    )


def test_nm_bombland_a_dx_cuts_the_unit_off_for_a_game_turn() -> None:
    ships = {**LAND_BOMBING, "rule": "NM.BOMBLAND"}
    ships["data"] = {**LAND_BOMBING["data"], "by": ["CA-1", "DD-2"], "die": 6, "result": "DX",
                     "cut_off": True}  # fmt: skip
    text = _section(_report([ships]).text, "Combat")
    assert "Allied naval bombardment of BN-1 at 0277 by CA-1 and DD-2 [NM.BOMBLAND]" in text
    assert "Die 6 (CRT1 result): DX: BN-1 is deprived of supply for one full Game-Turn" in text


def test_damage_is_a_sentence_under_what_happened() -> None:
    text = _section(_report([DAMAGED]).text, "What happened")
    assert (
        "Japanese CV-1 at 0279 took 5 week(s) of damage from an Allied attack: 5 weeks in all;"
        in text
    )
    assert "its DEF, SA and AA are halved (CBT.H)" in text


def test_html_combat_links_its_rule_to_the_published_rule_index() -> None:
    html = _report(COMBATS, docs_url="https://pbem.example.org/docs").html
    assert 'href="https://pbem.example.org/docs/usn-rule-index.html#NM.SURF.5"' in html
    assert 'href="https://pbem.example.org/docs/usn-guide.html"' in html
    assert "Die 2 (CRT4, damage number): damage number 4" in html


def test_without_a_docs_url_rule_ids_point_to_the_attached_guide() -> None:
    report = _report(COMBATS)
    assert "[NM.SURF.5]" in report.html and 'class="rule"' not in report.html
    assert "see the attached guide, <code>pbem-usn-guide.html</code>" in report.html
    assert "see the attached guide, pbem-usn-guide.html" in " ".join(report.text.split())


def test_am_strafe_fire_strafing_names_its_target_die_and_losses() -> None:
    strafe = {
        "kind": "air-strike",
        "rule": "AM.STRAFE.FIRE",
        "data": {
            "attacker": A, "side": A, "hex": "0759", "target": "STRAFE",
            "flights": ["3 LAC from 0659"], "cap": None, "aa": None,
            "attack": {"die": 4, "destroyed": {"LAC": 2}},
        },
    }  # fmt: skip
    text = _section(_report([strafe]).text, "Combat")
    assert "Allied air strike on the aircraft on the ground (strafing) at 0759" in text
    assert "No CAP engaged. No anti-aircraft fire" in text
    assert "Strafing: die 4 (CRT2): 2 LAC destroyed on the ground." in text


def test_a_demo_report_links_no_usn_rules() -> None:
    assert "usn-rule-index" not in demo_report("north").html


def test_cbt_h_says_why_a_ships_numbers_change() -> None:
    more = {**DAMAGED, "data": {**DAMAGED["data"], "weeks": 8, "total": 24}}
    text = _section(_report([more]).text, "What happened")
    assert "with more than 20 weeks its MA is halved too (CBT.H)" in text
    assert "DEF, SA and AA are halved" not in text  # it was damaged before: no news
