"""A player reads his mail and the player's docs, not pbem's repository: no answer,
report or order form of either game, and no shipped player's page, names a repository
path ("docs/...", "pbem/...", "tests/...", "something.py"). The one exception is a link
to the published player's docs (``<docs_url>/usn-rule-index.html#ID``), which the
player can open."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.lifecycle.mailroom.answer import Answer
from pbem.reports.context import Header
from pbem.reports.playerdocs import all_pages, links, source
from pbem.reports.report import render_report
from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.ruleset import WitpRuleset
from tests.unit.rulesets.witp.strikeworld import SCENARIO, opened, resolved

from .usn_world import A, J, played

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "reports"
DOCS_URL = "https://pbem.example.org/docs"
REPO_PATH = re.compile(r"(?<![\w-])(?:docs|pbem|tests)/|\w\.py\b")


def repository_paths(text: str) -> list[str]:
    """The repository paths ``text`` names, links to the published docs taken out."""
    published = re.escape(DOCS_URL) + r"/[\w.#/-]*"
    bare = re.sub(published, "", text)
    return [bare[max(0, m.start() - 30) : m.end() + 30] for m in REPO_PATH.finditer(bare)]


def test_the_check_finds_a_path_and_spares_a_published_link() -> None:
    assert repository_paths("the printed table is incomplete (docs/usn-data.md).")
    assert repository_paths("the scripted sides (pbem/demo/witp.py)")
    assert repository_paths("see airplay.py")
    assert not repository_paths(f"[MOV.A] {DOCS_URL}/usn-rule-index.html#MOV.A")
    assert not repository_paths("pbem-usn-guide.html, pbem verify, the docs")


@pytest.mark.parametrize("page", all_pages())
def test_no_shipped_players_page_names_a_repository_path(page: str) -> None:
    assert repository_paths(source(page)) == []


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.txt")))
def test_no_golden_report_names_a_repository_path(name: str) -> None:
    text = (GOLDEN / name).read_text(encoding="utf-8")
    html = (GOLDEN / name.replace(".txt", ".html")).read_text(encoding="utf-8")
    assert repository_paths(text) == [] and repository_paths(html) == []


@pytest.fixture(scope="module")
def witp() -> WitpRuleset:
    return WitpRuleset(load_library(), load_map())


@pytest.mark.parametrize("side", ["allied", "japanese", None])
@pytest.mark.parametrize("docs_url", [DOCS_URL, ""])
def test_no_witp_report_or_form_names_a_repository_path(
    witp: WitpRuleset, side: str | None, docs_url: str
) -> None:
    """A report after an air strike (its events, strikes, forces, searches, the
    illustrative items it rests on) and the order form it carries."""
    state, events = resolved(opened(witp), seed=3)
    form = witp.order_template(state, side) if side else ""
    assert repository_paths(form) == []
    header = Header("g1", "witp", witp.title, SCENARIO, side or "omniscient", side, "g1",
                    order_form=form)  # fmt: skip
    r = render_report(header, witp.view(state, events, side), with_map=False, docs_url=docs_url)
    assert "TF2: CV Shokaku D2" in " ".join(r.text.split())  # the strike is told
    assert '<section id="illustrative">' in r.html  # the sources it rests on
    assert repository_paths(r.text) == [] and repository_paths(r.html) == []


@pytest.mark.parametrize(("ruleset", "phase", "rule"), [
    ("usn", "A-3-4", "MOV.A"), ("witp", "T1-naval1-plot", "16.3"),
])  # fmt: skip
@pytest.mark.parametrize("docs_url", [DOCS_URL, ""])
def test_no_answer_names_a_repository_path(
    ruleset: str, phase: str, rule: str, docs_url: str
) -> None:
    refused = ({"line": 2, "text": "TF9 MOVE E2320", "message": "no such TF", "rule": rule},)
    answer = Answer(game="g1", side="allied", turn=1, phase=phase, accepted=("PASS",),
                    refused=refused, round="held", deadline="Wed 04 Nov 12:00 CET")  # fmt: skip
    assert repository_paths(answer.text(links(ruleset, docs_url))) == []


def test_no_usn_order_form_names_a_repository_path() -> None:
    g, state = played()
    for side in (A, J):
        form = g.rs.order_template(state, side)
        assert form.startswith("# U.S.N.") and repository_paths(form) == []
