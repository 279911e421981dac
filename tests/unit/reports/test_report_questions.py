"""A player's questions, answered from the report alone (issue 13), section by section:
where is each of my units, in what stack order, with what fuel and damage; what did
I see; what happened in each combat and with which dice; what is due from me and by
when. Each test reads the plain-text report only."""

from __future__ import annotations

import copy
import re
from typing import Any

from pbem import rulesets
from pbem.lifecycle.publishing import audience_view
from pbem.reports.context import Header
from pbem.reports.report import render_report

from .combat_events import COMBATS
from .test_render import PHASE
from .usn_world import A, J, played


def _view(side: str | None) -> dict[str, Any]:
    g, state = played()
    return copy.deepcopy(dict(audience_view(g.rs, state, g.events, side)))


def _text(view: dict[str, Any], side: str | None, form: str = "") -> str:
    header = Header(
        "g7", "usn", "U.S.N.", "test", side or "omniscient", side, "g7: turn 1 phase A-3-4",
        phase=PHASE, order_form=form,
    )  # fmt: skip
    return render_report(header, view, with_map=False).text


def _section(text: str, name: str) -> list[str]:
    start = text.index(f"\n{name}\n")
    nxt = re.search(r"\n\n[A-Z][^\n]*\n-{3,}\n", text[start + len(name) + 2 :])
    body = text[start : start + len(name) + 2 + nxt.start()] if nxt else text[start:]
    return body.splitlines()[3:]


def _rows(lines: list[str]) -> dict[str, list[str]]:
    """Unit rows of a forces table, by unit ID: [where, stack, type, fuel, dmg, notes].
    The table's columns are fixed (6, 6, 8, 4, 5, 4, then the notes)."""
    out: dict[str, list[str]] = {}
    where = ""
    for ln in lines:
        cut = [ln[2:8], ln[9:15], ln[16:24], ln[25:29], ln[30:35], ln[36:40], ln[41:]]
        cells = [c.strip() for c in cut]
        if not re.fullmatch(r"[A-Z][\w-]*", cells[2]) or cells[2] == "unit":
            continue
        where = cells[0] or where
        out[cells[2]] = [where, cells[1], *cells[3:]]
    return out


def test_stk_g_where_each_own_unit_is_in_stack_order_with_fuel_and_damage() -> None:
    view = _view(J)
    own = {u["id"]: u for u in view["own_units"]}
    own["CV-1"]["damage"], own["CV-1"]["damaged"] = 5, True
    rows = _rows(_section(_text(view, J), "Your forces"))
    for uid, u in own.items():
        where, _stack, utype, fuel, dmg, _notes = rows[uid]
        carrier = u.get("aboard")
        assert where == (own[carrier]["at"] if carrier else u["at"])
        assert utype == u["type"]
        if "fuel" in u:
            assert fuel == f"{u['fuel']['turns_at_sea']}/{u['fuel']['endurance']}"
        assert dmg == (f"{u['damage']}w" if u.get("damage") else "-")
    # STK.G: the carrier group at sea, top first, one air-attack pair (g1).
    assert rows["CV-1"][1] == "1 g1" and rows["DD-1"][1] == "2 g1"


def test_stk_g_air_groups_pair_from_the_top_in_the_stack_order() -> None:
    view = _view(J)
    for u in view["own_units"]:
        if u["id"] in ("CV-1", "DD-1"):
            u["stack"] = {"CV-1": 1, "DD-1": 0}[u["id"]]
    view["own_units"].append({**next(u for u in view["own_units"] if u["id"] == "DD-1"),
                              "id": "DD-3", "stack": 2})  # fmt: skip
    rows = _rows(_section(_text(view, J), "Your forces"))
    assert [rows[u][1] for u in ("DD-1", "CV-1", "DD-3")] == ["1 g1", "2 g1", "3 g2"]


def test_sup_g_fuel_warning_before_a_ship_is_lost() -> None:
    view = _view(J)
    for u in view["own_units"]:
        if u["id"] == "CV-1":
            u["fuel"] = {"turns_at_sea": 2, "endurance": 3}
    text = _text(view, J)
    flat = " ".join(text.split())
    assert (
        "WARNING CV-1 at 0136 will be lost at the end of this Game-Turn unless refuelled (SUP.G)."
        in flat
    )
    assert "WARNING DD-1" not in flat


def test_sup_g_one_fuel_warning_a_place_and_none_in_the_table() -> None:
    """The ships of a stack short of fuel are named in one warning, not once each, and
    not again in the table's notes: each stays one table line (72 columns)."""
    view = _view(J)
    for u in view["own_units"]:
        if u["id"] in ("CV-1", "DD-1"):
            u["fuel"] = {"turns_at_sea": 1, "endurance": 3}
    text = _text(view, J)
    warnings = [ln for ln in _section(text, "Your forces") if ln.startswith("WARNING")]
    assert warnings == ["WARNING CV-1 and DD-1 at 0136 will be lost at the end of next Game-Turn"]
    lines = _section(text, "Your forces")
    row = next(i for i, ln in enumerate(lines) if ln.startswith("  ") and " CV-1 " in ln)
    assert "SUP.G" not in lines[row] and " DD-1 " in lines[row + 1]
    assert _rows(lines)["CV-1"][5] == "" and _rows(lines)["DD-1"][5] == ""


