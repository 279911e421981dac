"""``pbem mod dashboard``: the moderator's dashboard, served read-only on loopback
by aiohttp (pbem.service.web).

``/`` is the worklist over every game, ``/game/ID`` one game's page. Every GET
builds its page afresh from the database (so it shows the state as it is now),
in a thread, in a transaction that is rolled back: the server never writes. It
listens on 127.0.0.1 only; no other address is accepted, since the pages name
players' addresses and who is late.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime
from typing import Any, TypeVar

from aiohttp import web
from sqlalchemy import select

from pbem.config import Config
from pbem.core.errors import LifecycleError
from pbem.lifecycle.deadlines import local_time
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.season import GameLine, dispute_lines, failed_mail, game_line, overview, when
from pbem.reports.dashboard import render_dashboard, render_game
from pbem.service.clock import utcnow
from pbem.service.web import LOOPBACK, Site, application
from pbem.storage.db import make_engine, make_sessionmaker
from pbem.storage.enums import SeatRole
from pbem.storage.models import Phase, Report, Seat, SeatKey

log = logging.getLogger("pbem.dashboard")
# Reports shown on a game's page, newest first.
LAST_REPORTS = 6

T = TypeVar("T")


def game_values(line: GameLine, zone: str, failed: int) -> dict[str, Any]:
    """A GameLine as the page reads it: the deadline in the moderator's zone and UTC."""
    at = line.deadline
    return {
        **asdict(line),
        "deadline_local": local_time(at, zone) if at else "none",
        # A stopped game's deadline does not run: never shown as if it passed.
        "deadline_short": (local_time(at, zone, year=False) if at else "")
        + ("" if line.live or line.turn is None or not at else " (stopped)"),
        "deadline_utc": when(at) if at and zone != "UTC" else "",
        "failed": failed,
    }


def seat_values(
    gm: GameMaster, game_id: str, sides: dict[str, str], late: list[str]
) -> list[dict[str, Any]]:
    """Players and observers: address, time zone, keys, and each player's orders."""
    s = gm.desk.session
    seats = s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.id)).all()
    keys: dict[int, list[str]] = {}
    for k in s.scalars(select(SeatKey).where(SeatKey.seat_id.in_([x.id for x in seats]))):
        keys.setdefault(k.seat_id, []).append(
            f"{k.kind} {k.fingerprint}" + (" (retired)" if k.retired_at else "")
        )
    out = []
    for seat in seats:
        player = seat.role == SeatRole.PLAYER
        orders = ("LATE" if seat.side in late else sides.get(seat.side or "", "")) if player else ""
        out.append(
            {
                "who": f"{seat.side} player"
                if player
                else f"observer ({seat.side or 'omniscient'})",
                "side": seat.side,
                "email": seat.email,
                "timezone": seat.timezone,
                "active": seat.active,
                "orders": orders,
                "keys": ", ".join(keys.get(seat.id, [])) or "no key",
            }
        )
    return out


def last_reports(gm: GameMaster, game_id: str) -> list[dict[str, Any]]:
    stmt = (
        select(Report, Phase)
        .outerjoin(Phase, Report.phase_id == Phase.id)
        .where(Report.game_id == game_id)
        .order_by(Report.id.desc())
        .limit(LAST_REPORTS)
    )
    return [
        {
            "sent": when(r.created_at),
            "turn": p.turn if p else "",
            "phase": p.name if p else "",
            "audience": r.audience,
            "subject": r.subject,
            "text": r.text,
        }
        for r, p in gm.desk.session.execute(stmt)
    ]


def worklist_page(gm: GameMaster, now: datetime, zone: str) -> str:
    """The worklist as of ``now``, deadlines in the moderator's ``zone`` and UTC."""
    failed = failed_mail(gm)
    games = [game_values(g, zone, sum(m["game"] == g.id for m in failed)) for g in overview(gm)]
    return render_dashboard(when(now), zone, games, dispute_lines(gm, None), failed)


class Pages:
    """Renders the pages from the configured database, one read per request."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.zone = config.moderator.timezone
        self.engine = make_engine(config.database.url, config.database)
        self.sessions = make_sessionmaker(self.engine)
        self.key = config.secrets.key_bytes()

    def _read(self, build: Callable[[GameMaster, datetime], T]) -> T:
        with self.sessions() as s:
            try:
                now = utcnow()
                return build(GameMaster(Desk(s, self.config, self.key, now)), now)
            finally:
                s.rollback()  # read-only: nothing of a request is ever committed

    def worklist(self) -> str:
        return self._read(lambda gm, now: worklist_page(gm, now, self.zone))

    def game(self, game_id: str) -> str:
        """One game's page; LifecycleError if there is no such game."""

        def build(gm: GameMaster, now: datetime) -> str:
            line = game_line(gm, gm.lookups.game(game_id, lock=False))
            failed = [m for m in failed_mail(gm) if m["game"] == line.id]
            return render_game(
                when(now),
                game_values(line, self.zone, len(failed)),
                seat_values(gm, line.id, line.sides, line.late),
                dispute_lines(gm, line.id),
                last_reports(gm, line.id),
                failed,
            )

        return self._read(build)

    def close(self) -> None:
        self.engine.dispose()


def dashboard_app(pages: Pages) -> web.Application:
    async def page(build: Callable[[], str]) -> web.Response:
        try:
            body = await asyncio.to_thread(build)
        except LifecycleError as exc:
            raise web.HTTPNotFound(text=f"{exc}\n") from None
        except Exception:  # a bad moment of the database: say so, keep serving
            log.exception("dashboard page failed")
            raise web.HTTPServiceUnavailable(
                text="the dashboard cannot read the database now; reload\n"
            ) from None
        return web.Response(text=body, content_type="text/html", charset="utf-8")

    async def worklist(request: web.Request) -> web.Response:
        return await page(pages.worklist)

    async def game(request: web.Request) -> web.Response:
        game_id = request.match_info["game_id"]
        # A game id is letters, digits, '-' and '_' (CREATE): anything else names no
        # game, and is not asked of the database (PostgreSQL refuses a NUL in a text).
        if len(game_id) > 64 or not game_id.replace("-", "").replace("_", "").isalnum():
            raise web.HTTPNotFound(text=f"no game {game_id!r}\n")
        return await page(lambda: pages.game(game_id))

    app = application()
    app.router.add_get("/", worklist)
    app.router.add_get("/index.html", worklist)
    app.router.add_get("/game/{game_id}", game)
    return app


class Dashboard:
    """The dashboard's site on 127.0.0.1; ``close`` also lets go of the database."""

    def __init__(self, config: Config) -> None:
        self.pages = Pages(config)
        self.site = Site(dashboard_app(self.pages), "dashboard")

    async def start(self, port: int) -> Dashboard:
        try:
            await self.site.start(LOOPBACK, port)
        except Exception:
            self.pages.close()
            raise
        return self

    @property
    def url(self) -> str:
        return self.site.url

    async def close(self) -> None:
        await self.site.close()
        self.pages.close()


async def run(config: Config, port: int, ready: Callable[[str], None]) -> None:
    """Serve until cancelled; ``ready`` gets the URL once the port is bound."""
    board = await Dashboard(config).start(port)
    try:
        ready(board.url)
        await asyncio.Event().wait()
    finally:
        await board.close()


def serve(config: Config, port: int, ready: Callable[[str], None]) -> None:
    """Serve until interrupted (port 0: any free port)."""
    asyncio.run(run(config, port, ready))
