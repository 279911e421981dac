"""The War in the Pacific rule index (pbem/docs/witp-rule-index.md): every rule ID the
engine cites (its rulebook cases, sequence-of-play steps and pbem's rulings R<n>) has
an entry with a one-line summary and an anchor, and reports and answers link each ID
to it as they do for U.S.N."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.lifecycle.mailroom.answer import Answer
from pbem.reports.playerdocs import PAGES, links, rule_anchor, rule_url, source, write_docs
from pbem.reports.render import link_rules
from pbem.rulesets.witp.datapack import PLAYERS_PAGES

from .witp_rule_ids import cited, engine_rule_ids, rulings_ids

URL = "https://pbem.example.org/docs"


@pytest.fixture(scope="module")
def anchors(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    out: Path = tmp_path_factory.mktemp("docs")
    write_docs(out, ["witp"])
    return set(re.findall(r'id="([^"]+)"', (out / "witp-rule-index.html").read_text("utf-8")))


def test_the_collector_reads_the_citations_the_engine_makes() -> None:
    assert cited("42.4.1 (played on a search chit, 13.5)") == ["42.4.1", "13.5"]
    assert cited("3.2, 5.0") == ["3.2", "5.0"] and cited("3.1 C") == ["3.1 C"]
    ids = engine_rule_ids()
    # rule= literals, module constants (orders.NOT_YET, cover.RULE), phases, segments
    assert {"16.3", "17.13.7", "17.5", "5.3.5", "3.1 C", "16.0"} <= ids
    assert len(ids) > 100


def test_every_rule_id_the_engine_cites_has_an_entry_and_a_link(anchors: set[str]) -> None:
    ids = engine_rule_ids() | rulings_ids(source("witp-rulings"))
    assert len(rulings_ids(source("witp-rulings"))) > 80
    missing = sorted(i for i in ids if rule_anchor(i) not in anchors)
    assert not missing, missing
    for i in ids:
        url = rule_url(URL, "witp", i)
        assert url == f"{URL}/witp-rule-index.html#{rule_anchor(i)}"


def test_each_entry_has_a_one_line_summary() -> None:
    rows = re.findall(r'^\| <a id="([^"]+)"></a>([^|]+) \|(.*)\|$', source("witp-rule-index"), re.M)
    assert len(rows) > 200
    for anchor, ident, rest in rows:
        assert anchor == rule_anchor(ident.strip())
        summary = rest.split("|")[-1].strip()
        assert 10 < len(summary) <= 140, ident


def test_witp_reports_and_answers_link_rule_ids_to_the_index() -> None:
    base = links("witp", URL)["rules"]
    assert base == f"{URL}/witp-rule-index.html#"
    html = str(link_rules("TF3 moved. [17.13] At night [3.1 C]; ruling [R106].", base))
    assert f'href="{base}17.13"' in html and f'href="{base}3.1-C"' in html
    assert f'href="{base}R106"' in html
    refused = ({"line": 2, "text": "TF9 MOVE E2320", "message": "no such TF", "rule": "16.2"},)
    answer = Answer(game="g1", side="allied", turn=1, phase="T1-naval1-plot", refused=refused)
    text = answer.text(links("witp", URL))
    assert "[16.2]" in text and f"{URL}/witp-rule-index.html#16.2" in text
    attached = Answer(game="g1", side="allied", turn=1, phase="T1-naval1-plot", refused=refused)
    assert "rule index in the attached guide" in attached.text(links("witp", ""))


def test_the_report_sources_name_the_witp_pages_players_get() -> None:
    assert {p for p in PAGES["witp"] if p.startswith("witp-")} == PLAYERS_PAGES
