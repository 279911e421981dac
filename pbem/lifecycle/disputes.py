"""Disputes: a player contests an adjudicated phase; the moderator rules on it.

A dispute may name what the other side must not know (a hidden cargo, a
destination): its text goes to the moderator only. Each side hears only the
ruling the moderator writes for it: one text for all, or one per side.
"""

from __future__ import annotations

from pbem.core.errors import LifecycleError
from pbem.lifecycle.announce import announce
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

    def rule(
        self,
        game_id: str,
        dispute_id: int,
        upheld: bool,
        reason: str,
        rulings: dict[str, str] | None = None,
    ) -> Dispute:
        """Rule on a dispute; every side hears ``reason``, or with ``rulings`` (one
        text per side, every side of the game named) its own text. Observers of a
        side read that side's; omniscient observers read them all."""
        game = self.lookups.game(game_id)
        sides = self.lookups.sides_of(game)
        if rulings is not None and set(rulings) != set(sides):
            missing = ", ".join(s for s in sides if s not in rulings) or "none"
            raise LifecycleError(
                f"a ruling per side names every side of {game_id} ({', '.join(sides)}) "
                f"exactly once; missing: {missing}"
            )
        dispute = self.desk.session.get(Dispute, dispute_id)
        if dispute is None or dispute.game_id != game_id:
            raise LifecycleError(f"game {game_id} has no dispute {dispute_id}")
        if dispute.status != DisputeStatus.OPEN:
            raise LifecycleError(f"dispute {dispute_id} was already ruled {dispute.status}")
        dispute.status = DisputeStatus.UPHELD if upheld else DisputeStatus.DISMISSED
        dispute.ruling = reason
        entry = self.desk.record(
            game,
            DisputeRuled(
                dispute=dispute_id, ruling=dispute.status.value, reason=reason, rulings=rulings
            ),
        )
        head = (
            f"The moderator has ruled on dispute {dispute_id} (filed by {dispute.side}): "
            f"{dispute.status.value.upper()}.\n\n"
        )
        texts: dict[str | None, str]
        if rulings is None:
            texts = {side: head + reason for side in sides}
            texts[None] = head + reason
        else:
            texts = {side: head + text for side, text in rulings.items()}
            texts[None] = head + "\n\n".join(f"To {s}: {rulings[s]}" for s in sides)
        announce(
            self.desk,
            self.lookups,
            game,
            entry,
            f"ruling on dispute {dispute_id}: {dispute.status.value}",
            texts,
        )
        return dispute
