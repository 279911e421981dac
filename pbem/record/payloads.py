"""What each kind of record entry says: one small frozen dataclass per kind.

``journal.append`` turns one into the stored dict (``to_dict``): the fields in
the order declared here, under their own names, so what is recorded and hashed
is exactly what the dicts these replaced held. Reading the record back
(replay, verify, the archive) still works on the stored dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar


class Payload:
    """One record entry's content; ``kind`` names the entry."""

    __slots__ = ()
    kind: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        # Shallow, in declaration order: the stored JSON keeps the key order it had.
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]


# ----------------------------------------------------------- moderator acts


@dataclass(frozen=True, slots=True)
class GameCreated(Payload):
    kind: ClassVar[str] = "game-created"
    ruleset: str
    scenario: str
    options: dict[str, Any]
    settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PlayerAssigned(Payload):
    kind: ClassVar[str] = "player-assigned"
    side: str
    email: str
    key: str | None
    certificate: str | None


@dataclass(frozen=True, slots=True)
class ObserverAdded(Payload):
    kind: ClassVar[str] = "observer-added"
    email: str
    side: str | None


@dataclass(frozen=True, slots=True)
class PlayerReplaced(Payload):
    kind: ClassVar[str] = "player-replaced"
    side: str
    old_email: str
    old_key: str | None
    email: str
    key: str | None


@dataclass(frozen=True, slots=True)
class SeatKeyAdded(Payload):
    """A key the side's player may sign with from now on (KEY ADD, or an OpenPGP key at
    ASSIGN); ``kind`` is ed25519, smime or openpgp."""

    kind: ClassVar[str] = "seat-key-added"
    side: str
    key_kind: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class EncryptionChosen(Payload):
    """The side's player opted in to (or out of) encrypted mail (ASSIGN ... encrypt=yes,
    KEY game side ENCRYPT yes|no): answers and reports are encrypted to this key."""

    kind: ClassVar[str] = "encryption-chosen"
    side: str
    encrypt: bool
    key_kind: str | None
    fingerprint: str | None


@dataclass(frozen=True, slots=True)
class SeatKeyRetired(Payload):
    """A key the side's player no longer signs with (KEY RETIRE); mail signed with it
    is refused from now on."""

    kind: ClassVar[str] = "seat-key-retired"
    side: str
    key_kind: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class GameStarted(Payload):
    kind: ClassVar[str] = "game-started"
    state_hash: str
    # The rules that set it up: {"version", "data", "pbem"} (None in older records).
    rules: dict[str, str] | None = None


@dataclass(frozen=True, slots=True)
class RulesHeld(Payload):
    """The game's rules are not this pbem's (an upgrade of pbem changed the ruleset's
    version or data): it is held, not adjudicated by other rules, until the moderator
    moves it (UPGRADE) or runs the pbem that plays its rules."""

    kind: ClassVar[str] = "rules-held"
    phase_seq: int
    rules: dict[str, str]  # the game's
    available: dict[str, str]  # this pbem's


@dataclass(frozen=True, slots=True)
class RulesUpgraded(Payload):
    """UPGRADE: the moderator moved the game to this pbem's rules. Phases adjudicated
    before stand as the old rules played them; from phase ``phase_seq`` on the new rules
    adjudicate, starting from ``state`` (that phase's state, None before START), so
    ``pbem verify`` re-adjudicates the rest with the new rules alone."""

    kind: ClassVar[str] = "rules-upgraded"
    phase_seq: int | None
    old: dict[str, str]
    new: dict[str, str]
    state: dict[str, Any] | None
    state_hash: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class Paused(Payload):
    kind: ClassVar[str] = "paused"
    reason: str
    pauses_used: int


@dataclass(frozen=True, slots=True)
class Resumed(Payload):
    kind: ClassVar[str] = "resumed"
    paused_for_seconds: int
    over_cap: bool


@dataclass(frozen=True, slots=True)
class DeadlineExtended(Payload):
    kind: ClassVar[str] = "deadline-extended"
    phase_seq: int
    hours: float
    deadline: str | None  # ISO 8601


@dataclass(frozen=True, slots=True)
class GameOver(Payload):
    kind: ClassVar[str] = "game-over"
    outcome: dict[str, Any]


# ------------------------------------------------------------------ phases


@dataclass(frozen=True, slots=True)
class PhaseOpened(Payload):
    kind: ClassVar[str] = "phase-opened"
    seq: int
    epoch: int
    turn: int
    phase: str
    title: str
    sides: list[str]
    seed_commitment: str
    state_hash: str
    deadline: str | None  # ISO 8601; None for an automatic phase


@dataclass(frozen=True, slots=True)
class OrdersSealed(Payload):
    kind: ClassVar[str] = "orders-sealed"
    phase_seq: int
    side: str
    commitment: str
    late: bool
    replaced: bool


@dataclass(frozen=True, slots=True)
class DoneSaid(Payload):
    """A side's mail said DONE alone: its orders on file stand and the round no longer
    waits for it. ``commitment`` is the plot that stands; ``stood`` is False when
    nothing was on file and DONE sealed no orders (that plot's orders-sealed entry
    comes just before)."""

    kind: ClassVar[str] = "done-said"
    phase_seq: int
    side: str
    commitment: str
    stood: bool


@dataclass(frozen=True, slots=True)
class AdjudicateOrdered(Payload):
    kind: ClassVar[str] = "adjudicate-ordered"
    phase_seq: int
    reason: str


@dataclass(frozen=True, slots=True)
class Forfeit(Payload):
    kind: ClassVar[str] = "forfeit"
    phase_seq: int
    sides: list[str]


