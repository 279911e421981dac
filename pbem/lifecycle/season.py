"""The moderator's tools to run a season: what is going on, and the small acts
between adjudications. The same commands by signed mail and by the CLI
(registered in ``pbem.lifecycle.moderator.COMMANDS``).

    LIST                                   every game: state, phase, deadline, who is late
    SEATS game                             players and observers: address, key, time zone
    DISPUTES [game]                        disputes, open and ruled, per game
    AUDIT [game]                           the moderator's own acts, from the record, and
                                           his reads, from the audit store
    MESSAGE game side|all text             the moderator's words, mailed and recorded
    RESEND game side [turn [phase]]        a stored report mailed again, marked as a copy
    SET game key=value [...] [reason]      settings after CREATE (options: before START)
    DELETE game                            a game not started, with its seats and record
    UNOBSERVE game email                   an observer stops getting reports

The reading commands (LIST, SEATS, DISPUTES, AUDIT) take no row lock: a LIST
must not wait for a busy game. They say who is in, never what a sealed plot holds.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.lifecycle import deadlines, readlog, upgrades
from pbem.lifecycle.acts import DATA_KEYS, checked_options
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.settings import SETTINGS
from pbem.outbox import delivery
from pbem.outbox.queue import Outgoing, enqueue
from pbem.record import journal
from pbem.record.payloads import ModeratorMessage, ObserverRemoved, ReportResent, SettingsChanged
from pbem.storage.enums import DisputeStatus, GameStatus, OutboundKind, SeatRole
from pbem.storage.models import (
    Dispute,
    Game,
    Phase,
    RecordEntry,
    Report,
    Seat,
    SeatKey,
)

# ------------------------------------------------------------------ reading


@dataclass
class GameLine:
    """One game as the moderator's overview shows it (LIST, the dashboard)."""

    id: str
    ruleset: str
    scenario: str
    status: str  # as shown: running, held (why), rules-held (why), paused, ...
    turn: int | None = None
    phase: str = ""
    deadline: datetime | None = None
    sides: dict[str, str] = field(default_factory=dict)  # side -> in | held | missing
    late: list[str] = field(default_factory=list)  # owing orders after the deadline
    waiting: list[str] = field(default_factory=list)  # owing orders, deadline not passed
    outcome: str = ""
    open_disputes: int = 0
    live: bool = False  # running, not held: its deadline runs and orders are due


def when(at: datetime | None) -> str:
    return f"{at:%Y-%m-%d %H:%M} UTC" if at else "none"


def outcome_text(outcome: dict[str, Any] | None) -> str:
    """A finished game's result in one line: winner, level, summary."""
    if not outcome:
        return ""
    winner = outcome.get("winner")
    level = outcome.get("level") or ""
    summary = outcome.get("summary") or ""
    head = f"{winner} wins ({level})" if winner else (level or "no winner")
    return f"{head}: {summary}" if summary else head


def shown_state(game: Game, open_disputes: int) -> str:
    """A game's state as every listing shows it: what stops it (a pause, a hold by
    a rollback or by changed rules, a dispute awaiting its ruling) before the bare
    status, so a stopped game never reads as plain "running"."""
    if game.status != GameStatus.RUNNING and game.status != GameStatus.PAUSED:
        return str(game.status)  # created, over
    shown = ["paused"] if game.status == GameStatus.PAUSED else []
    if game.held:
        rules = game.held.startswith(upgrades.RULES_HOLD)
        shown.append(f"{'rules-held' if rules else 'held'} ({game.held})")
    if open_disputes:
        shown.append(f"waiting-for-ruling ({open_disputes} open dispute(s))")
    return ", ".join(shown) or str(game.status)


def game_line(gm: GameMaster, game: Game) -> GameLine:
    open_disputes = len(
        list(
            gm.desk.session.scalars(
                select(Dispute.id).where(
                    Dispute.game_id == game.id, Dispute.status == DisputeStatus.OPEN
                )
            )
        )
    )
    line = GameLine(game.id, game.ruleset, game.scenario, shown_state(game, open_disputes))
    line.outcome = outcome_text(game.outcome)
    line.open_disputes = open_disputes
    line.live = game.status == GameStatus.RUNNING and not game.held
    phase = gm.lookups.open_phase(game.id) if game.status != GameStatus.OVER else None
    if phase is None:
        return line
    line.turn, line.phase, line.deadline = phase.turn, phase.name, phase.deadline
    holds = gm.lookups.who_holds(phase)
    for side, plotted in gm.lookups.who_has_plotted(phase).items():
        line.sides[side] = "held" if holds[side] else "in" if plotted else "missing"
        if line.sides[side] != "in" and line.live:  # a stopped game owes nothing yet
            past = phase.deadline is not None and gm.desk.now >= phase.deadline
            (line.late if past else line.waiting).append(side)
    return line


