"""Reports: text at 72 columns, HTML with the same facts, the map picture, the mail."""

from __future__ import annotations

import email
import email.policy
import re
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import select

from pbem.core.dice import SeededDice, seed_commitment
from pbem.core.errors import LifecycleError
from pbem.lifecycle.publishing import audience_view
from pbem.outbox.queue import open_outbound
from pbem.reports.context import Header, report_context
from pbem.reports.mapimage import hex_pixel
from pbem.reports.narrate import happened, sentence
from pbem.reports.pictures import REPORT_SCALE
from pbem.reports.playerdocs import links
from pbem.reports.render import WIDTH, render
from pbem.reports.report import render_report
from pbem.reports.site import write_site
from pbem.rulesets.demo import RaidRuleset
from pbem.rulesets.usn.map import centre
from pbem.rulesets.usn.picture import SIDE_COLOURS
from pbem.storage.models import OutboundMail, Report
from tests.unit.lifecycle.conftest import Table

from .usn_world import A, J, played

PHASE = {
    "turn": 1,
    "name": "A-3-4",
    "title": "Allied land movement, then air and sea movement",
    "sides": [A],
    "deadline": "Tue 03 Nov 2026 12:00 UTC",
    "seed_commitment": "ab" * 32,
}


def usn_report(side: str | None, fog: str = "open", with_map: bool = False) -> Any:
    g, state = played(fog)
    view = audience_view(g.rs, state, g.events, side)
    form = g.rs.order_template(state, side) if side == A else ""
    header = Header(
        "g7", "usn", g.rs.title, "test", side or "omniscient", side, "g7: turn 1 phase A-3-4",
        phase=PHASE, order_form=form,
    )  # fmt: skip
    drawn = g.rs.map_picture(view) if with_map else None
    return render_report(header, view, drawn, with_map=with_map), view


def demo_report(side: str) -> Any:
    r = RaidRuleset()
    st = r.initial_state("duel", {})
    res = r.adjudicate(
        st,
        {"north": ["SEND SQN-1 A", "SEND SQN-2 B"], "south": ["SEND SQN-3 C"]},
        SeededDice(b"k" * 32, "g1", 1, "plot"),
    )
    header = Header(
        "g1", "demo", r.title, "duel", side, side, "g1: turn 2 phase plot",
        phase={**PHASE, "turn": 2, "name": "plot", "sides": ["north", "south"]},
        previous={
            "turn": 1, "phase": "plot", "seed": "cd" * 32, "seed_commitment": "ef" * 32,
            "commitments": {"north": "11" * 32, "south": "22" * 32},
            "nonces": {"north": "nonce-north", "south": "nonce-south"},
        },
        order_form=r.order_template(res.state, side),
    )  # fmt: skip
    return render_report(header, r.view(res.state, res.events, side))


def prose(text: str) -> list[str]:
    """The report's lines outside the order form (the form is the ruleset's, sent verbatim)
    and the dice-check commands (a shell command is copied whole, never wrapped)."""
    text = re.sub(r"---8<---\n.*?\n---8<---", "", text, flags=re.S)
    return re.sub(
        r"--- the two commands.*?--- end of the commands ---", "", text, flags=re.S
    ).splitlines()


@pytest.mark.parametrize("fog", ["open", "double-blind"])
def test_usn_report_text_fits_72_columns(fog: str) -> None:
    for side in (J, A, None):
        report, _ = usn_report(side, fog)
        long = [ln for ln in prose(report.text) if len(ln) > WIDTH]
        assert not long, long


def test_demo_report_text_fits_72_columns() -> None:
    for side in ("north", "south"):
        assert all(len(ln) <= WIDTH for ln in prose(demo_report(side).text))


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        assert tag not in ("script", "link", "iframe"), tag  # no JavaScript, nothing external
        for name, value in attrs:
            assert not (name in ("src", "href") and value and "://" in value), value

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def html_text(html: str) -> str:
    p = _Collect()
    p.feed(html)
    return " ".join(" ".join(p.text).split())


