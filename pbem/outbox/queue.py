"""The outbox: outgoing mail is written to the database first, sent afterwards.

Every mail to send is an ``Outgoing`` value (why, to whom, what). ``enqueue``
composes and stores it in the caller's transaction, so a mail exists exactly
when the change that caused it is committed. A tick's reports
are composed with no transaction open (``compose_outbound``) and stored
(``store_outbound``) in the transaction that drops the note its adjudication
left (pbem.lifecycle.publishing). Its Message-ID is
derived from what it answers or reports on, so a crash and retry can never
produce a second, different mail for the same cause (the unique Message-ID
refuses it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import event, select
from sqlalchemy.orm import Session

from pbem.config import Config
from pbem.core import stages
from pbem.outbox.compose import compose_reply, stable_message_id
from pbem.outbox.gamekeys import load_game_keys
from pbem.outbox.privacy import encryption_key
from pbem.outbox.protect import EncryptionKey, protect
from pbem.record import journal
from pbem.record.payloads import ReportQueued
from pbem.secrecy import sealing
from pbem.storage.db import transaction_memo
from pbem.storage.enums import OutboundKind
from pbem.storage.models import OutboundMail

_QUEUED = "outbox.queued"
# Called after each commit that queued mail, in the committing thread (see on_queued).
_on_queued: list[Callable[[], None]] = []


def on_queued(callback: Callable[[], None]) -> Callable[[], None]:
    """Have ``callback`` called after every commit (in this process) that queued mail,
    in the committing thread: the daemon wakes its outbox, so a storm's reports go
    out as each game's transaction commits, not once the whole tick is over.
    Returns the function that stops it."""
    _on_queued.append(callback)
    return lambda: _on_queued.remove(callback)


@event.listens_for(Session, "after_commit")
def _queued_committed(session: Session) -> None:
    if session.info.pop(_QUEUED, False):
        for callback in list(_on_queued):
            callback()


@event.listens_for(Session, "after_rollback")
def _queued_undone(session: Session) -> None:
    session.info.pop(_QUEUED, None)


def loop_token(config: Config) -> str:
    return config.moderator.address


def message_id_for(config: Config, kind: str, cause: Sequence[str], to: str) -> str:
    """The stable Message-ID of the mail ``enqueue`` queues for this cause."""
    domain = config.moderator.address.rpartition("@")[2] or "pbem.invalid"
    return stable_message_id(kind, *cause, to, domain=domain)


def prefetch_unqueued(session: Session, message_ids: Collection[str]) -> None:
    """Find out in one query which of these mails are not queued yet, so that a
    batch's ``enqueue`` calls need not ask one by one (each ask would also flush)."""
    queued = set(
        session.scalars(
            select(OutboundMail.message_id).where(OutboundMail.message_id.in_(message_ids))
        )
    )
    _unqueued(session).update(set(message_ids) - queued)


def _unqueued(session: Session) -> set[str]:
    """Message-IDs known, for this transaction, not to be queued yet."""
    unqueued: set[str] = transaction_memo(session).setdefault("outbox.unqueued", set())
    return unqueued


@dataclass(frozen=True)
class Composed:
    """A mail composed, signed and sealed at rest, not yet stored (``compose_outbound``)."""

    message_id: str
    kind: OutboundKind
    to: str
    raw: bytes  # sealed (pbem.secrecy.sealing)
    now: datetime
    game_id: str | None
    side: str | None
    text_sha256: str  # the text's, for the record (a report's)


@dataclass(frozen=True)
class Outgoing:
    """One mail to send: why (``kind`` and ``cause``, from which with ``to`` its
    Message-ID derives: ``message_id_for``), to whom, and what it says. The one
    value every sender of mail hands the outbox (``enqueue``, ``compose_outbound``)."""

    kind: OutboundKind
    cause: tuple[str, ...]  # what it is for, e.g. ("answer", the mail's digest)
    to: str
    subject: str
    text: str
    html: str | None = None
    attachments: tuple[tuple[str, str, bytes], ...] = ()  # (filename, content type, data)
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    game_id: str | None = None
    side: str | None = None  # the seat's: the mail is encrypted to its player if he opted in