def overview(gm: GameMaster) -> list[GameLine]:
    games = gm.desk.session.scalars(select(Game).order_by(Game.id))
    return [game_line(gm, g) for g in games]


def _list(gm: GameMaster, a: list[str]) -> str:
    lines = overview(gm)
    if not lines:
        return "no games"
    out = [f"{len(lines)} game(s):"]
    for g in lines:
        text = f"{g.id} ({g.ruleset} {g.scenario}): {g.status}"
        if g.turn is not None and not g.live:  # stopped: no deadline runs, nobody is late
            text += f", turn {g.turn} {g.phase}, no deadline runs; orders: " + ", ".join(
                f"{side} {state}" for side, state in g.sides.items()
            )
        elif g.turn is not None:
            text += f", turn {g.turn} {g.phase}, deadline {when(g.deadline)}"
            if g.late:
                text += f"; LATE: {', '.join(g.late)}"
            if g.waiting:
                text += f"; awaiting: {', '.join(g.waiting)}"
            if not g.late and not g.waiting:
                text += "; all orders in"
        if g.outcome:
            text += f"; outcome: {g.outcome}"
        if g.open_disputes:
            text += f"; {g.open_disputes} open dispute(s)"
        out.append("  " + text)
    return "\n".join(out)


def _seats(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "SEATS game")
    game = gm.lookups.game(a[0], lock=False)
    seats = gm.desk.session.scalars(
        select(Seat).where(Seat.game_id == game.id).order_by(Seat.id)
    ).all()
    if not seats:
        return f"{game.id}: no seats yet (ASSIGN, OBSERVE)"
    keys_by_seat: dict[int, list[SeatKey]] = {}
    for k in gm.desk.session.scalars(
        select(SeatKey).where(SeatKey.seat_id.in_([s.id for s in seats])).order_by(SeatKey.id)
    ):
        keys_by_seat.setdefault(k.seat_id, []).append(k)
    out = [f"{game.id}: {len(seats)} seat(s):"]
    for s in seats:
        who = (
            f"{s.side} player"
            if s.role == SeatRole.PLAYER
            else f"observer ({s.side or 'omniscient'})"
        )
        key = (
            ", ".join(
                f"{k.kind} {k.fingerprint}" + (" (retired)" if k.retired_at else "")
                for k in keys_by_seat.get(s.id, [])
            )
            or "no key"
        )
        state = "" if s.active else f" [retired {when(s.retired_at)}]"
        tz = f", time zone {s.timezone}" if s.role == SeatRole.PLAYER else ""
        out.append(f"  {who}: {s.email}, key {key}{tz}{state}")
    return "\n".join(out)


def dispute_lines(gm: GameMaster, game_id: str | None) -> list[dict[str, Any]]:
    """Disputes (one game or all), oldest first, with the phase each names."""
    stmt = select(Dispute, Phase).join(Phase, Dispute.phase_id == Phase.id).order_by(Dispute.id)
    if game_id is not None:
        stmt = stmt.where(Dispute.game_id == game_id)
    return [
        {
            "id": d.id,
            "game": d.game_id,
            "side": d.side,
            "turn": p.turn,
            "phase": p.name,
            "filed": when(d.filed_at),
            "status": str(d.status),
            "ruling": d.ruling,
            "text": d.text,
        }
        for d, p in gm.desk.session.execute(stmt)
    ]


def _disputes(gm: GameMaster, a: list[str]) -> str:
    game_id = gm.lookups.game(a[0], lock=False).id if a else None
    found = dispute_lines(gm, game_id)
    if not found:
        return f"no disputes{f' in {game_id}' if game_id else ''}"
    out: list[str] = []
    for game in sorted({d["game"] for d in found}):
        mine = [d for d in found if d["game"] == game]
        still_open = sum(d["status"] == "open" for d in mine)
        out.append(f"{game}: {still_open} open, {len(mine) - still_open} ruled")
        for d in mine:
            first = d["text"].strip().splitlines()[0] if d["text"].strip() else ""
            out.append(
                f"  #{d['id']} {d['status'].upper()} by {d['side']} on turn {d['turn']} "
                f"{d['phase']}, filed {d['filed']}: {first[:120]}"
            )
            if d["ruling"]:
                out.append(f"      ruling: {d['ruling']}")
    return "\n".join(out)