def test_usn_html_has_the_same_facts_as_the_text() -> None:
    report, view = usn_report(A)
    words = html_text(report.html)
    for u in view["own_units"] + view["enemy_units"]:
        assert u["id"] in report.text and u["id"] in words
        assert u["at"] in report.text and u["at"] in words
    for fact in ("Tue 03 Nov 2026 12:00 UTC", "japanese", "What you know of the enemy", "0/3"):
        assert fact in report.text and fact in words
    vp = f"{float(view['vp'][J]):g}"
    assert "Victory points (GEN.REC.A)" in words and f"japanese: {vp}" in report.text


def test_demo_report_shows_combat_numbers_strengths_rolls_totals() -> None:
    report = demo_report("north")
    rows = [
        ln.split() for ln in report.text.splitlines() if re.match(r"  [ABC] +(north|south)", ln)
    ]
    assert len(rows) == 6
    for _zone, _side, strength, die, total in rows:
        assert int(strength) + int(die) == int(total)
        assert 1 <= int(die) <= 6
    assert "<td>north</td>" not in report.html  # side cells carry their class
    assert report.html.count('<td class="north">north</td>') == 3


def test_demo_report_nonce_only_to_its_own_side() -> None:
    north = demo_report("north")
    assert "nonce-north" in north.text and "nonce-south" not in north.text
    assert "nonce-south" not in north.html and "2222" in north.text  # commitments are public


def test_html_escapes_what_players_wrote() -> None:
    g, state = played()
    view = dict(audience_view(g.rs, state, g.events, A))
    view["standing"] = ["<script>alert(1)</script>"]
    header = Header("g7", "usn", "U.S.N.", "test", A, A, "t", phase=PHASE)
    html = render_report(header, view, with_map=False).html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_events_read_as_sentences_with_their_rule() -> None:
    line = sentence(
        {
            "kind": "ship-damaged",
            "data": {"unit": "CA-1", "side": J, "weeks": 5, "total": 5, "hex": "0859", "by": A},
            "rule": "NM.SURF.5",
        }
    )
    assert line == (
        "Japanese CA-1 at 0859 took 5 week(s) of damage from an Allied attack: 5 weeks in all; from now on"
        " its DEF, SA and AA are halved (CBT.H). [NM.SURF.5]"
    )


def test_an_unknown_event_still_names_every_datum() -> None:
    line = sentence({"kind": "new-thing", "data": {"unit": "CV-1", "path": ["0069"]}})
    assert line == "new thing: unit CV-1; path 0069."


def test_seq_5l_returning_flights_are_one_sentence_a_side() -> None:
    back = [
        {"kind": "air-returned", "data": {"side": side, "type": t, "landed": {at: n}},
         "rule": "SEQ.5L"}
        for side, t, at, n in (
            (A, "LAC", "0212", 6), (A, "NAC", "CV-2", 7), (A, "LBAC", "0212", 4),
            (A, "NAC", "CV-2", 1), (J, "NAC", "CV-3", 2),
        )
    ]  # fmt: skip
    assert happened(back) == [
        "Allied aircraft returned: 6 LAC and 4 LBAC to 0212; 8 NAC to CV-2. [SEQ.5L]",
        "Japanese aircraft returned: 2 NAC to CV-3. [SEQ.5L]",
    ]


def test_seq_5e_plotted_missions_are_one_sentence_a_side() -> None:
    plots = [
        {"kind": "plot", "data": {"side": side, "order": order}, "rule": "SEQ.5E"}
        for side, order in ((J, "CAP 2 NAC CV-3"), (A, "STRIKE 7 NAC CV-2 0859 SHIPS 1"),
                            (J, "STRIKE 6 NAC CV-3 0862 SHIPS 1"))
    ]  # fmt: skip
    assert happened(plots) == [
        "Japanese plotted: CAP 2 NAC CV-3; STRIKE 6 NAC CV-3 0862 SHIPS 1. [SEQ.5E]",
        "Allied plotted: STRIKE 7 NAC CV-2 0859 SHIPS 1. [SEQ.5E]",
    ]


