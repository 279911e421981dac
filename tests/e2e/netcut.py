"""A TCP proxy a test can cut: the server behind it stays up, the path to it goes.

Stopping Dovecot makes it say BYE before it closes; a broken network path says
nothing. ``cut`` aborts every connection through the proxy (no BYE, no FIN) and
refuses new ones until ``restore``. Runs in the test's event loop.

``silence_on`` breaks the path the moment the client sends a given command: the
bytes from then on go nowhere, both ways, and the connection stays open (a
packet filter's drop, timed to the byte).

Listening on another address (``host``, ``port``), it is also a plain forwarder:
tests/e2e/netns.py puts one on each network namespace's link to reach the lab.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.maillab import free_port


class CuttableProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.target_port = target_port
        self.host = host
        self.port = port or free_port()
        self._server: asyncio.Server | None = None
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._pipes: set[asyncio.Task[None]] = set()
        self._silence_on: bytes | None = None
        self.silenced = asyncio.Event()  # set once a silence_on marker went by

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        link = (writer, up_writer)
        self._links.add(link)
        for source, sink, upward in ((reader, up_writer, True), (up_reader, writer, False)):
            task = asyncio.create_task(self._pipe(source, sink, upward))
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)

    async def _pipe(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, upward: bool
    ) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while data := await source.read(65536):
                marker = self._silence_on
                if upward and marker is not None and marker in data:
                    self.silenced.set()
                if self.silenced.is_set():
                    continue  # dropped on the way: nobody is told
                sink.write(data)
                await sink.drain()
        with contextlib.suppress(OSError, RuntimeError):
            sink.close()

    async def cut(self) -> None:
        """Drop every connection at once and refuse new ones."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for client, upstream in self._links:
            client.transport.abort()
            upstream.transport.abort()
        self._links.clear()
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    def silence_on(self, marker: bytes) -> None:
        """Drop everything, both ways, from the client's first bytes holding ``marker``
        (that chunk included) until ``restore``; no connection is closed."""
        self._silence_on = marker
        self.silenced.clear()

    async def restore(self) -> None:
        self._silence_on = None
        self.silenced.clear()
        if self._server is None:
            await self.start()

    async def close(self) -> None:
        await self.cut()
