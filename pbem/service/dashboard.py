"""``pbem mod dashboard``: the moderator's dashboard, served read-only on loopback.

Every GET of ``/`` builds the page afresh from the database (so it shows the
state as it is now), in a transaction that is rolled back: the server never
writes. It listens on 127.0.0.1 only; no other address is accepted, since the
page names players' addresses and who is late.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pbem.config import Config
from pbem.core.errors import ConfigError
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.season import dashboard_page
from pbem.service.clock import utcnow
from pbem.storage.db import make_engine, make_sessionmaker

log = logging.getLogger("pbem.dashboard")
LOOPBACK = "127.0.0.1"


class Pages:
    """Renders the dashboard from the configured database, one read per request."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.engine = make_engine(config.database.url, config.database)
        self.sessions = make_sessionmaker(self.engine)
        self.key = config.secrets.key_bytes()

    def build(self) -> str:
        with self.sessions() as s:
            try:
                return dashboard_page(GameMaster(Desk(s, self.config, self.key, utcnow())))
            finally:
                s.rollback()  # read-only: nothing of a request is ever committed

    def close(self) -> None:
        self.engine.dispose()


class _Handler(BaseHTTPRequestHandler):
    build: Callable[[], str]

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] not in ("/", "/index.html"):
            self.send_error(404, "the dashboard is at /")
            return
        try:
            body = self.build().encode("utf-8")
        except Exception:  # a bad moment of the database: say so, keep serving
            log.exception("dashboard page failed")
            self.send_error(503, "the dashboard cannot read the database now; reload")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        log.info("dashboard: " + format, *args)


class DashboardServer(ThreadingHTTPServer):
    """The HTTP server on 127.0.0.1; ``close`` also lets go of the database."""

    def __init__(self, config: Config, port: int) -> None:
        self.pages = Pages(config)
        handler = type("DashboardHandler", (_Handler,), {"build": staticmethod(self.pages.build)})
        try:
            super().__init__((LOOPBACK, port), handler)
        except OSError as exc:
            self.pages.close()
            raise ConfigError(f"cannot serve on {LOOPBACK}:{port}: {exc.strerror or exc}") from None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}/"

    def server_close(self) -> None:
        super().server_close()
        self.pages.close()


def serve(config: Config, port: int, ready: Callable[[str], None]) -> None:
    """Serve until interrupted; ``ready`` gets the URL once the port is bound (port 0:
    any free port)."""
    with DashboardServer(config, port) as server:
        ready(server.url)
        server.serve_forever()
