"""Moderator commands: one command set, by signed mail and by the CLI.

Each line is one command; ``execute`` runs it against the game machine and
returns what it did, or raises ``LifecycleError`` saying why not. Every act
lands in the game's record through the game machine's job it calls (pbem.lifecycle.games).

    CREATE game ruleset scenario [option=value ...]   overrides=<TOML>: per-game data
                                                      corrections; settings: deadline_hours=,
                                                      grace_hours=, no_orders_policy=,
                                                      early_adjudication=; others are
                                                      the scenario's options (e.g.
                                                      fog=double-blind subs=on), checked:
                                                      the answer lists every one in force
    ASSIGN game side email KEY [tz=Area/City]         KEY: an OpenSSH ed25519 line,
                                                      or smime:<base64 DER certificate>
    REPLACE game side email KEY [tz=Area/City]        takeover: the old key stops working
    OBSERVE game email [side]                         no side: omniscient observer
    START game | PAUSE game [reason] | RESUME game
    EXTEND game hours | ADJUDICATE game | STATUS game
    ROLLBACK game turn phase [REPLOT]
    RULE game dispute-id UPHELD|DISMISSED reason
    EDIT game /json/pointer value                     correcting edit of the open phase's
                                                      state; value is JSON (else a string)
    END game [reason]
    FAILED [game]                                     mail that could not be sent
    RESEND-MAIL id [id ...]                           send failed mail again
"""

from __future__ import annotations

import base64
import json
import shlex
import tomllib
from collections.abc import Callable
from typing import Any

from pbem.core.errors import LifecycleError
from pbem.core.options import describe as describe_options
from pbem.lifecycle.games import GameMaster
from pbem.outbox import delivery
from pbem.outbox.queue import enqueue
from pbem.storage.enums import OutboundKind, SeatRole

SETTING_KEYS: dict[str, Callable[[str], Any]] = {
    "deadline_hours": float,
    "grace_hours": float,
    "reminder_hours": float,
    "early_adjudication": lambda v: str(v).lower() in ("1", "true", "yes", "on"),
    "no_orders_policy": str,
    "max_pauses": int,
    "max_pause_days": float,
    "max_extension_hours": float,
}


def _need(args: list[str], n: int, usage: str) -> None:
    if len(args) < n:
        raise LifecycleError(f"usage: {usage}")


def _key_args(words: list[str]) -> tuple[str | None, bytes | None, str]:
    """An OpenSSH key (2 or 3 words) or smime:<base64>, then optional tz=Zone."""
    tz = "UTC"
    rest = []
    for w in words:
        if w.startswith("tz="):
            tz = w[3:]
        else:
            rest.append(w)
    if not rest:
        raise LifecycleError("a key is required: an OpenSSH ed25519 line or smime:<base64 DER>")
    if rest[0].startswith("smime:"):
        from cryptography import x509
        from cryptography.hazmat.primitives.serialization import Encoding

        try:
            der = base64.b64decode(rest[0][6:], validate=True)
            pem = x509.load_der_x509_certificate(der).public_bytes(Encoding.PEM)
        except ValueError as exc:
            raise LifecycleError(f"unusable certificate: {exc}") from None
        return None, pem, tz
    return " ".join(rest), None, tz


def _create(gm: GameMaster, a: list[str]) -> str:
    _need(a, 3, "CREATE game ruleset scenario [option=value ...]")
    options: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    for pair in a[3:]:
        key, sep, value = pair.partition("=")
        if not sep:
            raise LifecycleError(f"{pair!r}: options are written key=value")
        if key == "overrides":
            # The moderator's per-game data corrections, as TOML (CLI: overrides=@file.toml).
            try:
                options[key] = tomllib.loads(value)
            except tomllib.TOMLDecodeError as exc:
                raise LifecycleError(f"overrides: not valid TOML: {exc}") from None
        elif key in SETTING_KEYS:
            try:
                settings[key] = SETTING_KEYS[key](value)
            except ValueError:
                raise LifecycleError(f"{key}={value!r} is not a valid value") from None
        else:
            options[key] = value
    game = gm.acts.create_game(a[0], a[1], a[2], options, settings)
    rules = {k: v for k, v in game.options.items() if k != "overrides"}
    in_force = describe_options(rules) if rules else "none"
    return f"game {game.id} created ({game.ruleset}, {game.scenario}); options: {in_force}"