# What each of the moderator's acts in the record says, in one line.
_ACTS: dict[str, Callable[[dict[str, Any]], str]] = {
    "game-created": lambda p: f"CREATE {p['ruleset']} {p['scenario']}",
    "player-assigned": lambda p: f"ASSIGN {p['side']} to {p['email']}",
    "player-replaced": lambda p: f"REPLACE {p['side']}: {p['old_email']} by {p['email']}",
    "observer-added": lambda p: f"OBSERVE {p['email']} ({p['side'] or 'omniscient'})",
    "observer-removed": lambda p: f"UNOBSERVE {p['email']}",
    "game-started": lambda p: "START",
    "paused": lambda p: f"PAUSE: {p['reason']}",
    "resumed": lambda p: f"RESUME after {p['paused_for_seconds']} s",
    "deadline-extended": lambda p: f"EXTEND by {p['hours']:g} h to {p['deadline']}",
    "rolled-back": lambda p: (
        f"ROLLBACK to turn {p['turn']} {p['phase']}" + (" REPLOT" if p.get("replot") else "")
    ),
    "state-edited": lambda p: (
        f"EDIT turn {p['turn']} {p['phase']} {p['pointer']}: {p['old']!r} -> {p['value']!r}"
    ),
    "dispute-ruled": lambda p: f"RULE dispute {p['dispute']} {p['ruling']}: {p['reason']}",
    "settings-changed": lambda p: (
        "SET "
        + ", ".join(f"{k}: {v[0]!r} -> {v[1]!r}" for k, v in p["changed"].items())
        + f" ({p['reason']})"
    ),
    "moderator-message": lambda p: f"MESSAGE to {', '.join(p['to'])}: {p['text'][:80]}",
    "report-resent": lambda p: f"RESEND report {p['report']} ({p['audience']}) to {p['to']}",
    # Written after the entries of the command it names: who gave it, how, from where.
    "moderator-command": lambda p: (
        f"{p['command']} given by {p['by']} by {p['via']} ({p['origin']})"
    ),
}


def _act(kind: str, p: dict[str, Any]) -> str | None:
    """The line an entry gets in the audit, or None if it is no act of the moderator."""
    if kind == "adjudicate-ordered" and p.get("reason") == "moderator":
        return "ADJUDICATE"
    if kind == "game-over" and (p.get("outcome") or {}).get("level") == "ended by the moderator":
        return f"END: {p['outcome'].get('summary', '')}"
    describe = _ACTS.get(kind)
    if describe is None:
        return None
    try:
        return describe(p)
    except (KeyError, TypeError, IndexError):
        return kind  # an older entry's shape: name it at least


def audit_lines(gm: GameMaster, game_id: str) -> list[str]:
    out = []
    for e in journal.entries(gm.desk.session, game_id):
        what = _act(e["kind"], e["payload"])
        if what is None:
            continue
        at = datetime.fromisoformat(e["at"])
        out.append(f"  #{e['seq']} {when(at)} {what}")
    return out


def _audit(gm: GameMaster, a: list[str]) -> str:
    if a:
        ids = [gm.lookups.game(a[0], lock=False).id]
    else:
        ids = list(gm.desk.session.scalars(select(Game.id).order_by(Game.id)))
    out = []
    for game_id in ids:
        acts = audit_lines(gm, game_id)
        out.append(f"{game_id}: {len(acts)} act(s) of the moderator")
        out += acts
        # The reads, from the audit store: never in the record (pbem.lifecycle.readlog).
        count, reads = readlog.lines(gm.desk.session, game_id)
        out += readlog.heading(game_id, count, reads, ", not in the record")
    if not a:
        count, reads = readlog.lines_elsewhere(gm.desk.session, ids)
        out += readlog.heading("no one game", count, reads)
    return "\n".join(out) if out else "no games"


def failed_mail(gm: GameMaster) -> list[dict[str, Any]]:
    """Outgoing mail given up on: who did not get what, and why (FAILED's list)."""
    return [
        {
            "game": m.game_id or "",
            "id": m.id,
            "kind": str(m.kind),
            "to": m.recipient,
            "attempts": m.attempts,
            "error": m.last_error,
        }
        for m in delivery.failed(gm.desk.session)
    ]


# ------------------------------------------------------------------- acting


def _need(args: list[str], n: int, usage: str) -> None:
    if len(args) < n:
        raise LifecycleError(f"usage: {usage}")