def test_sup_g_an_enemy_ship_short_of_fuel_has_a_short_note() -> None:
    """GEN.REC.B: fuel records are open, so the enemy's ships show it too, in a note
    that keeps the row on one line."""
    view = _view(A)
    for u in view["enemy_units"]:
        if u["id"] == "CV-1":
            u["fuel"] = {"turns_at_sea": 2, "endurance": 3}
    lines = _section(_text(view, A), "What you know of the enemy")
    assert _rows(lines)["CV-1"][5] == "out of fuel this turn (SUP.G)"
    assert not any(ln.startswith("WARNING") for ln in lines)


def test_what_i_saw_enemy_units_with_damage_shown_not_as_one() -> None:
    view = _view(A)
    for u in view["enemy_units"]:
        if u["id"] == "CV-1":
            u["damaged"] = True  # five weeks, say: the weeks are the enemy's secret
    rows = _rows(_section(_text(view, A), "What you know of the enemy"))
    for u in view["enemy_units"]:
        assert rows[u["id"]][0] == u["at"]
    assert rows["CV-1"][4] == "yes" and rows["DD-1"][4] == "-"
    assert "1" not in rows["CV-1"][4]


def test_gen_rec_c_the_submarine_is_in_its_own_sides_forces() -> None:
    view = _view(J)
    view["subs"] = [{"id": "SUB-1", "at": "0500", "on_station": True, "phases_on_station": 2}]
    view["sub_log"] = [{"turn": 1, "sub": "SUB-1", "hex": "0500", "on_station": True}]
    text = _text(view, J)
    rows = _rows(_section(text, "Your forces"))
    assert rows["SUB-1"][:3] == ["0500", "", "SUB"]
    assert "on station (2 phases)" in rows["SUB-1"][5]
    assert "turn 1: SUB-1 at 0500, on station" in text


def test_gen_rec_c_the_allies_see_the_sub_log_at_game_end_only() -> None:
    view = _view(A)
    assert "Submarine log" not in _text(view, A)
    final = _view(None)
    final["subs"] = []
    final["sub_log"] = [{"turn": 1, "sub": "SUB-1", "hex": "0500", "on_station": False}]
    assert "turn 1: SUB-1 at 0500" in _text(final, None)


def test_what_happened_in_each_combat_and_with_which_dice() -> None:
    view = _view(A)
    view["events"] = [*view["events"], *COMBATS]
    lines = _section(_text(view, A), "Combat")
    flat = " ".join(" ".join(lines).split())
    dice = re.findall(r"Die (\d) \(([^)]+)\)", flat)
    # Every die of every combat, with its purpose: CAP, strike, AA, CRT3, CRT5 (air);
    # CRT4 twice and CRT5 (surface); CRT1 (land); CRT1 (an air strike on land units).
    purposes = [p for _d, p in dice]
    assert purposes == [
        "CAP fire at the strike", "strike fire at the CAP", "AA fire",
        "CRT3, damage number", "CRT5, weeks of damage",
        "CRT4, damage number", "CRT4, damage number", "CRT5, weeks of damage",
        "CRT1 result", "CRT1 result",
    ]  # fmt: skip
    titles = ("air strike on ship group 1", "Surface engagement at 0681", "Land combat",
              "air strike on the land unit BN-1")  # fmt: skip
    for title in titles:
        assert title in flat


def test_what_is_due_from_me_and_by_when() -> None:
    g, state = played()
    view = _view(A)
    text = _text(view, A, g.rs.order_template(state, A))
    due = " ".join(" ".join(_section(text, "What is expected of you")).split())
    assert "Orders are due from: allied" in due
    assert f"Deadline: {PHASE['deadline']}" in due
    assert "You owe orders" in due and "Your order form:" in text
    j = _text(_view(J), J)
    assert "You owe no orders this phase" in " ".join(j.split())


def test_vp_calc_the_final_mail_shows_one_victory_point_total() -> None:
    view = _view(None)  # game over: full disclosure; the running log says J 2, A 1
    outcome = {
        "winner": A, "level": "Marginal", "scores": {J: 3, A: 10},
        "summary": "Victory points: Japanese 3.5, Allied 10 (japanese +1.5 for Port Moresby).",
    }  # fmt: skip
    header = Header("g7", "usn", "U.S.N.", "test", "omniscient", None, "g7: game over",
                    outcome=outcome)  # fmt: skip
    r = render_report(header, view, with_map=False)
    flat = " ".join(r.text.split())
    assert "Japanese 3.5, Allied 10" in flat
    assert "japanese: 3" not in flat and "japanese: 2" not in flat and "allied: 1" not in flat
    assert "final totals are those of the verdict" in flat
    verdict = r.html.split('id="verdict"')[1].split("</section>")[0]
    vp = r.html.split('id="vp"')[1].split("</section>")[0]
    assert "<td>3</td>" not in verdict and "<td>" not in vp


def test_mini_game_bases_are_its_theatre_and_every_base_has_a_name() -> None:
    r = rulesets.get("usn")
    state = r.initial_state("eastern-solomons", {})
    for side in (A, J):
        view = copy.deepcopy(dict(audience_view(r, state, [], side)))
        lines = _section(_text(view, side), "Bases of the scenario's theatre")
        names = [ln[7:25].strip() for ln in lines if re.match(r"  \d{4} ", ln)]
        assert "Guadalcanal" in names and "Espiritu Santo" in names  # added, and printed
        assert "Iwo Jima" not in names and "Pearl Harbor" not in names
        assert "-" not in names and 10 <= len(names) < 30
        assert re.search(r"\d+ more bases elsewhere in the Pacific", " ".join(lines))
