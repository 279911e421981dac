"""Disputes: a player contests an adjudicated phase; the moderator rules on it."""

from __future__ import annotations

from pbem.core.errors import LifecycleError
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.record.payloads import DisputeFiled, DisputeRuled
from pbem.storage.enums import DisputeStatus, PhaseStatus
from pbem.storage.models import Dispute


class Disputes:
    """Filing and ruling disputes, bound to one transaction."""

    def __init__(self, desk: Desk, lookups: Lookups) -> None:
        self.desk = desk
        self.lookups = lookups

    def file(self, game_id: str, side: str, turn: int, phase_name: str, text: str) -> Dispute:
        game = self.lookups.game(game_id)
        phase = next(
            (
                p
                for p in self.lookups.line_of_play(game_id)
                if (p.turn, p.name) == (turn, phase_name) and p.status == PhaseStatus.ADJUDICATED
            ),
            None,
        )
        if phase is None:
            raise LifecycleError(
                f"turn {turn} phase {phase_name} has not been adjudicated; "
                "a dispute names an adjudicated phase"
            )
        dispute = Dispute(
            game_id=game_id, phase_id=phase.id, side=side, text=text, filed_at=self.desk.now
        )
        self.desk.session.add(dispute)
        self.desk.session.flush()
        self.desk.record(
            game, DisputeFiled(dispute=dispute.id, side=side, phase_seq=phase.seq, text=text)
        )
        return dispute

    def rule(self, game_id: str, dispute_id: int, upheld: bool, reason: str) -> Dispute:
        game = self.lookups.game(game_id)
        dispute = self.desk.session.get(Dispute, dispute_id)
        if dispute is None or dispute.game_id != game_id:
            raise LifecycleError(f"game {game_id} has no dispute {dispute_id}")
        if dispute.status != DisputeStatus.OPEN:
            raise LifecycleError(f"dispute {dispute_id} was already ruled {dispute.status}")
        dispute.status = DisputeStatus.UPHELD if upheld else DisputeStatus.DISMISSED
        dispute.ruling = reason
        self.desk.record(
            game, DisputeRuled(dispute=dispute_id, ruling=dispute.status.value, reason=reason)
        )
        return dispute
