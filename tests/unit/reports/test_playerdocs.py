"""The player's docs: shipped in the package, rendered to HTML with an anchor for
every rule ID reports cite, and every link between the pages leading somewhere."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.config import ConfigError, ReportsConfig
from pbem.reports.playerdocs import (
    PAGES,
    all_pages,
    guide_attachment,
    links,
    rule_url,
    source,
    write_docs,
)
from pbem.reports.site import PAGE, _page_args, _site_rules
from pbem.storage.models import Report

from .combat_events import COMBATS

ROOT = Path(__file__).resolve().parents[3]


def test_every_players_page_ships_in_the_package_and_docs_links_to_it() -> None:
    for page in all_pages():
        assert source(page).startswith("# ")
        # One copy: the repository's docs/ page is the package's file.
        assert (ROOT / "docs" / f"{page}.md").resolve() == (
            ROOT / "pbem" / "docs" / f"{page}.md"
        ).resolve()


def test_each_game_opens_with_its_guide_and_the_guides_say_how_to_write_sign_and_finish() -> None:
    for ruleset, pages in PAGES.items():
        guide = source(pages[0])
        assert pages[0] == f"{ruleset}-guide"
        for must in ("Game:", "Phase:", "pbem sign", "gpg --clearsign", "DONE", "DISPUTE"):
            assert must in guide, (ruleset, must)
        assert "A turn by mail, worked" in guide


def test_the_rule_index_page_has_an_anchor_for_every_rule_a_combat_cites(tmp_path: Path) -> None:
    write_docs(tmp_path, ["usn"])
    html = (tmp_path / "usn-rule-index.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="([^"]+)"', html))
    assert len(anchors) > 400
    for e in COMBATS:
        assert e["rule"] in anchors
    assert "<table>" in html  # the index is a table, not Markdown pipes
    assert "| Case |" not in html


def test_every_link_between_published_pages_leads_to_a_page_and_anchor(tmp_path: Path) -> None:
    write_docs(tmp_path)
    ids = {
        p.name: set(re.findall(r'id="([^"]+)"', p.read_text(encoding="utf-8")))
        for p in tmp_path.glob("*.html")
    }
    checked = 0
    for page in tmp_path.glob("*.html"):
        for href in re.findall(r'href="([^"]+)"', page.read_text(encoding="utf-8")):
            if href.startswith(("http://", "https://", "mailto:")):
                continue
            name, _, anchor = href.partition("#")
            name = name or page.name
            assert name in ids, f"{page.name} links to a page not published: {href}"
            assert not anchor or anchor in ids[name], f"{page.name}: no anchor {href}"
            checked += 1
    assert checked > 20
    assert ".md" not in " ".join(
        re.findall(r'href="([^"]+)"', (tmp_path / "usn-guide.html").read_text())
    )


@pytest.mark.parametrize("ruleset", ["usn", "witp", "demo"])
def test_the_attached_guide_is_one_file_whose_links_all_resolve(ruleset: str) -> None:
    name, kind, data = guide_attachment(ruleset)
    html = data.decode("utf-8")
    assert (name, kind) == (f"pbem-{ruleset}-guide.html", "text/html")
    ids = set(re.findall(r'id="([^"]+)"', html))
    for href in re.findall(r'href="([^"]+)"', html):
        assert href.startswith("#") and href[1:] in ids, href
    assert "<script" not in html and "src=" not in html  # self-contained, nothing fetched


def test_rule_links_go_to_the_published_index_or_to_the_attached_guide() -> None:
    url = "https://pbem.example.org/docs"
    assert rule_url(url, "usn", "NM.SURF.5") == f"{url}/usn-rule-index.html#NM.SURF.5"
    assert rule_url("", "usn", "NM.SURF.5") is None
    assert rule_url(url, "witp", "16.4.7") == f"{url}/witp-rule-index.html#16.4.7"
    assert rule_url(url, "witp", "3.1 C") == f"{url}/witp-rule-index.html#3.1-C"
    assert rule_url("", "witp", "R106") is None
    assert links("usn", url)["rules"] == f"{url}/usn-rule-index.html#"
    assert links("usn", "") == {
        "guide": "",
        "rules": "",
        "attached": "pbem-usn-guide.html",
        "index": "yes",
    }


def test_docs_url_is_a_web_or_file_address_without_its_trailing_slash() -> None:
    assert ReportsConfig(docs_url="https://x.org/docs/").docs_url == "https://x.org/docs"
    assert ReportsConfig().docs_url == ""
    with pytest.raises(ConfigError, match="docs_url"):
        ReportsConfig(docs_url="docs/")


def test_the_archive_sites_report_page_links_rule_ids_to_the_sites_own_docs() -> None:
    report = Report(id=7, audience="allied", subject="s", text="CV-1 moved. [SEQ.2C]", png=None)
    report.created_at = datetime(2026, 11, 1, tzinfo=UTC)
    args = _page_args(report, "0007-allied", None, None, "g1", _site_rules("usn"))
    assert '[<a class="rule" href="../docs/usn-rule-index.html#SEQ.2C">SEQ.2C</a>]' in PAGE.render(
        **args
    )
    witp = Report(id=8, audience="allied", subject="s", text="TF3 moved. [17.13]", png=None)
    witp.created_at = report.created_at
    args = _page_args(witp, "0008-allied", None, None, "g1", _site_rules("witp"))
    assert '[<a class="rule" href="../docs/witp-rule-index.html#17.13">17.13</a>]' in PAGE.render(
        **args
    )
    assert "[SEQ.2C]" in str(_page_args(report, "n", None, None, "g1", _site_rules("demo"))["text"])