def _assign(gm: GameMaster, a: list[str]) -> str:
    _need(a, 4, "ASSIGN game side email KEY [tz=Zone]")
    key, cert, tz = _key_args(a[3:])
    seat = gm.acts.assign(a[0], a[1], a[2], public_key=key, certificate=cert, timezone=tz)
    return f"{seat.email} plays {seat.side} in {a[0]} (key {seat.key_fingerprint or seat.cert_fingerprint})"


def _replace(gm: GameMaster, a: list[str]) -> str:
    _need(a, 4, "REPLACE game side email KEY [tz=Zone]")
    key, cert, tz = _key_args(a[3:])
    seat = gm.acts.replace_player(a[0], a[1], a[2], public_key=key, certificate=cert, timezone=tz)
    return f"{seat.email} takes over {seat.side} in {a[0]}; the previous key no longer works"


def _observe(gm: GameMaster, a: list[str]) -> str:
    _need(a, 2, "OBSERVE game email [side]")
    seat = gm.acts.add_observer(a[0], a[1], a[2] if len(a) > 2 else None)
    return f"{seat.email} observes {a[0]} ({seat.side or 'omniscient'})"


def _start(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "START game")
    phase = gm.acts.start(a[0])
    return f"game {a[0]} started" + (
        f"; turn {phase.turn} phase {phase.name} open" if phase else ""
    )


def _pause(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "PAUSE game [reason]")
    gm.acts.pause(a[0], " ".join(a[1:]) or "no reason given")
    return f"game {a[0]} paused"


def _resume(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "RESUME game")
    gm.acts.resume(a[0])
    return f"game {a[0]} resumed"


def _extend(gm: GameMaster, a: list[str]) -> str:
    _need(a, 2, "EXTEND game hours")
    try:
        hours = float(a[1])
    except ValueError:
        raise LifecycleError(f"{a[1]!r} is not a number of hours") from None
    phase = gm.acts.extend(a[0], hours)
    return f"deadline of {a[0]} turn {phase.turn} {phase.name} is now {phase.deadline:%Y-%m-%d %H:%M} UTC"


def _adjudicate(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "ADJUDICATE game")
    result = gm.phases.adjudicate_now(a[0])
    nxt = result.next_phase
    return f"{a[0]} turn {result.phase.turn} {result.phase.name} adjudicated" + (
        f"; turn {nxt.turn} {nxt.name} open" if nxt else "; the game is over"
    )


def _rollback(gm: GameMaster, a: list[str]) -> str:
    _need(a, 3, "ROLLBACK game turn phase [REPLOT]")
    try:
        turn = int(a[1])
    except ValueError:
        raise LifecycleError(f"{a[1]!r} is not a turn number") from None
    replot = len(a) > 3 and a[3].upper() == "REPLOT"
    phase = gm.corrections.rollback(a[0], turn, a[2], replot=replot)
    how = "players plot again under a new seed" if replot else "same orders and seed, locked"
    return f"{a[0]} rolled back to turn {phase.turn} {phase.name} ({how})"


def _rule(gm: GameMaster, a: list[str]) -> str:
    _need(a, 4, "RULE game dispute-id UPHELD|DISMISSED reason")
    verdict = a[2].upper()
    if verdict not in ("UPHELD", "DISMISSED"):
        raise LifecycleError("a ruling is UPHELD or DISMISSED")
    try:
        dispute_id = int(a[1])
    except ValueError:
        raise LifecycleError(f"{a[1]!r} is not a dispute number") from None
    reason = " ".join(a[3:])
    dispute = gm.disputes.rule(a[0], dispute_id, verdict == "UPHELD", reason)
    for seat in gm.lookups.seats(a[0], role=SeatRole.PLAYER):
        enqueue(
            gm.desk.session,
            gm.desk.config,
            kind=OutboundKind.NOTICE,
            cause=("ruling", a[0], str(dispute_id), str(seat.id)),
            to=seat.email,
            subject=f"[pbem {a[0]}] ruling on dispute {dispute_id}: {dispute.status}",
            text=(
                f"The moderator has ruled on dispute {dispute_id} (filed by {dispute.side}):\n\n"
                f"  {dispute.status.upper()}: {reason}\n\n{dispute.text}\n"
            ),
            now=gm.desk.now,
            game_id=a[0],
            side=seat.side,
        )
    return f"dispute {dispute_id} {dispute.status}"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} has no place in a game state")  # NaN, Infinity: not JSON


