"""The closed sets of values pbem stores as strings.

Each is a ``StrEnum``: a member is the very string stored, so rows written
before these types existed read back unchanged, and the database refuses
anything else through a CHECK constraint built from the same members
(``check_in``).
"""

from __future__ import annotations

from enum import StrEnum


class GameStatus(StrEnum):
    """created -> running <-> paused -> over (a rollback may reopen an ended game)."""

    CREATED = "created"
    RUNNING = "running"
    PAUSED = "paused"
    OVER = "over"


class PhaseStatus(StrEnum):
    """A rollback supersedes phases; it never deletes them."""

    OPEN = "open"
    ADJUDICATED = "adjudicated"
    SUPERSEDED = "superseded"


class SeatRole(StrEnum):
    PLAYER = "player"
    OBSERVER = "observer"


class KeyKind(StrEnum):
    """What a seat's key is: an OpenSSH Ed25519 line (signed PBEM ORDERS blocks), an
    S/MIME certificate (PEM) or an OpenPGP certificate (armoured public key)."""

    ED25519 = "ed25519"
    SMIME = "smime"
    OPENPGP = "openpgp"


class PlotSource(StrEnum):
    """Where a sealed plot came from."""

    MAIL = "mail"
    MODERATOR = "moderator"
    # Carried over, locked, by a rollback that keeps the phase's orders and seed.
    ROLLBACK = "rollback"


class DisputeStatus(StrEnum):
    OPEN = "open"
    UPHELD = "upheld"
    DISMISSED = "dismissed"


class InboundStatus(StrEnum):
    """new -> answered | ignored | failed"""

    NEW = "new"
    ANSWERED = "answered"
    IGNORED = "ignored"
    FAILED = "failed"


class OutboundStatus(StrEnum):
    """pending -> sent | failed"""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"


class OutboundKind(StrEnum):
    ANSWER = "answer"
    RECEIPT = "receipt"
    REPORT = "report"
    REMINDER = "reminder"
    NOTICE = "notice"


def check_in(column: str, values: type[StrEnum]) -> str:
    """The SQL condition of a CHECK constraint: ``column`` holds one of ``values``."""
    listed = ", ".join(f"'{v.value}'" for v in values)
    return f"{column} IN ({listed})"
