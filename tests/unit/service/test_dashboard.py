"""The dashboard server (pbem.service.dashboard): loopback only, read-only, fresh per
request; the worklist and a game's page."""

from __future__ import annotations

import base64
import dataclasses
import os
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
import pytest

from pbem.config import Config, DatabaseConfig, ModeratorConfig, SecretsConfig
from pbem.core.errors import ConfigError
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.reports.dashboard import urgency
from pbem.service.dashboard import Dashboard
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import Report


@pytest.fixture
def config(sqlite_url: str, tmp_path: Path) -> Config:
    key = base64.b64encode(os.urandom(32)).decode()
    config = Config(
        database=DatabaseConfig(url=sqlite_url),
        secrets=SecretsConfig(plot_key=key),
        moderator=ModeratorConfig(timezone="Europe/Berlin"),
        base_dir=tmp_path,
    )
    engine = make_engine(sqlite_url)
    create_all(engine)
    engine.dispose()
    return config


def act(config: Config, fn, now: datetime | None = None) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(config.database.url)
    with make_sessionmaker(engine).begin() as s:
        desk = Desk(s, config, config.secrets.key_bytes(), now or datetime.now(UTC))
        fn(GameMaster(desk, Publisher()))
    engine.dispose()


def start_game(gm: GameMaster, game_id: str, **settings: object) -> None:
    gm.acts.create_game(game_id, "demo", "duel", settings=settings or None)
    for side in ("north", "south"):
        gm.acts.assign(game_id, side, f"{side}@example.org", public_key=generate_keypair(side)[1])
    gm.acts.start(game_id)


def dispute(gm: GameMaster, game_id: str, side: str, text: str) -> None:
    """Turn 1 adjudicated, then a dispute of it filed."""
    gm.phases.submit(game_id, "north", 1, "plot", ["SEND SQN-1 A"])
    gm.phases.adjudicate_now(game_id)
    gm.disputes.file(game_id, side, 1, "plot", text)


@pytest.fixture
async def board(config: Config) -> AsyncIterator[Dashboard]:
    running = await Dashboard(config).start(0)
    try:
        yield running
    finally:
        await running.close()


async def get(board: Dashboard, path: str, method: str = "GET") -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, board.url.rstrip("/") + path) as response,
    ):
        return response.status, await response.text()


async def test_dashboard_is_on_loopback_and_built_afresh(config: Config, board: Dashboard) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", board.url)
    status, page = await get(board, "/")
    assert status == 200 and "No games yet" in page
    act(config, lambda gm: start_game(gm, "g7"))
    status, page = await get(board, "/index.html")
    assert status == 200 and 'id="game-g7"' in page and "turn 1 plot" in page
    assert "north: missing" in page and "Nobody is late." in page
    assert '<a href="game/g7">' in page


async def test_the_worklist_puts_what_waits_for_the_moderator_first(
    config: Config, board: Dashboard
) -> None:
    t0 = datetime.now(UTC)

    def setup(gm: GameMaster) -> None:
        start_game(gm, "a-calm", deadline_hours=48)
        start_game(gm, "b-soon", deadline_hours=2)
        start_game(gm, "c-late", deadline_hours=1)
        start_game(gm, "d-disputed", deadline_hours=48)
        gm.acts.create_game("e-new", "demo", "duel")

    act(config, setup, t0 - timedelta(hours=1, minutes=30))  # c-late's deadline has passed
    act(config, lambda gm: gm.acts.pause("a-calm", "a player is away"))

    act(config, lambda gm: dispute(gm, "d-disputed", "south", "my SQN-1 was\nplaced wrong"))
    _, page = await get(board, "/")
    order = re.findall(r'<tr id="game-([\w-]+)"', page)
    assert order == ["d-disputed", "c-late", "a-calm", "b-soon", "e-new"]
    row = page.split('id="game-d-disputed"')[1].split("</tr>")[0]
    assert '<span class="mark dispute">1 dispute(s) waiting</span>' in row
    assert '<span class="mark late">late: north, south</span>' in page
    assert '<span class="mark held">paused</span>' in page
    # Deadlines in the moderator's zone (Europe/Berlin) and in UTC beside it.
    assert re.search(r"\d\d:\d\d CES?T <span class=\"utc\">\d\d-\d\d \d\d:\d\d UTC</span>", row)


