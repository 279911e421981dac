"""Maildir transports: the embedded default, no mail server needed.

Layout (https://cr.yp.to/proto/maildir.html, Maildir++ for the sub-folder):

- :class:`MaildirInbox` reads ``new/`` and ``cur/`` of ``path``; acknowledging moves the
  file into the sibling Maildir ``path/.processed/cur/`` so nothing is ever deleted.
  Mail is delivered by writing it to ``tmp/`` and renaming it into ``new/``
  (:func:`deliver`, ``pbem send --maildir``). A file written straight into ``new/`` may
  still be growing when the inbox looks: a file in ``new/`` is only taken once looks saw
  it unchanged for a poll interval, or once it is :data:`SETTLE_SECONDS` old.
- :class:`MaildirSender` delivers each outgoing mail the same way, with the SMTP
  envelope in prepended ``X-Pbem-Envelope-*`` headers that :func:`split_envelope` takes
  off again.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import socket
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pbem.core.errors import TransportError
from pbem.mail.base import InboundMessage, PermanentMailError, TemporaryMailError

PROCESSED_FOLDER = ".processed"
ENVELOPE_FROM = b"X-Pbem-Envelope-From"
ENVELOPE_TO = b"X-Pbem-Envelope-To"
_SUBDIRS = ("tmp", "new", "cur")
_RESCAN_SECONDS = 5.0
# A file in new/ this old is complete even if no earlier look saw it (a restart).
SETTLE_SECONDS = 10.0
_counter = itertools.count()


def ensure_maildir(path: Path) -> Path:
    """Create ``path`` with ``tmp/ new/ cur/`` if missing; return it."""
    for sub in _SUBDIRS:
        (path / sub).mkdir(parents=True, exist_ok=True)
    return path


def unique_name() -> str:
    """A Maildir file name no other writer on this host picks (time, pid, counter, host)."""
    host = socket.gethostname().replace("/", r"\057").replace(":", r"\072")
    return f"{time.time_ns()}.P{os.getpid()}Q{next(_counter)}.{host}"


def _key(filename: str) -> str:
    # The unique part of a Maildir name: everything before the ":2,FLAGS" info.
    return filename.split(":", 1)[0]


def deliver(maildir: Path, data: bytes) -> str:
    """Deliver ``data`` into ``maildir`` as the Maildir protocol says: written and synced
    in ``tmp/``, then renamed into ``new/`` (a reader never sees it half-written).
    Returns the file's name."""
    name = unique_name()
    tmp = maildir / "tmp" / name
    with open(tmp, "xb") as handle:
        handle.write(data)
        handle.flush()
        # An outbox is only durable if the bytes reach the disk before the rename.
        os.fsync(handle.fileno())
    os.rename(tmp, maildir / "new" / name)
    return name


