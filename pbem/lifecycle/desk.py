"""The desk every lifecycle job works at: one transaction, the seal key, the clock.

Every job runs inside the caller's transaction and takes the game's row lock
first (``Lookups.game``), so on PostgreSQL two daemons never change one game
at once; whatever a job changes (state, record, plots, outgoing mail) is
committed together or not at all. ``Desk.now`` is the only clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

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

    def record(self, game: Game, payload: Payload) -> RecordEntry:
        """Append to the game's record (its row lock is held), stamped ``now``."""
        return journal.append(self.session, game.id, payload, self.now)