async def test_a_games_page_shows_seats_deadline_reports_and_disputes(
    config: Config, board: Dashboard
) -> None:
    act(config, lambda gm: start_game(gm, "g1", deadline_hours=24))

    def more(gm: GameMaster) -> None:
        dispute(gm, "g1", "north", "x" * 400)
        gm.desk.session.add(
            Report(
                game_id="g1",
                audience="south",
                created_at=datetime.now(UTC),
                subject="g1: turn 1",
                text="Turn 1 report for south",
            )
        )

    act(config, more)
    status, page = await get(board, "/game/g1")
    assert status == 200
    seats = page.split('id="seats"')[1].split("</section>")[0]
    assert "north@example.org" in seats and "south@example.org" in seats
    assert "ed25519 SHA256:" in seats and "UTC" in seats and "missing" in seats
    deadline = page.split('id="deadline"')[1].split("</p>")[0]
    assert re.search(r"CES?T</b> <span class=\"utc\">\([\d-]+ \d\d:\d\d UTC\)", deadline)
    reports = page.split('id="reports"')[1].split("</section>")[0]
    assert "Turn 1 report for south" in reports and "for <span" in reports
    disputes = page.split('id="disputes"')[1].split("</section>")[0]
    assert "1 open" in disputes and "x" * 400 in disputes
    assert '<a href="../">' in page


async def test_dashboard_answers_only_reads_of_its_pages(board: Dashboard) -> None:
    assert (await get(board, "/etc/passwd"))[0] == 404
    assert (await get(board, "/game/nosuch"))[0] == 404
    assert (await get(board, "/", "POST"))[0] == 405
    assert (await get(board, "/game/g1", "DELETE"))[0] == 405
    assert (await get(board, "/", "HEAD"))[0] == 200


async def test_a_port_in_use_is_a_clear_error(config: Config, board: Dashboard) -> None:
    second = Dashboard(config)
    with pytest.raises(ConfigError, match=r"cannot serve on 127\.0\.0\.1:\d+"):
        await second.start(board.site.port)


def test_the_moderators_time_zone_is_checked() -> None:
    with pytest.raises(ConfigError, match="no IANA time zone"):
        dataclasses.replace(ModeratorConfig(), timezone="Mars/Olympus")


def test_the_worklists_order_puts_what_waits_on_the_moderator_before_deadlines() -> None:
    """urgency(): disputes waiting, late players, failed mail, held games, then the
    soonest deadline; not started, then finished, last. A held game (no deadline)
    and failed mail come before a deadline a minute away: they wait on the moderator."""
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def game(
        name: str, status: str = "running", deadline: timedelta | None = None, **marks: object
    ) -> dict[str, object]:
        return {
            "id": name,
            "status": status,
            "deadline": now + deadline if deadline is not None else None,
            "open_disputes": marks.get("disputes", 0),
            "late": marks.get("late", []),
            "failed": marks.get("failed", 0),
        }

    games = [
        game("over", "over"),
        game("new", "created"),
        game("later", deadline=timedelta(days=2)),
        game("soonest", deadline=timedelta(minutes=1)),
        game("held", "held (rollback to turn 1 phase plot)"),
        game("paused", "paused"),
        game("failed", deadline=timedelta(days=3), failed=1),
        game("late", deadline=timedelta(hours=-1), late=["south"]),
        game("disputed", "waiting-for-ruling (1 open dispute(s))", disputes=1),
        game("late-and-failed", deadline=timedelta(hours=-2), late=["north"], failed=2),
    ]
    order = [g["id"] for g in sorted(games, key=urgency)]
    assert order == [
        "disputed",
        "late-and-failed",
        "late",
        "failed",
        "held",
        "paused",
        "soonest",
        "later",
        "new",
        "over",
    ]