def _colour_near(img: Image.Image, h: int) -> set[tuple[int, int, int]]:
    x, y = hex_pixel(centre(h), REPORT_SCALE)  # the report's map is drawn at this scale
    return {img.getpixel((int(x) + dx, int(y) + dy)) for dx in (-2, 0, 2) for dy in (-3, 3)}  # type: ignore[misc]


def test_usn_png_shows_units_in_their_hexes() -> None:
    report, view = usn_report(A, with_map=True)
    img = Image.open(BytesIO(report.png)).convert("RGB")
    own = {int(u["at"]) for u in view["own_units"]}
    enemy = {int(u["at"]) for u in view["enemy_units"]}
    for h in own:
        assert SIDE_COLOURS[A] in _colour_near(img, h), h
    for h in enemy:
        assert SIDE_COLOURS[J] in _colour_near(img, h), h
    empty = 1500  # far east, no unit there
    assert not ({SIDE_COLOURS[A], SIDE_COLOURS[J]} & _colour_near(img, empty))


def test_usn_png_has_no_metadata() -> None:
    report, _ = usn_report(A, with_map=True)
    img = Image.open(BytesIO(report.png))
    assert img.format == "PNG" and not img.info.get("text") and not getattr(img, "text", {})
    assert b"tEXt" not in report.png and b"iTXt" not in report.png and b"tIME" not in report.png


def test_double_blind_png_hides_unseen_enemy() -> None:
    report, view = usn_report(A, fog="double-blind", with_map=True)
    assert view["enemy_units"] == []
    g, _ = played("double-blind")
    img = Image.open(BytesIO(report.png)).convert("RGB")
    for u in g.s.side_units(J):
        if u.hex is not None:
            assert SIDE_COLOURS[J] not in _colour_near(img, u.hex)


def test_reporter_mails_text_html_and_map(table: Table, demo_game: str) -> None:
    """The lifecycle's Publisher: one multipart mail per seat, stored as sent."""
    with table.sessions() as s:
        mails = s.scalars(select(OutboundMail).where(OutboundMail.kind == "report")).all()
        stored = s.scalars(select(Report)).all()
        assert len(mails) == 2 and len(stored) == 2
        for mail, report in zip(
            sorted(mails, key=lambda m: m.side or ""),
            sorted(stored, key=lambda r: r.audience),
            strict=True,
        ):
            msg = email.message_from_bytes(
                open_outbound(table.config.secrets.key_bytes(), mail), policy=email.policy.default
            )
            parts = {p.get_content_type(): p for p in msg.walk()}
            assert {"text/plain", "text/html", "image/png"} <= set(parts)
            assert parts["text/plain"].get_content().replace("\r\n", "\n") == report.text
            assert parts["image/png"].get_content() == report.png
            assert parts["image/png"].get_filename() == f"g1-1-{report.audience}-map.png"
            assert report.html.startswith("<!DOCTYPE html>")


def _play_to_the_end(table: Table, game: str) -> None:
    for turn in (1, 2, 3):
        table.run(lambda gm, t=turn: gm.phases.submit(game, "north", t, "plot", ["SEND SQN-1 A"]))
        table.run(lambda gm: gm.phases.adjudicate_now(game))


def test_final_report_verdict_first_then_full_disclosure(table: Table, demo_game: str) -> None:
    _play_to_the_end(table, demo_game)
    with table.sessions() as s:
        finals = s.scalars(select(Report).where(Report.phase_id.is_(None))).all()
    assert sorted(r.audience for r in finals) == ["north", "south"]
    for r in finals:
        assert r.text.index("GAME OVER: ") < r.text.index("What happened")
        # Full disclosure: south's final report shows north's last orders, and both forces.
        assert "north's last orders" in r.text and "SEND SQN-1 A" in r.text
        assert "Your order form" not in r.text and r.png


def test_site_of_a_game_in_play_only_for_the_moderator(
    table: Table, demo_game: str, tmp_path: Path
) -> None:
    with table.sessions() as s:
        with pytest.raises(LifecycleError, match="not over"):
            write_site(s, demo_game, tmp_path / "site")
        index = write_site(s, demo_game, tmp_path / "site", unfinished=True)
    html = index.read_text()
    assert "moderator only" in html and not (tmp_path / "site" / "record.html").exists()