def compose_outbound(
    config: Config, mail: Outgoing, now: datetime, encrypt_to: EncryptionKey | None = None
) -> Composed:
    """One mail composed, signed with the game's key, encrypted to ``encrypt_to``
    (the player's key, if he opted in: ``encryption_key``) and sealed at rest; no
    database: a tick renders its reports outside its write transaction."""
    message_id = message_id_for(config, mail.kind, mail.cause, mail.to)
    with stages.stage("compose"):
        raw = compose_reply(
            to=mail.to,
            sender=f"{config.moderator.name} <{config.moderator.address}>",
            subject=mail.subject,
            text=mail.text,
            html=mail.html,
            in_reply_to=mail.in_reply_to,
            references=mail.references,
            message_id=message_id,
            loop_token=loop_token(config),
            attachments=mail.attachments,
            date=now,
            auto_submitted="auto-replied" if mail.kind == "answer" else "auto-generated",
        )
        raw = protect(raw, load_game_keys(config.signing), encrypt_to=encrypt_to)
        # Sealed at rest: an answer echoes the accepted orders of a still-sealed plot.
        sealed = sealing.seal(config.secrets.key_bytes(), raw, sealing.outbound_context(message_id))
    return Composed(
        message_id=message_id,
        kind=mail.kind,
        to=mail.to,
        raw=sealed,
        now=now,
        game_id=mail.game_id,
        side=mail.side,
        text_sha256=hashlib.sha256(mail.text.encode("utf-8")).hexdigest(),
    )


def _is_queued(session: Session, message_id: str) -> OutboundMail | None:
    """The mail of this Message-ID if queued already (a batch's prefetch spares the query)."""
    unqueued = _unqueued(session)
    if message_id in unqueued:
        unqueued.discard(message_id)  # queued now: a second enqueue must look
        return None
    return session.scalars(
        select(OutboundMail).where(OutboundMail.message_id == message_id)
    ).first()


def store_outbound(session: Session, config: Config, mail: Composed) -> OutboundMail:
    """Queue a composed mail in the caller's transaction; a Message-ID already
    queued (the same cause) is never queued twice."""
    existing = _is_queued(session, mail.message_id)
    if existing is not None:
        return existing
    row = OutboundMail(
        message_id=mail.message_id,
        kind=mail.kind,
        game_id=mail.game_id,
        side=mail.side,
        sender=config.moderator.address,
        recipient=mail.to,
        raw=mail.raw,
        created_at=mail.now,
        next_attempt_at=mail.now,
    )
    session.add(row)  # flushed with the session's next query or commit
    session.info[_QUEUED] = True
    if mail.kind == "report" and mail.game_id is not None:
        _record_report(session, mail)
    return row


def enqueue(session: Session, config: Config, mail: Outgoing, now: datetime) -> OutboundMail:
    """Queue one mail in the caller's transaction; composed only if its cause was not
    queued before (the same cause is never queued twice)."""
    existing = _is_queued(session, message_id_for(config, mail.kind, mail.cause, mail.to))
    if existing is not None:
        return existing
    encrypt_to = (
        encryption_key(session, mail.game_id, mail.side) if mail.game_id and mail.side else None
    )
    composed = compose_outbound(config, mail, now, encrypt_to)
    _unqueued(session).add(composed.message_id)  # looked for just now
    return store_outbound(session, config, composed)


def _record_report(session: Session, mail: Composed) -> None:
    """Reports queued belong in the game's record: who gets which text, by hash only
    (their delivery is recorded as it happens, see pbem.outbox.delivery).

    Here rather than in the reporter: every report passes through ``store_outbound``,
    exactly once per Message-ID, inside the transaction that queued it. The text
    itself stays out of the record; the archive's reports/ folder has it, and its
    SHA-256 ties the two together.
    """
    assert mail.game_id is not None
    journal.append(
        session,
        mail.game_id,
        ReportQueued(
            audience=mail.side or "omniscient",
            to=mail.to,
            message_id=mail.message_id,
            text_sha256=mail.text_sha256,
        ),
        mail.now,
    )


class _Stored(Protocol):
    message_id: str
    raw: bytes


def open_outbound(key: bytes, row: _Stored) -> bytes:
    """A queued mail's bytes, ready to send."""
    return sealing.unseal(key, row.raw, sealing.outbound_context(row.message_id))
