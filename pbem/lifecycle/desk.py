"""The desk every lifecycle job works at: one transaction, the seal key, the clock.

Every job runs inside the caller's transaction and takes the game's row lock
first (``Lookups.game``), so on PostgreSQL two daemons never change one game
at once; whatever a job changes (state, record, plots, outgoing mail) is
committed together or not at all. ``Desk.now`` is the only clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from pbem.config import Config
from pbem.record import journal
from pbem.record.payloads import Payload
from pbem.storage.models import Game, RecordEntry


@dataclass
class Desk:
    """What a lifecycle operation works with: one transaction, the seal key, the clock."""

    session: Session
    config: Config
    key: bytes
    now: datetime
    # Entries appended per game in this transaction: a moderator command that wrote
    # none only read, and is not written into the record (pbem.lifecycle.moderator).
    written: dict[str, int] = field(default_factory=dict)
    # The moderator's reads noted in this transaction (pbem.lifecycle.readlog).
    reads: list[dict[str, Any]] = field(default_factory=list)

    def record(self, game: Game, payload: Payload) -> RecordEntry:
        """Append to the game's record (its row lock is held), stamped ``now``."""
        self.written[game.id] = self.written.get(game.id, 0) + 1
        return journal.append(self.session, game.id, payload, self.now)