class MaildirInbox:
    """An :class:`~pbem.mail.base.Inbox` over a local Maildir.

    ``ref`` is the file's unique key. Two fetches may see the same file; the second
    acknowledge of it is a no-op.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        poll_interval: float = 0.5,
        settle: float | None = None,
    ) -> None:
        self.path = ensure_maildir(Path(path))
        self.processed = ensure_maildir(self.path / PROCESSED_FOLDER)
        self.poll_interval = poll_interval
        # How long a file in new/ must stay unchanged (default: one poll).
        self.settle = poll_interval if settle is None else settle
        self._returned: set[str] = set()  # keys some fetch has handed out
        self._paths: dict[str, Path] = {}  # key → file, as last fetched
        self._closed = False
        self._dir_stamps: tuple[int, int] | None = None
        self._last_scan = 0.0
        # new/ file → ((size, mtime_ns, inode), when a look first saw it so), to tell a
        # file still being written.
        self._looks: dict[Path, tuple[tuple[int, int, int], float]] = {}
        self._settling = False  # the last look left a file in new/ for the next one

    def _check_open(self) -> None:
        if self._closed:
            raise TransportError(f"Maildir inbox {self.path} is closed")

    def _scan(self) -> list[tuple[int, str, Path]]:
        """(mtime_ns, key, path) of every complete message waiting in new/ and cur/.

        Each scan is a look: a file in new/ counts once looks saw the same size, time
        and inode for ``settle`` seconds (or once it is old), so one still being
        written waits.
        """
        found = []
        settling = False
        looks: dict[Path, tuple[tuple[int, int, int], float]] = {}
        now = time.monotonic()
        settled_before = time.time_ns() - int(SETTLE_SECONDS * 1e9)
        for sub in ("new", "cur"):
            with os.scandir(self.path / sub) as entries:
                for entry in entries:
                    if entry.name.startswith(".") or not entry.is_file():
                        continue
                    try:
                        stat = entry.stat()
                    except FileNotFoundError:  # acknowledged meanwhile
                        continue
                    path = Path(entry.path)
                    if sub == "new":
                        look = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
                        before, since = self._looks.get(path, (None, now))
                        since = since if before == look else now
                        looks[path] = (look, since)
                        steady = before == look and now - since >= self.settle
                        if not (steady and stat.st_size) and stat.st_mtime_ns > settled_before:
                            settling = True
                            continue
                    found.append((stat.st_mtime_ns, _key(entry.name), path))
        self._looks, self._settling = looks, settling
        found.sort()
        return found

    async def fetch(self, limit: int = 100) -> list[InboundMessage]:
        self._check_open()
        messages: list[InboundMessage] = []
        for mtime, key, file in self._scan():
            if len(messages) >= limit:
                break
            try:
                raw = file.read_bytes()
            except FileNotFoundError:  # another fetcher acknowledged it meanwhile
                continue
            # The file's time is its delivery: written in tmp/ just before the
            # rename into new/, and a rename (or a reader's move to cur/) keeps it.
            delivered = datetime.fromtimestamp(mtime / 1e9, UTC)
            messages.append(InboundMessage(ref=key, raw=raw, delivered_at=delivered))
            self._returned.add(key)
            self._paths[key] = file
        return messages

    def _find(self, maildir: Path, key: str) -> Path | None:
        for sub in ("new", "cur"):
            with os.scandir(maildir / sub) as entries:
                for entry in entries:
                    if _key(entry.name) == key:
                        return Path(entry.path)
        return None

    async def acknowledge(self, ref: str) -> None:
        self._check_open()
        if not ref or "/" in ref or ref.startswith("."):
            raise TransportError(f"not a Maildir key: {ref!r}")
        self._returned.discard(ref)
        # Where fetch saw it, else a directory scan (moved to cur/, or fetched elsewhere).
        file: Path | None = self._paths.pop(ref, None)
        if file is None or not file.exists():
            file = self._find(self.path, ref)
        while file is not None:
            try:
                os.rename(file, self.processed / "cur" / file.name)
                return
            except FileNotFoundError:
                # Renamed by a concurrent acknowledge, or moved new/ → cur/: look again.
                file = self._find(self.path, ref)
        if self._find(self.processed, ref) is None:
            raise TransportError(f"{self.path}: no message {ref!r} to acknowledge")

    async def acknowledge_many(self, refs: Sequence[str]) -> None:
        # A rename each: there is nothing to batch on a local directory.
        for ref in refs:
            await self.acknowledge(ref)

    def _stamps(self) -> tuple[int, int]:
        return (
            os.stat(self.path / "new").st_mtime_ns,
            os.stat(self.path / "cur").st_mtime_ns,
        )

    def _has_unreturned(self) -> bool:
        # A directory's mtime changes when a file is renamed into it: only list on change,
        # and now and then regardless, in case two renames fell in one mtime tick.
        # A file left settling is looked at again at once, whatever the mtimes say.
        stamps = self._stamps()
        now = time.monotonic()
        recent = now - self._last_scan < _RESCAN_SECONDS
        if stamps == self._dir_stamps and recent and not self._settling:
            return False
        self._dir_stamps, self._last_scan = stamps, now
        present = {key for _m, key, _p in self._scan()}
        self._returned &= present  # forget what others acknowledged or removed
        for gone in self._paths.keys() - present:
            del self._paths[gone]
        return bool(present - self._returned)

    async def wait_for_mail(self, timeout: float) -> None:
        self._check_open()
        self._dir_stamps = None  # always look once
        deadline = time.monotonic() + timeout
        while not self._has_unreturned():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self._closed:
                return
            await asyncio.sleep(min(self.poll_interval, remaining))

    async def close(self) -> None:
        self._closed = True

    @property
    def unreachable_since(self) -> None:
        """A local directory: never unreachable."""
        return None


def _check_header_value(value: str) -> bytes:
    if any(c in value for c in "\r\n\0"):
        raise PermanentMailError(f"line break in envelope address {value!r}")
    try:
        return value.encode("ascii")
    except UnicodeEncodeError:
        # SMTPUTF8 addresses are not supported by the outbox format.
        raise PermanentMailError(f"non-ASCII envelope address {value!r}") from None


def add_envelope(sender: str, recipients: Sequence[str], raw: bytes) -> bytes:
    """``raw`` with the envelope prepended as headers, in ``raw``'s own line ending."""
    if not recipients:
        raise PermanentMailError("no recipients")
    eol = b"\r\n" if raw.split(b"\n", 1)[0].endswith(b"\r") else b"\n"
    to = b", ".join(_check_header_value(r) for r in recipients)
    return (
        ENVELOPE_FROM + b": " + _check_header_value(sender) + eol + ENVELOPE_TO + b": " + to + eol
    ) + raw


def split_envelope(data: bytes) -> tuple[str, list[str], bytes]:
    """Inverse of :func:`add_envelope`: (sender, recipients, raw message)."""
    sender = ""
    recipients: list[str] = []
    rest = data
    for _ in range(2):
        line, sep, tail = rest.partition(b"\n")
        name, colon, value = line.rstrip(b"\r").partition(b": ")
        if not sep or not colon:
            break
        if name == ENVELOPE_FROM:
            sender = value.decode("ascii")
        elif name == ENVELOPE_TO:
            recipients = [r.strip() for r in value.decode("ascii").split(",") if r.strip()]
        else:
            break
        rest = tail
    if not recipients:
        raise TransportError("no X-Pbem-Envelope-To header: not a pbem outbox file")
    return sender, recipients, rest


class MaildirSender:
    """A :class:`~pbem.mail.base.MailSender` that files each mail in a Maildir "outbox"."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = ensure_maildir(Path(path))
        self._closed = False

    async def send(self, sender: str, recipients: Sequence[str], raw: bytes) -> None:
        if self._closed:
            raise TemporaryMailError(f"Maildir outbox {self.path} is closed")
        data = add_envelope(sender, recipients, raw)
        try:
            await asyncio.to_thread(deliver, self.path, data)
        except OSError as exc:  # disk full, permissions: may heal
            raise TemporaryMailError(f"cannot write to {self.path}: {exc}") from exc

    async def close(self) -> None:
        self._closed = True
