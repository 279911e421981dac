"""`pbem archive html`: the static site of a finished game, opened in headless Chromium.

Chromium comes from Debian's package (``apt-get install -y chromium``); the
test installs it when it is missing. It runs with a fresh profile and no
network features, loads the site from file:// URLs, prints the DOM it built
and takes a screenshot (kept in the test's tmp folder for a human to look at).
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import Config, SecretsConfig
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.reports.site import write_site
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import Report

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:  # Debian's package; bin/test and .ci/run install it too
        subprocess.run(["apt-get", "install", "-y", "chromium"], check=True, capture_output=True)
        found = shutil.which("chromium")
    assert found is not None, "chromium is not installed (apt-get install -y chromium)"
    return found


def browse(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, url],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


@pytest.fixture
def finished_game(sqlite_url: str, tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    """A demo game played to its end through the lifecycle, with an observer."""
    engine = make_engine(sqlite_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    key = base64.b64encode(os.urandom(32)).decode()
    config = Config(secrets=SecretsConfig(plot_key=key), base_dir=tmp_path)

    def gm(s: Session) -> GameMaster:
        return GameMaster(Desk(s, config, config.secrets.key_bytes(), T0), Publisher())

    with sessions.begin() as s:
        m = gm(s)
        m.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": True})
        for side in ("north", "south"):
            m.acts.assign("g1", side, f"{side}@example.org", public_key=generate_keypair(side)[1])
        m.acts.add_observer("g1", "watcher@example.org", None)
        m.acts.start("g1")
    for turn in (1, 2, 3):
        with sessions.begin() as s:
            m = gm(s)
            m.phases.submit("g1", "north", turn, "plot", ["SEND SQN-1 A", "SEND SQN-2 B"])
            m.phases.adjudicate_now("g1")
    yield sessions
    engine.dispose()


def test_archive_site_opens_in_headless_chromium(
    finished_game: sessionmaker[Session], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    with finished_game() as s:
        index = write_site(s, "g1", out)
        reports = list(s.scalars(select(Report).order_by(Report.id)))
    assert reports and all(r.html and r.png for r in reports)
    # Each report's HTML part is on the site exactly as it was mailed.
    first = reports[0]
    assert (out / "reports" / f"{first.id:04d}-{first.audience}.html").read_text() == first.html

    dom = browse(index.as_uri(), tmp_path / "profile1", "--dump-dom").stdout
    assert "Game g1" in dom and "Verdict" in dom
    for audience in ("north", "south", "omniscient"):
        assert f">{audience}</th>" in dom
    assert 'href="record.html"' in dom
    # Readable times: weekday, date and minute in UTC, no ISO microseconds.
    assert re.search(r"<td>\w{3} \d\d \w{3} 20\d\d \d\d:\d\d UTC</td>", dom)
    assert "+00:00" not in dom
    # Once the game is over: the omniscient map of its end, and the story of it.
    assert 'src="final-map.png"' in dom and (out / "final-map.png").read_bytes().startswith(
        b"\x89PNG"
    )
    story = browse((out / "narrative.html").as_uri(), tmp_path / "profile6", "--dump-dom").stdout
    for turn in (1, 2, 3):
        assert f"<h2>Turn {turn}</h2>" in story
    assert "SEND SQN-1 A; SEND SQN-2 B" in story  # north's orders, each turn

    page = out / "reports" / f"{first.id:04d}-north.page.html"
    if not page.exists():
        page = next((out / "reports").glob("*-north.page.html"))
    dom = browse(page.as_uri(), tmp_path / "profile2", "--dump-dom").stdout
    assert "What is expected of you" in dom and "<img" in dom

    record = browse((out / "record.html").as_uri(), tmp_path / "profile3", "--dump-dom").stdout
    assert "phase-adjudicated" in record and "game-over" in record
    assert "<b>report-queued</b>" not in record  # mail bookkeeping, not play

    shot = tmp_path / "index.png"
    browse(index.as_uri(), tmp_path / "profile4", f"--screenshot={shot}", "--window-size=1000,800")
    with Image.open(shot) as img:
        assert img.size == (1000, 800)
        # Not a blank page: the style's dark text and the table borders are drawn.
        colours = img.convert("L").getcolors(maxcolors=1 << 16)
        assert colours is not None and len(colours) > 10
    saved = os.environ.get("PBEM_SCREENSHOT_DIR")
    if saved:  # for a human to look at: PBEM_SCREENSHOT_DIR=/tmp bin/test ...
        shutil.copy(shot, Path(saved) / "archive-index.png")
        page_shot = Path(saved) / "archive-report.png"
        browse(
            page.as_uri(),
            tmp_path / "profile5",
            f"--screenshot={page_shot}",
            "--window-size=1000,1400",
        )