def _audience(gm: GameMaster, game: Game, who: str) -> tuple[list[str], list[Seat]]:
    """The sides addressed and the seats that get the mail: one side's player, or
    ``all`` (every player and observer); one mail per address."""
    sides = gm.lookups.sides_of(game)
    if who.lower() == "all":
        seats = gm.lookups.seats(game.id)
        named = ["all"]
    elif who in sides:
        seat = gm.lookups.player(game.id, who)
        if seat is None:
            raise LifecycleError(f"side {who} of {game.id} has no player yet")
        seats, named = [seat], [who]
    else:
        raise LifecycleError(
            f"game {game.id} has no side {who!r}; say one of: {', '.join(sides)}, all"
        )
    unique: dict[str, Seat] = {}
    for s in seats:
        unique.setdefault(s.email, s)
    return named, list(unique.values())


def _message(gm: GameMaster, a: list[str]) -> str:
    _need(a, 3, 'MESSAGE game side|all "text"')
    game = gm.lookups.game(a[0])
    text = " ".join(a[2:]).strip()
    if not text:
        raise LifecycleError("the message is empty")
    named, seats = _audience(gm, game, a[1])
    entry = ModeratorMessage(to=named, emails=[s.email for s in seats], text=text)
    gm.desk.record(game, entry)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    for seat in seats:
        message = Outgoing(
            kind=OutboundKind.NOTICE,
            # Two messages of one mail share ``now``: the words tell them apart.
            cause=("message", game.id, gm.desk.now.isoformat(), digest, str(seat.id)),
            to=seat.email,
            subject=f"[pbem {game.id}] a message from the moderator",
            text=f"The moderator of game {game.id} writes"
            + (" to every player and observer" if named == ["all"] else f" to {named[0]}")
            + f":\n\n{text}\n",
            game_id=game.id,
            side=seat.side,
        )
        enqueue(gm.desk.session, gm.desk.config, message, gm.desk.now)
    return (
        f"message to {', '.join(named)} of {game.id} mailed to {', '.join(s.email for s in seats)}"
    )


def _resend(gm: GameMaster, a: list[str]) -> str:
    _need(a, 2, "RESEND game side [turn [phase]]")
    game = gm.lookups.game(a[0])
    if a[1] not in gm.lookups.sides_of(game):
        raise LifecycleError(f"game {game.id} has no side {a[1]!r}")
    seat = gm.lookups.player(game.id, a[1])
    if seat is None:
        raise LifecycleError(f"side {a[1]} of {game.id} has no player")
    stmt = select(Report).where(Report.game_id == game.id, Report.audience == a[1])
    if len(a) > 2:
        try:
            turn = int(a[2])
        except ValueError:
            raise LifecycleError(f"{a[2]!r} is not a turn number") from None
        phases = select(Phase.id).where(Phase.game_id == game.id, Phase.turn == turn)
        if len(a) > 3:
            phases = phases.where(Phase.name == a[3])
        stmt = stmt.where(Report.phase_id.in_(phases))
    report = gm.desk.session.scalars(stmt.order_by(Report.id.desc()).limit(1)).first()
    if report is None:
        wanted = f" for turn {' '.join(a[2:])}" if len(a) > 2 else ""
        raise LifecycleError(f"no report to {a[1]} of {game.id}{wanted} has been sent")
    sent = when(report.created_at)
    note = (
        f"RESENT at the moderator's request: a copy of the report first sent {sent}. "
        "Nothing in it has changed.\n\n"
    )
    # The HTML part says it too, above everything (a report without one gets none).
    marker = f"<p><b>{note.strip()}</b></p>"
    html = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + marker, report.html, count=1)
    subject = f"[pbem {game.id}] RESENT: {report.subject[len(game.id) + 2 :]}"
    resent = Outgoing(
        kind=OutboundKind.NOTICE,  # not a new report: the record keeps one report-queued per report
        cause=("resend", game.id, str(report.id), str(seat.id), gm.desk.now.isoformat()),
        to=seat.email,
        subject=subject,
        text=note + report.text,
        html=html or None,
        attachments=((f"{game.id}-report-{report.id}.png", "image/png", report.png),)
        if report.png
        else (),
        game_id=game.id,
        side=seat.side,
    )
    enqueue(gm.desk.session, gm.desk.config, resent, gm.desk.now)
    gm.desk.record(
        game, ReportResent(report=report.id, audience=a[1], to=seat.email, subject=subject)
    )
    return f"report {report.subject!r} (first sent {sent}) resent to {seat.email}"


