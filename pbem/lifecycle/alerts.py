"""Alerts to the human moderator: a digest of what needs his eye, per game.

At most one digest mail per game and hour (``DIGEST_EVERY``), made from the
game's record since the last one: late orders, missed turns (a no-orders
policy applied), a forfeit, the game's end; plus the sides reminded that still
owe orders. Mail that failed for good has a digest of its own, of every game and
of none (pbem.outbox.failures). The digest is
recorded (``moderator-alerted``), which is how the next one knows where to
start. The game's last digest (game over) is not held back by the hour.
What cannot wait (a forged or refused moderator command) is mailed at once by
the mailroom, not here.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.outbox.queue import Outgoing, enqueue
from pbem.record.payloads import ModeratorAlerted
from pbem.storage.enums import GameStatus, OutboundKind
from pbem.storage.models import Game, RecordEntry

DIGEST_EVERY = timedelta(hours=1)


# The record entries a digest may report (see _item).
WATCHED = ("forfeit", "game-over", "orders-sealed", "phase-adjudicated", "rules-held")


def _item(kind: str, p: dict[str, Any]) -> str:
    """What a record entry tells the moderator, or ""."""
    if kind == "forfeit":
        return f"forfeit: {', '.join(p['sides'])} sent no orders (phase {p['phase_seq']})"
    if kind == "game-over":
        o = p["outcome"]
        return (
            f"game over: {o.get('summary') or o.get('level')} (winner: {o.get('winner') or 'none'})"
        )
    if kind == "orders-sealed" and p.get("late"):
        return (
            f"late orders: {p['side']} sent orders within the grace period (phase {p['phase_seq']})"
        )
    if kind == "rules-held":
        return (
            f"held: phase {p['phase_seq']} is due, but the game plays by rules version "
            f"{p['rules']['version']} (data {p['rules']['data'][:16]}) and this pbem has "
            f"{p['available']['version']} (data {p['available']['data'][:16]}): UPGRADE the "
            f"game to move it to these rules, or run pbem {p['rules'].get('pbem')} for it"
        )
    if kind == "phase-adjudicated":
        missed = [s for s, v in p["plots"].items() if str(v["source"]).startswith("policy:")]
        if missed:
            return (
                f"missed turn: {', '.join(missed)} sent no orders for turn {p['turn']} "
                f"{p['phase']}; the no-orders policy applied"
            )
    return ""


class Alerts:
    """The moderator's digest, bound to one transaction."""

    def __init__(self, desk: Desk, lookups: Lookups) -> None:
        self.desk = desk
        self.lookups = lookups

    def digest(self, game: Game) -> bool:
        """Mail the moderator what happened in ``game`` since the last digest, unless
        one went out within the hour (or there is nothing to say)."""
        s = self.desk.session
        last = s.scalars(
            select(RecordEntry)
            .where(RecordEntry.game_id == game.id, RecordEntry.kind == ModeratorAlerted.kind)
            .order_by(RecordEntry.seq.desc())
            .limit(1)
        ).first()
        since = last.at if last is not None else game.created_at
        over = game.status == GameStatus.OVER
        if last is not None and self.desk.now - since < DIGEST_EVERY and not over:
            return False
        news = s.scalars(
            select(RecordEntry)
            .where(
                RecordEntry.game_id == game.id,
                RecordEntry.seq > (last.seq if last is not None else 0),
                RecordEntry.kind.in_(WATCHED),
            )
            .order_by(RecordEntry.seq)
        )
        items = [i for e in news if (i := _item(e.kind, e.payload))]
        items += self._owing(game)
        if not items:
            return False
        entry = self.desk.record(game, ModeratorAlerted(items=len(items)))
        digest = Outgoing(
            kind=OutboundKind.NOTICE,
            cause=("digest", game.id, str(entry.seq)),
            to=self.desk.config.moderator.human,
            subject=f"[pbem {game.id}] digest: {len(items)} item(s) for the moderator",
            text=f"Game {game.id} since {since:%Y-%m-%d %H:%M} UTC:\n\n"
            + "".join(f"- {i}\n" for i in items),
            game_id=game.id,
        )
        enqueue(self.desk.session, self.desk.config, digest, self.desk.now)
        return True

    def _owing(self, game: Game) -> list[str]:
        """Sides reminded of the open phase that still owe orders (late players)."""
        phase = self.lookups.open_phase(game.id)
        if phase is None or game.status != GameStatus.RUNNING:
            return []
        plotted = self.lookups.who_has_plotted(phase)
        return [
            f"late: {side} has not sent orders for turn {phase.turn} {phase.name} (reminded; "
            f"deadline {phase.deadline:%Y-%m-%d %H:%M} UTC)"
            for side in phase.reminded
            if not plotted.get(side) and phase.deadline is not None
        ]
