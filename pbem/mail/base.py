"""Transport protocols: how pbem receives and sends mail, in raw bytes only.

The mail layer knows nothing of games. An :class:`Inbox` hands out raw messages
and forgets one only when told (:meth:`Inbox.acknowledge`), which the caller does
*after* it has committed what the message carried: a crash between fetch and
commit therefore costs a second fetch, never a lost order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from pbem.core.errors import TransportError


@dataclass(frozen=True)
class InboundMessage:
    """One received mail. ``ref`` is the transport's stable id for it.

    IMAP: ``"UIDVALIDITY:UID"``; Maildir: the file's unique key.

    ``delivered_at`` is when the mailbox received the mail, as the mailbox says
    (IMAP INTERNALDATE; Maildir: the file's time), aware UTC; None if unknown.
    Lateness is judged by it (bounded by our own servers' Received headers, see
    pbem.intake.arrival), not by when the daemon happened to fetch the mail.
    """

    ref: str
    raw: bytes = field(repr=False)
    delivered_at: datetime | None = None


class SendError(TransportError):
    """Sending failed. ``code`` is the SMTP reply code when there was one.

    ``refused`` maps each refused recipient to its (code, text) reply;
    ``delivered_to`` lists recipients the server accepted anyway, so that a retry
    can skip them instead of sending them a second copy.
    """

    def __init__(
        self,
        message: str,
        *,
        code: int | None = None,
        refused: Mapping[str, tuple[int, str]] | None = None,
        delivered_to: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.refused: dict[str, tuple[int, str]] = dict(refused or {})
        self.delivered_to: tuple[str, ...] = tuple(delivered_to)


class TemporaryMailError(SendError):
    """Failed for now (4xx reply, connection refused, lost or timed out): retry later."""


class PermanentMailError(SendError):
    """Refused for good (5xx reply): retrying the same mail will not help."""


@runtime_checkable
class Inbox(Protocol):
    async def fetch(self, limit: int = 100) -> list[InboundMessage]:
        """Messages not yet acknowledged, oldest first, at most ``limit``.

        The same message may come back after a crash or a reconnect until it is
        acknowledged: callers must be idempotent on ``ref`` (or on content).
        """
        ...

    async def acknowledge(self, ref: str) -> None:
        """Forget ``ref``: delete it or move it to the processed folder.

        Call only AFTER the caller committed what the message carried.
        Acknowledging a ref twice is harmless. Raises TransportError if the transport
        refuses; the message then stays and comes back from :meth:`fetch`.
        """
        ...

    async def acknowledge_many(self, refs: Sequence[str]) -> None:
        """:meth:`acknowledge` every ref of ``refs``, in as few server commands as it can."""
        ...

    async def wait_for_mail(self, timeout: float) -> None:
        """Return when a message arrived that no fetch has returned yet, or at ``timeout``."""
        ...

    async def close(self) -> None: ...

    @property
    def unreachable_since(self) -> datetime | None:
        """None while the mailbox answers; else the last time it did (aware UTC).

        While it is unreachable no mail can come in: the daemon leaves deadlines
        alone and pushes them back by the outage once it answers again.
        """
        ...


@runtime_checkable
class MailSender(Protocol):
    async def send(self, sender: str, recipients: Sequence[str], raw: bytes) -> None:
        """Hand ``raw`` over for delivery to ``recipients``.

        Raises :class:`TemporaryMailError` or :class:`PermanentMailError`.
        """
        ...

    async def close(self) -> None: ...