def _set(gm: GameMaster, a: list[str]) -> str:
    usage = "SET game key=value [key=value ...] [reason]"
    _need(a, 2, usage)
    game = gm.lookups.game(a[0])
    if game.status == GameStatus.OVER:
        raise LifecycleError(f"game {game.id} is over; nothing to set")
    pairs: list[tuple[str, str]] = []
    words = a[1:]
    while words and "=" in words[0] and words[0].partition("=")[0].isidentifier():
        key, _, value = words.pop(0).partition("=")
        pairs.append((key, value))
    if not pairs:
        raise LifecycleError(f"usage: {usage}")
    reason = " ".join(words) or "no reason given"
    info = next(
        (sc for sc in gm.lookups.ruleset(game).scenarios() if sc.name == game.scenario), None
    )
    if info is None:
        raise LifecycleError(f"scenario {game.scenario} vanished from ruleset {game.ruleset}")
    allowed = sorted(SETTINGS) + (sorted(info.options) if game.status == GameStatus.CREATED else [])
    settings = dict(game.settings)
    options = {k: v for k, v in game.options.items() if k not in DATA_KEYS}
    changed: dict[str, list[Any]] = {}
    for key, value in pairs:
        if key in SETTINGS:
            try:
                settings[key] = SETTINGS[key](value)
            except ValueError as exc:
                raise LifecycleError(f"{key}={value!r} is not a valid value: {exc}") from None
            changed[key] = [game.settings.get(key), settings[key]]
        elif key in info.options:
            if game.status != GameStatus.CREATED:
                raise LifecycleError(
                    f"option {key} is in effect since START; SET changes options only "
                    f"before START. SET takes now: {', '.join(allowed)}"
                )
            options[key] = value
            changed[key] = [game.options.get(key), value]
        else:
            raise LifecycleError(f"SET cannot change {key!r}; it takes: {', '.join(allowed)}")
    for side in gm.lookups.sides_of(game):
        try:
            deadlines.no_orders_policy(settings, side)
        except ValueError as exc:
            raise LifecycleError(str(exc)) from None
    new_options = None
    if any(k not in SETTINGS for k in changed):
        options.update({k: game.options[k] for k in DATA_KEYS if k in game.options})
        new_options = checked_options(info, options)
        for key in changed:
            if key in new_options:
                changed[key][1] = new_options[key]
        game.options = new_options
    game.settings = settings
    gm.desk.record(game, SettingsChanged(changed=changed, options=new_options, reason=reason))
    done = ", ".join(f"{k}={v[1]!r}" for k, v in changed.items())
    note = ""
    if (
        gm.lookups.open_phase(game.id) is not None
        and {
            "deadline_hours",
            "grace_hours",
            "reminder_hours",
        }
        & changed.keys()
    ):
        note = "; the open phase keeps its deadline (EXTEND moves it), the next phases use these"
    return f"{game.id}: {done} ({reason}){note}"


def _delete(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "DELETE game")
    game = gm.lookups.game(a[0])
    if game.status != GameStatus.CREATED:
        raise LifecycleError(
            f"game {game.id} is {game.status}; only a game not started is deleted (END ends one)"
        )
    s = gm.desk.session
    seats = s.scalars(select(Seat).where(Seat.game_id == game.id)).all()
    entries = s.scalars(select(RecordEntry).where(RecordEntry.game_id == game.id)).all()
    keys = s.scalars(select(SeatKey).where(SeatKey.seat_id.in_([seat.id for seat in seats]))).all()
    for row in (*keys, *entries):
        s.delete(row)
    s.flush()  # the keys go before the seats they belong to
    for row in seats:
        s.delete(row)
    s.flush()  # the seats go before the game they point to
    s.delete(game)
    s.flush()
    gm.lookups.forget()
    return f"game {game.id} deleted with its {len(seats)} seat(s) and {len(entries)} record entries"


def _unobserve(gm: GameMaster, a: list[str]) -> str:
    _need(a, 2, "UNOBSERVE game email")
    game = gm.lookups.game(a[0])
    email = a[1].strip().lower()
    seats = [s for s in gm.lookups.seats(game.id, role=SeatRole.OBSERVER) if s.email == email]
    if not seats:
        raise LifecycleError(f"{email} does not observe {game.id}")
    for seat in seats:
        seat.active = False
        seat.retired_at = gm.desk.now
        gm.desk.record(game, ObserverRemoved(email=email, side=seat.side))
    return f"{email} no longer observes {game.id}"


COMMANDS: dict[str, Callable[[GameMaster, list[str]], str]] = {
    "LIST": _list,
    "SEATS": _seats,
    "DISPUTES": _disputes,
    "AUDIT": _audit,
    "MESSAGE": _message,
    "RESEND": _resend,
    "SET": _set,
    "DELETE": _delete,
    "UNOBSERVE": _unobserve,
}