def test_gen_die_the_report_tells_how_to_recompute_every_die() -> None:
    """The printed commands, run on the revealed seed, give the phase's dice."""
    seed = bytes(range(32))
    header = Header(
        "g9", "demo", "Raid", "duel", "north", "north", "t",
        previous={"turn": 3, "phase": "plot", "seed": seed.hex(),
                  "seed_commitment": seed_commitment(seed), "commitments": {}, "nonces": {}},
    )  # fmt: skip
    ctx = report_context(header, {"events": []})
    check = ctx["dice_check"]
    out = subprocess.run(
        [sys.executable, "-c", check["commitment"].split('"')[1]],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert out == [seed_commitment(seed)]
    script = check["rolls"][len('python3 -c "') : -1]
    printed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    dice = SeededDice(seed, "g9", 3, "plot")
    assert [ln.split()[1] for ln in printed] == [str(dice.d6()) for _ in range(30)]
    text = render_report(header, {"events": []}, with_map=False).text
    assert check["rolls"] in text and "pbem-dice-v1|g9|3|plot|n|attempt" in " ".join(text.split())


def test_heading_names_the_phase_reported_the_next_one_fog_and_optional_rules() -> None:
    g, state = played("double-blind")
    view = dict(audience_view(g.rs, state, g.events, A))
    view["options"] = {**view["options"], "submarines": True, "cg_shock": False}
    header = Header(
        "g7", "usn", g.rs.title, "test", A, A, "g7: turn 1 phase A-3-4", phase=PHASE,
        previous={"turn": 1, "phase": "J-2", "seed": "cd" * 32, "seed_commitment": "ef" * 32,
                  "commitments": {}, "nonces": {}},
    )  # fmt: skip
    r = render_report(header, view, with_map=False)
    head = " ".join(r.text.split("What happened")[0].split())
    assert head.startswith("g7: turn 1 J-2 adjudicated; next turn 1 A-3-4")
    assert "This report: turn 1 J-2 (adjudicated). Next: turn 1 A-3-4." in head
    assert "Fog of war: double-blind" in head and "Optional rules: submarines." in head
    assert "Fog of war: <b>double-blind" in r.html and "<b>submarines</b>" in r.html


def test_a_refusal_citing_a_rule_points_to_the_players_rule_index() -> None:
    base = {"game": "g7", "side": A, "turn": 1, "phase": "A-3-4", "error": "",
            "hint": "", "accepted": [], "receipt": None, "notes": [], "deadline": ""}  # fmt: skip
    cited = [{"line": 2, "text": "MOVE CA-1 0999", "message": "too far", "rule": "MOV.A"}]
    published = links("usn", "https://pbem.example.org/docs")
    text = render("common", "answer.txt.j2", {**base, "refused": cited, "docs": published})
    assert "[MOV.A]" in text
    assert "https://pbem.example.org/docs/usn-rule-index.html#MOV.A" in text
    attached = links("usn", "")
    text = render("common", "answer.txt.j2", {**base, "refused": cited, "docs": attached})
    assert "rule index in the attached guide" in text and "pbem-usn-guide.html" in text
    uncited = [{**cited[0], "rule": None}]
    answer = render("common", "answer.txt.j2", {**base, "refused": uncited, "docs": published})
    assert "rule index" not in answer


def test_the_view_names_the_submarine_option_as_players_do() -> None:
    g, _state = played()
    with_subs = replace(g.s, options={**g.s.options, "subs": True})
    view = g.rs.view(with_subs.to_json(), [], A)
    assert view["options"] == {"fog": "open", "submarines": True}


def test_only_the_order_form_is_cut_out_with_scissors() -> None:
    """A player (and the demo) takes the order form from between the ---8<--- lines:
    no other block of the report, such as the dice-check commands, may use them."""
    goldens = sorted((Path(__file__).parents[2] / "golden" / "reports").glob("*.txt"))
    assert any("the two commands" in p.read_text() for p in goldens)
    for p in goldens:
        text = p.read_text()
        assert text.count("---8<---\n") == (2 if "Your order form:" in text else 0), p.name