@dataclass(frozen=True, slots=True)
class PhaseAdjudicated(Payload):
    kind: ClassVar[str] = "phase-adjudicated"
    seq: int
    epoch: int
    turn: int
    phase: str
    seed: str  # hex, revealed
    seed_commitment: str
    state_hash: str
    # Side -> orders, nonce, commitment, source, late: the plots opened.
    plots: dict[str, dict[str, Any]]
    rolls: list[list[Any]]  # [value, purpose] in the order thrown
    events: list[dict[str, Any]]
    result_hash: str | None
    # The rules that adjudicated: {"version", "data", "pbem"} (None in older records).
    rules: dict[str, str] | None = None


# -------------------------------------------------------- rollback, edits


@dataclass(frozen=True, slots=True)
class RolledBack(Payload):
    kind: ClassVar[str] = "rolled-back"
    to_seq: int
    turn: int
    phase: str
    replot: bool
    epoch: int
    # A side may send orders again (REPLOT, or it had sent none): the phase got a new seed.
    fresh_seed: bool = False
    reason: str = ""


@dataclass(frozen=True, slots=True)
class HoldReleased(Payload):
    """The moderator let a held game (after a rollback) go on: by RESUME (orders due
    by ``deadline``) or by ADJUDICATE."""

    kind: ClassVar[str] = "hold-released"
    phase_seq: int
    by: str  # "resume" | "adjudicate" | "upgrade"
    deadline: str | None  # ISO 8601


@dataclass(frozen=True, slots=True)
class StateEdited(Payload):
    kind: ClassVar[str] = "state-edited"
    phase_seq: int
    turn: int
    phase: str
    pointer: str  # JSON pointer into the state
    old: Any
    value: Any
    before_hash: str
    state_hash: str


# ---------------------------------------------------------------- disputes


@dataclass(frozen=True, slots=True)
class DisputeFiled(Payload):
    kind: ClassVar[str] = "dispute-filed"
    dispute: int
    side: str
    phase_seq: int
    text: str


@dataclass(frozen=True, slots=True)
class DisputeRuled(Payload):
    kind: ClassVar[str] = "dispute-ruled"
    dispute: int
    ruling: str
    reason: str
    # What each side was told, when the moderator wrote one text per side.
    rulings: dict[str, str] | None = None


@dataclass(frozen=True, slots=True)
class ModeratorCommand(Payload):
    """Who gave a moderator command naming this game, how and from where."""

    kind: ClassVar[str] = "moderator-command"
    command: str  # the first word: what the command did is in the entries before
    by: str  # the sender's address (mail), the local user (CLI)
    via: str  # "mail" | "cli"
    origin: str  # the mail's Message-ID, or the host the CLI ran on


@dataclass(frozen=True, slots=True)
class ModeratorAlerted(Payload):
    """A digest went to the human moderator (pbem.lifecycle.alerts)."""

    kind: ClassVar[str] = "moderator-alerted"
    items: int


# ------------------------------------------------------------------- clock


@dataclass(frozen=True, slots=True)
class DeadlinePushedBack(Payload):
    kind: ClassVar[str] = "deadline-pushed-back"
    phase_seq: int
    downtime_seconds: int
    deadline: str | None  # ISO 8601


# -------------------------------------------------------------------- mail


@dataclass(frozen=True, slots=True)
class MailRefused(Payload):
    """A verified player's mail the game refused: that it came and why, never its content."""

    kind: ClassVar[str] = "mail-refused"
    mail: str  # sha256 of the raw mail
    side: str
    turn: int
    phase: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReportSent(Payload):
    """Written by older pbem when a report was queued (not when it was sent): old
    records hold it, read as ``report-queued``; nothing writes it any more."""

    kind: ClassVar[str] = "report-sent"
    audience: str
    to: str
    message_id: str
    text_sha256: str


# ------------------------------------------------- the moderator's season tools


@dataclass(frozen=True, slots=True)
class SettingsChanged(Payload):
    """SET: settings changed after CREATE; ``options`` is every option in force after
    the change (None if no option changed: options change only before START)."""

    kind: ClassVar[str] = "settings-changed"
    changed: dict[str, Any]  # key -> [old, new]
    options: dict[str, Any] | None
    reason: str


@dataclass(frozen=True, slots=True)
class ObserverRemoved(Payload):
    kind: ClassVar[str] = "observer-removed"
    email: str
    side: str | None


@dataclass(frozen=True, slots=True)
class ModeratorMessage(Payload):
    """MESSAGE: the moderator's own words to players, as mailed."""

    kind: ClassVar[str] = "moderator-message"
    to: list[str]  # the sides addressed ("all": every side and observer)
    emails: list[str]
    text: str


@dataclass(frozen=True, slots=True)
class ReportResent(Payload):
    """RESEND: a stored report mailed again, marked as a copy."""

    kind: ClassVar[str] = "report-resent"
    report: int  # the archived report's id
    audience: str
    to: str
    subject: str


@dataclass(frozen=True, slots=True)
class ReportQueued(Payload):
    """A report handed to the outbox: who gets which text, by hash only. Whether it
    left is a later entry: ``report-delivered`` or ``report-failed``."""

    kind: ClassVar[str] = "report-queued"
    audience: str
    to: str
    message_id: str
    text_sha256: str


@dataclass(frozen=True, slots=True)
class ReportDelivered(Payload):
    """The SMTP server (or the outgoing Maildir) accepted the report at the entry's time."""

    kind: ClassVar[str] = "report-delivered"
    message_id: str
    to: str


@dataclass(frozen=True, slots=True)
class ReportFailed(Payload):
    """The report could not be delivered (refused for good, or given up): why."""

    kind: ClassVar[str] = "report-failed"
    message_id: str
    to: str
    reason: str
