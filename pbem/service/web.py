"""The daemon's two read-only web pages (the moderator's dashboard and the metrics)
served by aiohttp, on the loopback interface.

aiohttp parses HTTP: request lines and header fields beyond ``MAX_FIELD`` bytes
are answered 400, as are more than ``MAX_HEADERS`` fields. It has no deadline for
a request still arriving, so a :class:`Site` cuts every connection older than
``connection_seconds`` (a client that sends a header a minute keeps no socket),
and an idle kept-alive connection after ``KEEPALIVE_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from pbem.core.errors import ConfigError

log = logging.getLogger("pbem.service.web")

LOOPBACK = "127.0.0.1"
MAX_FIELD = 8190  # bytes of the request line and of each header field
MAX_HEADERS = 64
KEEPALIVE_SECONDS = 5.0
# Longest a connection may live: reading the request, building the page, sending it.
CONNECTION_SECONDS = 30.0
READ_ONLY = ("GET", "HEAD")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def read_only(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Anything but a read is refused before routing: these pages never change a thing."""
    if request.method not in READ_ONLY:
        raise web.HTTPMethodNotAllowed(request.method, READ_ONLY, text="read-only: use GET\n")
    response = await handler(request)
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def application() -> web.Application:
    """An application that only reads, with no request body accepted."""
    return web.Application(middlewares=[read_only], client_max_size=1024)


class Site:
    """One aiohttp application on HOST:PORT (port 0: any free port) in the running loop."""

    def __init__(
        self, app: web.Application, name: str, *, connection_seconds: float = CONNECTION_SECONDS
    ) -> None:
        """``name``: of the access log, ``pbem.web.NAME`` (a line per request at INFO)."""
        self.runner = web.AppRunner(
            app,
            access_log=logging.getLogger(f"pbem.web.{name}"),
            handle_signals=False,
            shutdown_timeout=1.0,
            keepalive_timeout=KEEPALIVE_SECONDS,
            max_line_size=MAX_FIELD,
            max_field_size=MAX_FIELD,
            max_headers=MAX_HEADERS,
        )
        self.connection_seconds = connection_seconds
        self.port = 0
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self, host: str, port: int) -> Site:
        await self.runner.setup()
        site = web.TCPSite(self.runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            await self.runner.cleanup()
            raise ConfigError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
        self.host, self.port = host, self.runner.addresses[0][1]  # which port "0" became
        self._sweeper = asyncio.create_task(self._cut_old_connections(), name="web-connections")
        return self

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.runner.cleanup()

    async def _cut_old_connections(self) -> None:
        """Every connection is closed ``connection_seconds`` after it was first seen:
        a slow client (one header line at a time) holds no socket for long."""
        loop = asyncio.get_running_loop()
        seen: dict[web.RequestHandler, float] = {}  # connection -> when first seen
        step = min(1.0, self.connection_seconds / 4)
        while True:
            await asyncio.sleep(step)
            server = self.runner.server
            if server is None:
                return
            now = loop.time()
            seen = {h: seen.get(h, now) for h in server.connections}  # the gone ones dropped
            for handler, since in seen.items():
                if now - since >= self.connection_seconds:
                    log.info("web: a connection open %.0f s was cut", self.connection_seconds)
                    handler.force_close()
