"""The sent journal: each mail the SMTP server accepted, written down the moment
its 250 arrives, where no lock of the database's is needed.

The database mark (pbem.service.marking) is the durable record, but it is a
commit: it waits for the database (on SQLite behind processing's batch
transaction), for a thread, for the CPU. A daemon killed (kill -9) in that wait
would have the next daemon send the mail again. So, on the event loop, right
after the server accepted a mail and before anything else may run, one line
(the outgoing row's id and its Message-ID) is appended to this file by a single
``os.write`` on an ``O_APPEND`` descriptor: once the kernel has it, a kill -9
does not lose it (no fsync: a power cut may, see deploy/OPERATIONS.md).

Before any mail is claimed (pbem.service.sending.Outbox), the journal is
replayed: the mails listed and still pending are marked sent as the normal
mark does (pbem.service.outgoing.OutgoingClaims.replay_sent), and the lines
whose marks are committed are dropped. Several processes may append to one
journal (daemons on one host sharing a SQLite file share ``<file>.sent``): an
append is one small ``O_APPEND`` write under a shared ``flock`` taken without
waiting; dropping lines rewrites the file under the exclusive one. An append
that finds the journal being rewritten (a few microseconds) is not written:
that mail, like any whose line could not be written (disk full), relies on its
database mark alone, as before the journal (a warning is logged once).
Replaying is idempotent: a line whose mail is marked already is only dropped,
and a line naming a mail of another database (a Message-ID that does not
match) too.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from collections.abc import Collection, Iterator
from pathlib import Path

log = logging.getLogger("pbem.service")


def _parse(data: bytes) -> Iterator[tuple[int, str, bytes]]:
    """The whole lines of ``data``: (mail id, Message-ID, the line); a line
    that does not parse (a short write's remains) as id -1."""
    lines = data.split(b"\n")
    for raw in lines[:-1]:  # the last is partial (or empty): no newline yet
        fields = raw.split(b" ")
        if len(fields) == 2 and fields[0].isdigit() and fields[1]:
            yield int(fields[0]), fields[1].decode("ascii", "replace"), raw
        else:
            yield -1, "", raw


class SentJournal:
    """One process's view of the journal at ``path`` (None: no journal, e.g. an
    in-memory database). ``append`` runs on the event loop; ``read`` and
    ``drop`` in a thread, by one replay at a time."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._fd: int | None = None
        self._failing = False  # warned: lines are not being written
        self._written: set[int] = set()  # appended by us, their marks not yet committed
        self._committed: set[int] = set()  # appended by us, their marks committed

    def append(self, mail_id: int, message_id: str) -> bool:
        """The server accepted the mail: write its line now. False if not written
        (no journal, being rewritten, or the file failing): the database mark alone
        stands for it then."""
        if self.path is None:
            return False
        line = f"{mail_id} {message_id}\n".encode("ascii", "replace")
        try:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # a replay is rewriting it, for microseconds
            try:
                written = os.write(fd, line)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
            if written != len(line):
                raise OSError(f"short write ({written} of {len(line)} bytes)")
        except OSError as exc:
            self._failed(exc)
            return False
        if self._failing:
            log.info("sent journal %s is written again", self.path)
            self._failing = False
        self._written.add(mail_id)
        return True

    def _failed(self, exc: OSError) -> None:
        if not self._failing:
            log.warning(
                "sent journal %s cannot be used (%s): mails are marked sent by the "
                "database alone until it can; a kill before a mark sends that mail again",
                self.path,
                exc,
            )
            self._failing = True

    def marked(self, mail_id: int) -> None:
        """The mail's database mark is committed: its line may be dropped unread."""
        if mail_id in self._written:
            self._written.discard(mail_id)
            self._committed.add(mail_id)

    def take_committed(self) -> set[int]:
        """The mails we wrote whose marks are committed, forgotten here: the replay
        that takes them drops their lines without asking the database (a line it
        misses is asked about by the next)."""
        committed, self._committed = self._committed, set()
        return committed

    def read(self) -> dict[int, str]:
        """The journal's mails: id to Message-ID (empty if there is no file)."""
        if self.path is None:
            return {}
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:  # unreadable: nothing to replay, the marks alone stand
            self._failed(exc)
            return {}
        return {mail_id: message_id for mail_id, message_id, _ in _parse(data) if mail_id >= 0}

    def drop(self, mail_ids: Collection[int]) -> int:
        """Drop these mails' lines (and any that does not parse), keeping what was
        appended meanwhile: the file rewritten under the exclusive lock, which
        appenders never wait for. The number of lines left."""
        if self.path is None:
            return 0
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):
                self._failed(exc)
            return 0
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            data = _read_all(fd)
            lines = list(_parse(data))
            kept = [raw for mail_id, _, raw in lines if mail_id >= 0 and mail_id not in mail_ids]
            if len(kept) != len(lines) or (not data.endswith(b"\n") and data):
                os.ftruncate(fd, 0)
                if kept:
                    os.write(fd, b"".join(raw + b"\n" for raw in kept))
            return len(kept)
        finally:
            os.close(fd)  # the lock goes with it

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def _open(self) -> int:
        if self._fd is None:
            assert self.path is not None
            self._fd = os.open(
                self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600
            )
        return self._fd


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
