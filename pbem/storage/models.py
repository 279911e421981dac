"""SQLAlchemy 2.0 typed models: everything pbem must not forget.

The same schema runs on SQLite (embedded default) and PostgreSQL (several
daemons sharing one database). Work that several daemons could race for is
claimed with a conditional UPDATE (``claim_owner``/``claim_until``), and every
change to a game happens under a row lock on its ``games`` row
(``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite serialises writers anyway).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from pbem.storage.enums import (
    DisputeStatus,
    GameStatus,
    InboundStatus,
    KeyKind,
    OutboundKind,
    OutboundStatus,
    PhaseStatus,
    PlotSource,
    SeatRole,
    check_in,
)


class UTCDateTime(TypeDecorator[datetime]):
    """Times are stored in UTC and always come back timezone-aware."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database; pass UTC-aware times")
        from datetime import UTC

        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        from datetime import UTC

        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


E = TypeVar("E", bound=StrEnum)


class Choice(TypeDecorator[E]):
    """A string column holding one member of a closed set; it reads back as the member.

    The table declares the matching CHECK constraint (``check_in``), so the
    database refuses other values too."""

    impl = String
    cache_ok = True

    def __init__(self, values: type[E], length: int = 16) -> None:
        super().__init__(length)
        self.values = values

    def process_bind_param(self, value: E | str | None, dialect: Any) -> str | None:
        # A bare string is accepted only if it names a member (ValueError otherwise).
        return None if value is None else self.values(value).value

    def process_result_value(self, value: str | None, dialect: Any) -> E | None:
        return None if value is None else self.values(value)


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSON,
        list[Any]: JSON,
    }


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (CheckConstraint(check_in("status", GameStatus), name="ck_games_status"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    scenario: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Per-game settings: deadline/grace/reminder hours, early adjudication, no-orders policy per side.
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[GameStatus] = mapped_column(Choice(GameStatus), default=GameStatus.CREATED)
    created_at: Mapped[datetime]
    paused_at: Mapped[datetime | None] = mapped_column(default=None)
    pauses_used: Mapped[int] = mapped_column(default=0)
    paused_seconds: Mapped[int] = mapped_column(default=0)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    # Held for the moderator (why, e.g. after a rollback): no orders, no clock, no
    # adjudication until he says ADJUDICATE or RESUME. A pause is separate.
    held: Mapped[str | None] = mapped_column(String(200), default=None)
    # The rules the game plays by: {"version", "data", "pbem"} (pbem.lifecycle.rules);
    # None: a game from before rules were recorded, played by its ruleset's legacy rules.
    rules: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    # The daemon ticking the game (several daemons): a lease, free once ``claim_until``
    # passes or its owner's daemon lease does (pbem.service.leases.claim_free).
    claim_owner: Mapped[str | None] = mapped_column(String(64), default=None)
    claim_until: Mapped[datetime | None] = mapped_column(default=None, index=True)


class Seat(Base):
    """A person's place in a game: a side's player, an observer, or retired after a takeover."""

    __tablename__ = "seats"
    __table_args__ = (CheckConstraint(check_in("role", SeatRole), name="ck_seats_role"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    role: Mapped[SeatRole] = mapped_column(Choice(SeatRole))
    side: Mapped[str | None] = mapped_column(String(32))  # None for an omniscient observer
    email: Mapped[str] = mapped_column(String(254), index=True)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    # Opted in: answers and reports are encrypted to the player's key (pbem.outbox.privacy).
    encrypt: Mapped[bool] = mapped_column(default=False, server_default=false())
    active: Mapped[bool] = mapped_column(default=True)
    joined_at: Mapped[datetime]
    retired_at: Mapped[datetime | None] = mapped_column(default=None)


class SeatKey(Base):
    """One key a seat signs with; a seat may hold several (Ed25519, S/MIME, OpenPGP)
    and rotate them. A retired key stays on file (``retired_at``), so a mail signed
    with it is refused by name rather than as unknown."""

    __tablename__ = "seat_keys"
    __table_args__ = (
        UniqueConstraint("seat_id", "fingerprint", name="uq_seat_keys_seat_fingerprint"),
        CheckConstraint(check_in("kind", KeyKind), name="ck_seat_keys_kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), index=True)
    kind: Mapped[KeyKind] = mapped_column(Choice(KeyKind))
    # ed25519: "SHA256:..." as ssh-keygen -l prints it; smime: SHA-256 hex of the
    # certificate's DER; openpgp: the primary key's fingerprint, lowercase hex.
    fingerprint: Mapped[str] = mapped_column(String(80), index=True)
    # The OpenSSH line (UTF-8), the PEM certificate, the armoured OpenPGP certificate.
    material: Mapped[bytes] = mapped_column(LargeBinary)
    added_at: Mapped[datetime]
    retired_at: Mapped[datetime | None] = mapped_column(default=None)

    @property
    def active(self) -> bool:
        return self.retired_at is None


class Phase(Base):
    """One mail round of a game. A rollback supersedes phases; it never deletes them."""

    __tablename__ = "phases"
    __table_args__ = (
        Index("ix_phase_game_status", "game_id", "status"),
        CheckConstraint(check_in("status", PhaseStatus), name="ck_phases_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    seq: Mapped[int]  # 1, 2, 3 ... within the current line of play
    epoch: Mapped[int] = mapped_column(default=0)  # bumped by each rollback
    turn: Mapped[int]
    name: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(200), default="")
    sides: Mapped[list[Any]] = mapped_column(default=list)
    status: Mapped[PhaseStatus] = mapped_column(Choice(PhaseStatus), default=PhaseStatus.OPEN)
    opened_at: Mapped[datetime]
    # Indexed: the daemon sleeps until the earliest of these (Clock.next_due).
    deadline: Mapped[datetime | None] = mapped_column(default=None, index=True)
    grace_until: Mapped[datetime | None] = mapped_column(default=None, index=True)
    remind_at: Mapped[datetime | None] = mapped_column(default=None, index=True)
    reminded: Mapped[list[Any]] = mapped_column(default=list)  # sides already reminded
    seed_sealed: Mapped[bytes] = mapped_column(LargeBinary)
    seed_commitment: Mapped[str] = mapped_column(String(64))
    seed_revealed: Mapped[str | None] = mapped_column(String(64), default=None)
    state_hash: Mapped[str] = mapped_column(String(64))  # of the state this phase starts from
    adjudicated_at: Mapped[datetime | None] = mapped_column(default=None)
    result_hash: Mapped[str | None] = mapped_column(String(64), default=None)


class GameState(Base):
    """The state a phase starts from (a cache: always recomputable from the record)."""

    __tablename__ = "game_states"

    phase_id: Mapped[int] = mapped_column(ForeignKey("phases.id"), primary_key=True)
    state: Mapped[dict[str, Any]]


class Plot(Base):
    """A side's accepted orders for a phase, sealed (AES-GCM) until adjudication."""

    __tablename__ = "plots"
    __table_args__ = (CheckConstraint(check_in("source", PlotSource), name="ck_plots_source"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phases.id"), index=True)
    side: Mapped[str] = mapped_column(String(32))
    sealed: Mapped[bytes] = mapped_column(LargeBinary)
    commitment: Mapped[str] = mapped_column(String(64))
    received_at: Mapped[datetime]
    late: Mapped[bool] = mapped_column(default=False)
    source: Mapped[PlotSource] = mapped_column(Choice(PlotSource))
    mail_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_mails.id"), default=None)
    current: Mapped[bool] = mapped_column(default=True)  # a later set replaces it
    # Held open: the mail had refused lines and no DONE, so the side may still correct
    # them; the round waits for it until the deadline (then the orders stand as sealed).
    held: Mapped[bool] = mapped_column(default=False, server_default=false())


class RecordEntry(Base):
    """The append-only, hash-chained record of a game."""

    __tablename__ = "record"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(64), index=True)
    seq: Mapped[int]
    at: Mapped[datetime]
    kind: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]]
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class InboundMail(Base):
    """Every mail that arrived, stored before it is acknowledged on the server."""

    __tablename__ = "inbound_mails"
    # The rate limit counts a sender's answered mails in the last window.
    __table_args__ = (
        Index("ix_inbound_sender_processed", "sender", "processed_at"),
        CheckConstraint(check_in("status", InboundStatus), name="ck_inbound_mails_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the raw bytes
    transport_ref: Mapped[str] = mapped_column(String(200))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    received_at: Mapped[datetime]
    status: Mapped[InboundStatus] = mapped_column(
        Choice(InboundStatus), default=InboundStatus.NEW, index=True
    )
    outcome: Mapped[str] = mapped_column(Text, default="")
    sender: Mapped[str | None] = mapped_column(String(254), default=None)
    message_id: Mapped[str | None] = mapped_column(String(998), default=None)
    game_id: Mapped[str | None] = mapped_column(String(64), default=None)
    side: Mapped[str | None] = mapped_column(String(32), default=None)
    claim_owner: Mapped[str | None] = mapped_column(String(64), default=None)
    claim_until: Mapped[datetime | None] = mapped_column(default=None)
    processed_at: Mapped[datetime | None] = mapped_column(default=None)


class UsedSignature(Base):
    """Replay guard: a signed block is accepted once."""

    __tablename__ = "used_signatures"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(64))
    mail_id: Mapped[int] = mapped_column(ForeignKey("inbound_mails.id"))


class OutboundMail(Base):
    """Outgoing mail, written here first and sent afterwards (the outbox)."""

    __tablename__ = "outbound_mails"
    __table_args__ = (
        CheckConstraint(check_in("kind", OutboundKind), name="ck_outbound_mails_kind"),
        CheckConstraint(check_in("status", OutboundStatus), name="ck_outbound_mails_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(998), unique=True)
    kind: Mapped[OutboundKind] = mapped_column(Choice(OutboundKind, 32))
    game_id: Mapped[str | None] = mapped_column(String(64), default=None, index=True)
    side: Mapped[str | None] = mapped_column(String(32), default=None)
    sender: Mapped[str] = mapped_column(String(254))
    recipient: Mapped[str] = mapped_column(String(254))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime]
    status: Mapped[OutboundStatus] = mapped_column(
        Choice(OutboundStatus), default=OutboundStatus.PENDING, index=True
    )
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str] = mapped_column(Text, default="")
    sent_at: Mapped[datetime | None] = mapped_column(default=None)
    claim_owner: Mapped[str | None] = mapped_column(String(64), default=None)
    claim_until: Mapped[datetime | None] = mapped_column(default=None)


class Report(Base):
    """Every report as it was sent: the archive."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(64), index=True)
    phase_id: Mapped[int | None] = mapped_column(ForeignKey("phases.id"), default=None)
    audience: Mapped[str] = mapped_column(String(40))  # side name, "omniscient"
    created_at: Mapped[datetime]
    subject: Mapped[str] = mapped_column(String(300))
    text: Mapped[str] = mapped_column(Text)
    html: Mapped[str] = mapped_column(Text, default="")
    png: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)


class OwedReports(Base):
    """The reports an adjudication (or a game's end) made due, decided in its
    transaction and rendered after it (pbem.lifecycle.publishing): a tick holds
    the database's write lock for the rules, not for drawing maps. Gone in the
    transaction that queues them; one left behind (its daemon died between the
    two) is rendered by the game's next tick."""

    __tablename__ = "owed_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    created_at: Mapped[datetime]
    # Each seat's report as decided (header, subject, recipient), the events, and the
    # state shown: its phase's stored state, or here (a game's end has no phase).
    payload: Mapped[dict[str, Any]]


class Dispute(Base):
    __tablename__ = "disputes"
    __table_args__ = (
        CheckConstraint(check_in("status", DisputeStatus), name="ck_disputes_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phases.id"))
    side: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    filed_at: Mapped[datetime]
    status: Mapped[DisputeStatus] = mapped_column(Choice(DisputeStatus), default=DisputeStatus.OPEN)
    ruling: Mapped[str] = mapped_column(Text, default="")


class DaemonLease(Base):
    """One daemon start: its claims on mail and its fetching of the
    mailbox hold while ``lease_until`` (database time) is ahead; once it passes, any
    daemon may take them over. Host and pid are for humans only."""

    __tablename__ = "daemons"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # a uuid per start
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime]
    lease_until: Mapped[datetime] = mapped_column(index=True)


class MailboxLease(Base):
    """Which daemon fetches from a mailbox: one at a time, the others
    process and send; taken over once ``until`` passes or its daemon's lease does."""

    __tablename__ = "mailbox_leases"

    mailbox: Mapped[str] = mapped_column(String(255), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    until: Mapped[datetime]


class Heartbeat(Base):
    """When the daemon last ran: deadlines that passed while it was down are pushed back."""

    __tablename__ = "heartbeats"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    at: Mapped[datetime]


class ModeratorRead(Base):
    """A moderator's command that left no entry in any game's record: his reads
    (STATUS, LIST, SEATS, AUDIT, DISPUTES, FAILED ...), and the few acts outside a
    record (DELETE of a game not started, RESEND-MAIL). The audit store every
    process writes (daemons and the CLI, on one database), in the command's
    transaction; AUDIT shows it. Never exported or published: the record is what
    the players see. No local user or host name: a CLI command is by "moderator"."""

    __tablename__ = "moderator_reads"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(index=True)
    # The game the command names (its first word after the command); None: none named.
    game_id: Mapped[str | None] = mapped_column(String(64), default=None, index=True)
    command: Mapped[str] = mapped_column(String(32))
    line: Mapped[str] = mapped_column(Text)  # the command line as given
    via: Mapped[str] = mapped_column(String(8))  # "mail" | "cli"
    by: Mapped[str] = mapped_column(String(254))  # the sender's address; "moderator" (CLI)
    origin: Mapped[str] = mapped_column(String(998))  # the mail's Message-ID; "command line"
