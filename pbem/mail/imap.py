"""IMAP intake with aioimaplib 2.x.

- Bodies are fetched with ``BODY.PEEK[]`` so that nothing is marked seen, moved or
  deleted before :meth:`ImapInbox.acknowledge`, which the caller invokes only after
  committing what the message carried.
- ``ref`` is ``"UIDVALIDITY:UID"``: stable across connections, and a changed
  UIDVALIDITY makes old refs recognisably stale.
- Any connection failure closes the session and reconnects with a capped
  backoff; while it waits, a probe of the server's port every PROBE_SECONDS
  ends the wait as soon as a port found closed accepts again (a server restarted
  is answered within a second or two of its return, not at the next backoff);
  :meth:`ImapInbox.fetch` and :meth:`ImapInbox.wait_for_mail` only raise
  :class:`~pbem.core.errors.TransportError` once the inbox is closed.
- :meth:`ImapInbox.wait_for_mail` uses IDLE when the server offers it, polling otherwise.
- Each message comes with its INTERNALDATE (when the server stored it), and
  :attr:`ImapInbox.unreachable_since` tells when the server last answered while
  it does not: lateness and deadline push-back rest on both.
- A session dropped or closed takes its IDLE and other pending aioimaplib tasks
  with it (cancelled and awaited), so none is left to be destroyed pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import aioimaplib

from pbem.core.errors import TransportError
from pbem.mail.base import InboundMessage

log = logging.getLogger("pbem.mail.imap")

T = TypeVar("T")

_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]")
_FETCH_START = re.compile(rb"\d+ FETCH \(")
_UID_ITEM = re.compile(rb"[( ]UID (\d+)")
_INTERNALDATE_ITEM = re.compile(rb'INTERNALDATE "([^"]+)"')
_EXISTS = re.compile(rb"^\d+ EXISTS$")
# Well-behaved servers end IDLE after 30 min; restart it well before that.
_MAX_IDLE = 25 * 60.0
# Seconds between the probes of the server's port while a reconnect waits (each
# probe bounded by as much): the backoff's cap matters only for a server that
# accepts connections and fails the session (a login refused, a server starting).
PROBE_SECONDS = 1.0


class _Reconnect(Exception):
    """The session is unusable: drop it and connect again after a backoff."""


class _Refused(_Reconnect):
    """The server answered NO or BAD: the connection is fine, the command was not."""


def _quote_mailbox(name: str) -> str:
    if not name or any(c in name for c in "\r\n\0") or not name.isascii():
        # Modified UTF-7 (RFC 3501 5.1.3) is not implemented: keep folder names ASCII.
        raise TransportError(f"unsupported IMAP folder name {name!r}")
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _uids_from_search(lines: Sequence[Any]) -> list[int]:
    # Untagged "SEARCH 1 2 3" arrives as b"1 2 3"; the last line is the tagged status text.
    uids: list[int] = []
    for line in lines[:-1]:
        if isinstance(line, bytes | bytearray):
            uids.extend(int(tok) for tok in bytes(line).split() if tok.isdigit())
    return uids


def parse_internaldate(value: bytes) -> datetime | None:
    """RFC 3501 date-time ("01-Dec-2026 19:09:02 +0000") as aware UTC; None if malformed."""
    try:
        when = datetime.strptime(value.decode("ascii").strip(), "%d-%b-%Y %H:%M:%S %z")
    except (UnicodeDecodeError, ValueError):
        return None
    return when.astimezone(UTC)


def _messages_from_fetch(lines: Sequence[Any]) -> dict[int, tuple[bytes, datetime | None]]:
    """Map UID → (raw bytes, INTERNALDATE) from an aioimaplib FETCH response.

    aioimaplib gives ``b"n FETCH (UID u INTERNALDATE "..." BODY[] {size}"``, then the
    literal as a ``bytearray``, then the rest of the item list (``b")"``, or
    ``b" UID u)"`` on servers that put the UID or the date after the body).
    """
    found: dict[int, tuple[bytes, datetime | None]] = {}
    uid: int | None = None
    body: bytes | None = None
    when: datetime | None = None
    for line in lines:
        if isinstance(line, bytearray):
            body = bytes(line)
            continue
        if _FETCH_START.match(line):
            match = _UID_ITEM.search(line)
            uid = int(match.group(1)) if match else None
            body = when = None
        elif body is not None and uid is None and (match := _UID_ITEM.search(line)):
            uid = int(match.group(1))
        if (date := _INTERNALDATE_ITEM.search(line)) is not None:
            when = parse_internaldate(date.group(1))
        if uid is not None and body is not None:
            found[uid] = (body, when)
            uid = body = when = None
    return found


@dataclass(eq=False)
class _Ack:
    """One queued acknowledgement; ``done`` once its batch went out (or was refused)."""

    ref: str
    validity: int
    uid: int
    done: bool = False
    error: str | None = None


class ImapInbox:
    """An :class:`~pbem.mail.base.Inbox` on an IMAP folder.

    Calls are serialised on one session. ``wait_for_mail`` gives way: if another task
    calls ``fetch`` or ``acknowledge`` meanwhile, it ends its IDLE and returns early.
    """

    def __init__(
        self,
        host: str,
        port: int,
        user: str,
        password: str,
        *,
        folder: str = "INBOX",
        processed_folder: str | None = "pbem-processed",
        use_tls: bool = False,
        poll_interval: float = 30.0,
        backoff: Sequence[float] = (1, 2, 5, 10),
        command_timeout: float = 30.0,
        ssl_context: ssl.SSLContext | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        if not backoff:
            raise ValueError("backoff needs at least one delay")
        self.host = host
        self.port = port
        self.user = user
        self._password = password
        self.folder = folder
        self.processed_folder = processed_folder
        self.use_tls = use_tls
        self.poll_interval = poll_interval
        self.backoff = tuple(float(b) for b in backoff)
        self.command_timeout = command_timeout
        self.ssl_context = ssl_context
        self._client: aioimaplib.IMAP4 | None = None
        self._lost = asyncio.Event()
        self._closing = asyncio.Event()
        self._lock = asyncio.Lock()
        self._waiting = 0  # callers queued for the lock
        self._someone_waits = asyncio.Event()
        self._failures = 0  # consecutive failed connections, indexes the backoff
        self._uidvalidity = 0
        self._highest_returned = 0  # highest UID some fetch has handed out
        self._acks: list[_Ack] = []  # acknowledgements not yet sent (see acknowledge)
        self.connections = 0  # successful logins so far (observable by tests/metrics)
        self.clock = clock
        self._session_up = False  # logged in and selected, not lost since
        self._last_contact: datetime | None = None  # the server's last answer
        self._unreachable_since: datetime | None = None

    @property
    def unreachable_since(self) -> datetime | None:
        """None while the server answers; else when it last did (see Inbox)."""
        return self._unreachable_since

    # -- connection ---------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closing.is_set():
            raise TransportError(f"IMAP inbox {self.user}@{self.host}:{self.port} is closed")

    async def _guard(self, awaitable: Awaitable[T]) -> T:
        """Run one command; fail fast with _Reconnect if the connection drops meanwhile.

        aioimaplib does not fail pending commands when the socket closes: without this
        race a dead server would cost a full command timeout.
        """
        task = asyncio.ensure_future(awaitable)
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            await asyncio.wait({task, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
            unfinished = not task.done()
            if unfinished:  # connection lost, or our caller was cancelled
                task.cancel()
        if unfinished:
            raise _Reconnect("connection lost")
        try:
            result = task.result()
        except (OSError, TimeoutError, aioimaplib.AioImapException, ValueError) as exc:
            raise _Reconnect(f"{type(exc).__name__}: {exc}") from exc
        self._last_contact = self.clock()
        return result

    async def _ok(self, what: str, awaitable: Awaitable[Any]) -> Any:
        # Every command is bounded here: aioimaplib gives UID MOVE, COPY, STORE and
        # EXPUNGE no timeout, and a path that drops packets (no FIN, no reset) would
        # never end them, holding the mailbox's lease for ever.
        response = await self._guard(asyncio.wait_for(awaitable, self.command_timeout))
        if response.result != "OK":
            text = b" ".join(bytes(x) for x in response.lines).decode(errors="replace")
            raise _Refused(f"{what} refused: {response.result} {text}")
        return response

    async def _ok_but_gone(self, what: str, command: Callable[[], Awaitable[Any]]) -> None:
        """``what``, though some of its mails are gone: a server answers NO
        [EXPUNGEISSUED] (RFC 9051) when another session expunged some of the UIDs
        meanwhile (a peer daemon that took the mailbox over moved them on: they are
        acknowledged). It told us of those expunges with its answer, so the command
        asked once more acts on the rest, if any."""
        try:
            await self._ok(what, command())
        except _Refused as exc:
            if "EXPUNGEISSUED" not in str(exc):
                raise
            log.warning("%s: some of the mails were already moved on by another session", what)
            await self._ok(what, command())

    def _on_connection_lost(self, exc: Exception | None) -> None:
        if self._session_up and (exc is None or isinstance(exc, ConnectionResetError)):
            # A close or reset came from the other end (a server shutting down, a
            # broken path answering RST): it was within reach until this moment.
            self._last_contact = self.clock()
        self._session_up = False
        self._lost.set()

    async def _connect(self) -> aioimaplib.IMAP4:
        self._lost = asyncio.Event()
        client: aioimaplib.IMAP4
        if self.use_tls:
            client = aioimaplib.IMAP4_SSL(
                host=self.host,
                port=self.port,
                timeout=self.command_timeout,
                ssl_context=self.ssl_context,
            )
            # IMAP4_SSL takes no conn_lost_cb: attach it to the protocol directly.
            client.protocol.conn_lost_cb = self._on_connection_lost
        else:
            client = aioimaplib.IMAP4(
                host=self.host,
                port=self.port,
                timeout=self.command_timeout,
                conn_lost_cb=self._on_connection_lost,
            )
        self._client = client
        await self._guard(client.wait_hello_from_server())
        await self._ok("LOGIN", client.login(self.user, self._password))
        # Capabilities may change at login (RFC 3501 6.2.3) and aioimaplib merges the
        # old and new lists: ask again so IDLE/MOVE detection sees only the current ones.
        await self._guard(asyncio.wait_for(client.protocol.capability(), self.command_timeout))
        if self.processed_folder is not None:
            # NO [ALREADYEXISTS] is the usual answer and fine.
            await self._guard(client.create(_quote_mailbox(self.processed_folder)))
        selected = await self._ok("SELECT", client.select(_quote_mailbox(self.folder)))
        uidvalidity = 0
        for line in selected.lines:
            if isinstance(line, bytes) and (m := _UIDVALIDITY.search(line)):
                uidvalidity = int(m.group(1))
        if uidvalidity != self._uidvalidity:
            # New UID space: what we remember about UIDs no longer means anything.
            self._highest_returned = 0
            self._uidvalidity = uidvalidity
        self.connections += 1
        self._session_up = True
        if self._unreachable_since is not None:
            log.info(
                "IMAP %s:%d answers again (unreachable since %s)",
                self.host,
                self.port,
                self._unreachable_since.isoformat(),
            )
        self._unreachable_since = None
        log.info(
            "connected to %s:%d as %s, folder %s (UIDVALIDITY %d, IDLE %s, MOVE %s)",
            self.host,
            self.port,
            self.user,
            self.folder,
            uidvalidity,
            "yes" if client.has_capability("IDLE") else "no",
            "yes" if client.has_capability("MOVE") else "no",
        )
        return client

    async def _drop(self, reason: str) -> None:
        """Forget the session, log why, and sleep the next backoff delay (interruptible)."""
        client, self._client = self._client, None
        self._session_up = False
        if self._unreachable_since is None:
            self._unreachable_since = self._last_contact or self.clock()
        if client is not None:
            await _dispose(client)
        delay = self.backoff[min(self._failures, len(self.backoff) - 1)]
        self._failures += 1
        log.warning(
            "IMAP %s:%d: %s; reconnecting in %.1f s (attempt %d)",
            self.host,
            self.port,
            reason,
            delay,
            self._failures,
        )
        await self._back_off(delay)

    async def _back_off(self, delay: float) -> None:
        """Wait ``delay`` seconds before connecting again, or until the inbox is
        closed; or until the server's port, found closed by a probe, accepts again
        (the server is back: the backoff starts over)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + delay
        found_closed = False
        while not self._closing.is_set():
            left = end - loop.time()
            if left <= 0:
                return
            if await self._port_accepts(min(PROBE_SECONDS, left)):
                if found_closed:
                    log.info("IMAP %s:%d accepts connections again", self.host, self.port)
                    self._failures = 0
                    return
            else:
                found_closed = True
            left = end - loop.time()
            if left > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._closing.wait(), timeout=min(PROBE_SECONDS, left))

    async def _port_accepts(self, timeout: float) -> bool:
        """Whether the server's port accepts a TCP connection within ``timeout``
        (closed at once, unused: a probe, no session)."""
        try:
            _, writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), timeout
            )
        except (OSError, TimeoutError):
            return False
        writer.transport.abort()
        return True

    async def _session(self) -> aioimaplib.IMAP4:
        if self._client is not None and not self._lost.is_set():
            return self._client
        if self._client is not None:
            raise _Reconnect("connection lost")
        client = await self._connect()
        self._failures = 0
        return client

    @contextlib.asynccontextmanager
    async def _turn(self, *, yields: bool) -> AsyncIterator[None]:
        """Hold the session. While a non-yielding caller (fetch, acknowledge) waits for
        it, a yielding holder (wait_for_mail) ends its IDLE or poll and returns early."""
        if yields:
            async with self._lock:
                yield
            return
        self._waiting += 1
        self._someone_waits.set()
        try:
            await self._lock.acquire()
        finally:
            self._waiting -= 1
            if not self._waiting:
                self._someone_waits.clear()
        try:
            yield
        finally:
            self._lock.release()

    async def _with_reconnect(
        self,
        operation: Callable[[aioimaplib.IMAP4], Awaitable[T]],
        *,
        raise_refusals: bool = False,
        yields: bool = False,
    ) -> T:
        """Run ``operation(client)`` until it succeeds; raise only once closed.

        ``yields``: the operation gives way to other callers (see :meth:`_turn`).

        With ``raise_refusals`` a NO/BAD answer to the operation itself (not to LOGIN
        or SELECT) raises TransportError instead of looping: reconnecting cannot
        change the server's mind about, say, a folder it will not move mail into.
        """
        async with self._turn(yields=yields):
            while True:
                self._check_open()
                try:
                    client = await self._session()
                    try:
                        return await operation(client)
                    except _Refused as exc:
                        if raise_refusals:
                            raise TransportError(f"IMAP {self.host}:{self.port}: {exc}") from exc
                        raise
                except _Reconnect as exc:
                    await self._drop(str(exc))

    # -- Inbox ------------------------------------------------------------------------

    async def _search_uids(self, client: aioimaplib.IMAP4, *criteria: str) -> list[int]:
        response = await self._ok("UID SEARCH", client.uid_search(*criteria, charset=None))
        return sorted(set(_uids_from_search(response.lines)))

    async def fetch(self, limit: int = 100) -> list[InboundMessage]:
        async def operation(client: aioimaplib.IMAP4) -> list[InboundMessage]:
            # \Deleted but not expunged means acknowledged (delete mode): skip those.
            uids = (await self._search_uids(client, "UNDELETED"))[:limit]
            if not uids:
                return []
            response = await self._ok(
                "UID FETCH",
                client.uid("fetch", ",".join(map(str, uids)), "(UID INTERNALDATE BODY.PEEK[])"),
            )
            bodies = _messages_from_fetch(response.lines)
            messages = [
                InboundMessage(
                    ref=f"{self._uidvalidity}:{uid}",
                    raw=bodies[uid][0],
                    delivered_at=bodies[uid][1],
                )
                for uid in uids
                if uid in bodies  # expunged by someone else meanwhile
            ]
            if bodies:
                self._highest_returned = max(self._highest_returned, *bodies)
            log.info("fetched %d message(s) from %s", len(messages), self.folder)
            return messages

        return await self._with_reconnect(operation)

    async def acknowledge(self, ref: str) -> None:
        """Forget ``ref`` (see :class:`~pbem.mail.base.Inbox`).

        Acknowledgements queued while the session is busy go out together, one
        ``UID MOVE`` (or STORE/EXPUNGE) for all of them: a round trip per mail
        was the IMAP side's largest cost. Each caller still returns only once its
        own message is acknowledged, and raises if the server refused that batch.
        """
        try:
            validity_text, uid_text = ref.split(":", 1)
            validity, uid = int(validity_text), int(uid_text)
        except ValueError:
            raise TransportError(f"not an IMAP ref: {ref!r}") from None
        mine = _Ack(ref, validity, uid)
        self._acks.append(mine)

        async def operation(client: aioimaplib.IMAP4) -> None:
            if mine.done:
                return  # went out with another caller's batch
            batch = list(self._acks)
            try:
                await self._acknowledge_batch(client, batch)
            except _Refused as exc:
                self._settle(batch, f"IMAP {self.host}:{self.port}: {exc}")
                raise
            self._settle(batch, None)

        await self._with_reconnect(operation, raise_refusals=True)
        if mine.error is not None:
            raise TransportError(mine.error)

    async def acknowledge_many(self, refs: Sequence[str]) -> None:
        """Forget every ref of ``refs``: one command for the lot (see :meth:`acknowledge`)."""
        results = await asyncio.gather(*(self.acknowledge(r) for r in refs), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    def _settle(self, batch: list[_Ack], error: str | None) -> None:
        # Only now leave the queue: after a lost connection the batch is sent again.
        for ack in batch:
            ack.done, ack.error = True, error
        done = {id(ack) for ack in batch}
        self._acks = [ack for ack in self._acks if id(ack) not in done]

    async def _acknowledge_batch(self, client: aioimaplib.IMAP4, batch: list[_Ack]) -> None:
        stale = [a.ref for a in batch if a.validity != self._uidvalidity]
        if stale:
            # The server renumbered the folder: these UIDs may now be other mails.
            # Leave them; they come back under new refs and intake deduplicates them.
            log.warning(
                "not acknowledging %s: UIDVALIDITY is now %d", ", ".join(stale), self._uidvalidity
            )
        uids = sorted({a.uid for a in batch if a.validity == self._uidvalidity})
        if not uids:
            return
        uid_set = ",".join(map(str, uids))
        if self.processed_folder is None:
            await self._delete(client, uid_set)
            log.info("acknowledged %d message(s): deleted", len(uids))
        elif client.has_capability("MOVE"):
            folder = _quote_mailbox(self.processed_folder)
            await self._ok_but_gone("UID MOVE", lambda: client.uid("move", uid_set, folder))
            log.info("acknowledged %d message(s): moved to %s", len(uids), self.processed_folder)
        else:
            folder = _quote_mailbox(self.processed_folder)
            await self._ok_but_gone("UID COPY", lambda: client.uid("copy", uid_set, folder))
            await self._delete(client, uid_set)
            log.info("acknowledged %d message(s): copied to %s", len(uids), self.processed_folder)

    async def _delete(self, client: aioimaplib.IMAP4, uid_set: str) -> None:
        await self._ok("UID STORE", client.uid("store", uid_set, "+FLAGS.SILENT (\\Deleted)"))
        if client.has_capability("UIDPLUS"):
            await self._ok("UID EXPUNGE", client.uid("expunge", uid_set))
        # Without UIDPLUS a plain EXPUNGE could remove other clients' deleted mail:
        # leave it flagged; fetch skips \Deleted messages.

    async def _has_unreturned(self, client: aioimaplib.IMAP4) -> bool:
        # "n:*" always matches the highest UID, even below n: compare explicitly.
        first = self._highest_returned + 1
        uids = await self._search_uids(client, "UNDELETED", f"UID {first}:*")
        return any(uid >= first for uid in uids)

    async def wait_for_mail(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout

        async def operation(client: aioimaplib.IMAP4) -> None:
            while not await self._has_unreturned(client):
                remaining = deadline - loop.time()
                if remaining <= 0 or self._closing.is_set() or self._someone_waits.is_set():
                    return
                if client.has_capability("IDLE"):
                    if await self._idle(client, min(remaining, _MAX_IDLE)):
                        log.info("IDLE: new mail in %s", self.folder)
                else:
                    await self._sleep(min(self.poll_interval, remaining))
                    await self._ok("NOOP", client.noop())

        await self._with_reconnect(operation, yields=True)

    async def _sleep(self, seconds: float) -> None:
        """Sleep, waking early if the inbox is closed or wanted, or the connection is lost."""
        waiters = {
            asyncio.ensure_future(self._closing.wait()),
            asyncio.ensure_future(self._someone_waits.wait()),
            asyncio.ensure_future(self._lost.wait()),
        }
        try:
            await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        if self._lost.is_set():
            raise _Reconnect("connection lost")

    async def _idle(self, client: aioimaplib.IMAP4, seconds: float) -> bool:
        """One IDLE round of at most ``seconds``; True if the server announced EXISTS."""
        queue = client.protocol.idle_queue
        while not queue.empty():  # pushes left over from an earlier round are stale
            queue.get_nowait()
        started = set(client.tasks)
        try:
            # aioimaplib waits for the server's "+ idling" without a timeout: a path
            # that breaks as IDLE goes out would hold us (and our mailbox lease) for ever.
            idle = await self._guard(
                asyncio.wait_for(client.idle_start(timeout=seconds), self.command_timeout)
            )
        except BaseException:
            # Cancelled (or the link lost) while waiting for the server's "+ idling":
            # the IDLE command's task exists already; end it as the round below would.
            if client.has_pending_idle() and not self._lost.is_set():
                client.idle_done()
            for task in set(client.tasks) - started:
                await _finish(task)
            raise
        woke = False
        try:
            try:
                while not woke:
                    push = await self._guard(self._next_push(client))
                    if push is None or push == aioimaplib.STOP_WAIT_SERVER_PUSH:
                        break
                    woke = any(_EXISTS.match(bytes(line)) for line in push)
            finally:
                if client.has_pending_idle() and not self._lost.is_set():
                    client.idle_done()
            await self._guard(asyncio.wait_for(idle, timeout=self.command_timeout))
        finally:
            # However this ends (a lost connection, a cancelled caller), the IDLE
            # command's task ends here too: left pending, asyncio would log it as
            # destroyed when the session is dropped.
            await _finish(idle)
        return woke

    async def _next_push(self, client: aioimaplib.IMAP4) -> Any:
        # Wakes on server push, on the idle_start timer (STOP_WAIT_SERVER_PUSH), on close
        # or when another caller wants the session.
        push = asyncio.ensure_future(client.wait_server_push(timeout=_MAX_IDLE + 60))
        others = {
            asyncio.ensure_future(self._closing.wait()),
            asyncio.ensure_future(self._someone_waits.wait()),
        }
        pushed = False
        try:
            await asyncio.wait({push, *others}, return_when=asyncio.FIRST_COMPLETED)
            pushed = push.done()
        finally:
            # Also when this wait is cancelled (a lost connection): nothing waits on.
            for waiter in (push, *others):
                if not waiter.done():
                    waiter.cancel()
        return push.result() if pushed else None

    async def close(self) -> None:
        """Log out and refuse further use. Interrupts a backoff sleep or an IDLE."""
        self._closing.set()
        async with self._lock:
            client, self._client = self._client, None
            self._session_up = False
        if client is None:
            return
        try:
            if not self._lost.is_set():
                await asyncio.wait_for(client.logout(), timeout=min(5.0, self.command_timeout))
        except (OSError, TimeoutError, aioimaplib.AioImapException) as exc:
            log.info("logout from %s:%d failed: %s", self.host, self.port, exc)
        finally:
            await _dispose(client)
        log.info("closed IMAP inbox %s@%s:%d", self.user, self.host, self.port)


async def _finish(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` if still pending and wait until it has ended; its outcome is moot."""
    if not task.done():
        task.cancel()
    try:
        await asyncio.wait({task})
    finally:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: asyncio does not log it as never retrieved


async def _dispose(client: aioimaplib.IMAP4) -> None:
    """Close a session's connection and end every task aioimaplib started for it
    (an IDLE command, its timer): nothing of it outlives the session."""
    if client._idle_waiter is not None:
        client._idle_waiter.cancel()
    transport = getattr(client.protocol, "transport", None)
    if transport is not None:
        transport.close()
    for task in list(client.tasks):
        await _finish(task)