def _edit(gm: GameMaster, a: list[str]) -> str:
    _need(a, 3, "EDIT game /json/pointer value")
    text = " ".join(a[2:])
    try:
        value: Any = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        value = text  # a bare word is meant as a string: EDIT g1 /weather/A storm
    phase, old = gm.corrections.edit_state(a[0], a[1], value)
    return (
        f"{a[0]} turn {phase.turn} {phase.name}: {a[1]} set to {json.dumps(value)} "
        f"(was {json.dumps(old)}); recorded as a correcting edit"
    )


def _end(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "END game [reason]")
    gm.acts.end(a[0], " ".join(a[1:]) or "ended by the moderator")
    return f"game {a[0]} ended"


def _status(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "STATUS game")
    game = gm.lookups.game(a[0], lock=False)
    phase = gm.lookups.open_phase(a[0])
    failed = delivery.failed_count(gm.desk.session, game.id)
    unsent = f"; {failed} mail(s) failed to send (FAILED {game.id})" if failed else ""
    if phase is None:
        return f"{game.id}: {game.status}{unsent}"
    # Only who is in: nobody reads a sealed plot before adjudication. A side whose
    # mail had refused lines is "held": the round waits for its correction or DONE.
    holds = gm.lookups.who_holds(phase)
    who = ", ".join(
        f"{s}: {'held' if holds[s] else 'in' if v else 'missing'}"
        for s, v in gm.lookups.who_has_plotted(phase).items()
    )
    deadline = f"{phase.deadline:%Y-%m-%d %H:%M} UTC" if phase.deadline else "none"
    return (
        f"{game.id}: {game.status}, turn {phase.turn} {phase.name}, deadline {deadline}; "
        f"{who}{unsent}"
    )


def _failed(gm: GameMaster, a: list[str]) -> str:
    rows = delivery.failed(gm.desk.session, a[0] if a else None)
    if not rows:
        return "no failed mail" + (f" in {a[0]}" if a else "")
    return "\n".join(
        f"mail {r.id}: {r.kind}{f' of {r.game_id}' if r.game_id else ''} to {r.recipient}, "
        f"{r.attempts} attempt(s): {r.last_error.splitlines()[0] if r.last_error else '?'}"
        for r in rows
    )


def _resend_mail(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "RESEND-MAIL id [id ...]")
    if not all(w.isdigit() for w in a):
        raise LifecycleError("usage: RESEND-MAIL id [id ...], ids as FAILED lists them")
    asked = [int(w) for w in a]
    done = delivery.resend(gm.desk.session, asked, gm.desk.now)
    if missing := [i for i in asked if i not in done]:
        raise LifecycleError(f"no failed mail {', '.join(map(str, missing))} (see FAILED)")
    return f"mail {', '.join(map(str, done))} queued to be sent again"


COMMANDS: dict[str, Callable[[GameMaster, list[str]], str]] = {
    "CREATE": _create,
    "ASSIGN": _assign,
    "REPLACE": _replace,
    "OBSERVE": _observe,
    "START": _start,
    "PAUSE": _pause,
    "RESUME": _resume,
    "EXTEND": _extend,
    "ADJUDICATE": _adjudicate,
    "ROLLBACK": _rollback,
    "RULE": _rule,
    "EDIT": _edit,
    "END": _end,
    "STATUS": _status,
    "FAILED": _failed,
    "RESEND-MAIL": _resend_mail,
}


def execute(gm: GameMaster, line: str) -> str:
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise LifecycleError(f"cannot read the command: {exc}") from None
    if not words:
        raise LifecycleError("empty command")
    command = COMMANDS.get(words[0].upper())
    if command is None:
        raise LifecycleError(
            f"unknown command {words[0]!r}; commands: {', '.join(sorted(COMMANDS))}"
        )
    return command(gm, words[1:])
