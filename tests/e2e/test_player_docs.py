"""The player's docs, published with the archive site at ``[reports] docs_url``, opened
in headless Chromium from a rule ID's link in a real U.S.N. report: the link leads to
the rule's own entry in the rule index."""

from __future__ import annotations

import base64
import os
import re
from dataclasses import replace
from pathlib import Path

from sqlalchemy import select

from pbem.config import Config, ReportsConfig, SecretsConfig
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.reports.site import write_site
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import Report

from .test_archive_site import T0, browse

RULE_LINK = re.compile(r'href="([^"]*/usn-rule-index\.html#([A-Z][A-Z0-9.]+))"')


def test_a_rule_link_in_a_real_report_opens_the_rules_entry_in_the_published_docs(
    sqlite_url: str, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    key = base64.b64encode(os.urandom(32)).decode()
    config = replace(
        Config(secrets=SecretsConfig(plot_key=key), base_dir=tmp_path),
        reports=ReportsConfig(docs_url=(site / "docs").as_uri()),
    )
    engine = make_engine(sqlite_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), T0), Publisher())
        gm.acts.create_game("coral", "usn", "coral-sea")
        for side in ("japanese", "allied"):
            gm.acts.assign(
                "coral", side, f"{side}@example.org", public_key=generate_keypair(side)[1]
            )
        gm.acts.start("coral")
    with sessions() as s:
        write_site(s, "coral", site, unfinished=True)
        report = s.scalars(select(Report).where(Report.audience == "allied")).first()
    engine.dispose()
    assert report is not None

    # The report's HTML part, as the player got it, in the browser.
    mailed = site / "reports" / f"{report.id:04d}-allied.html"
    dom = browse(mailed.as_uri(), tmp_path / "profile1", "--dump-dom").stdout
    found = RULE_LINK.findall(dom)
    assert found, "the report links no rule ID to the rule index"
    href, rule = found[0]
    assert href.startswith(config.reports.docs_url + "/")

    # Following the link: the published rule index, at the rule's own row.
    index = browse(href, tmp_path / "profile2", "--dump-dom").stdout
    assert "<h1" in index and "U.S.N. rule index" in index
    row = re.search(
        rf'<tr>\s*<td><a id="{re.escape(rule)}"></a>{re.escape(rule)}</td>(.*?)</tr>', index, re.S
    )
    assert row is not None, f"no entry for {rule} in the published rule index"
    assert "line" in row.group(1)  # its rulebook section and line, then the summary

    # The guide is published beside it, and the report names it.
    assert f'href="{config.reports.docs_url}/usn-guide.html"' in dom
    guide = browse(f"{config.reports.docs_url}/usn-guide.html", tmp_path / "profile3", "--dump-dom")
    assert "A turn by mail, worked" in guide.stdout

    # The archive site's index leads to the same docs.
    assert 'href="docs/index.html"' in (site / "index.html").read_text(encoding="utf-8")
