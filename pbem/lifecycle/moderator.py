"""Moderator commands: one command set, by signed mail and by the CLI.

Each line is one command; ``execute`` runs it against the game machine and
returns what it did, or raises ``LifecycleError`` saying why not. Every act
lands in the game's record through the game machine's job it calls (pbem.lifecycle.games).

    CREATE game ruleset scenario [option=value ...]   overrides=<TOML>: per-game data
                                                      corrections (witp: datapack=<TOML>,
                                                      the game's own data pack);
                                                      settings: deadline_hours=,
                                                      grace_hours=, no_orders_policy=,
                                                      early_adjudication=; others are
                                                      the scenario's options (e.g.
                                                      fog=double-blind subs=on), checked:
                                                      the answer lists every one in force
    ASSIGN game side email KEY [tz=Area/City]         KEY: an OpenSSH ed25519 line,
           [encrypt=yes]                              smime:<base64 DER certificate> or
                                                      openpgp:<base64 OpenPGP public key>;
                                                      encrypt=yes: answers and reports
                                                      encrypted to the player's OpenPGP
                                                      key or RSA S/MIME certificate
    REPLACE game side email KEY [tz=Area/City]        takeover: the old key stops working
    KEY game side ADD KEY | RETIRE fingerprint | LIST a seat's keys: rotation (add the
                                                      new key, then retire the old one)
    KEY game side ENCRYPT yes|no                      opt in to/out of encrypted mail
    OBSERVE game email [side]                         no side: omniscient observer
    START game | PAUSE game [reason] | RESUME game
    EXTEND game hours | ADJUDICATE game [NOW] | STATUS game
                                                      NOW: adjudicate although a side a
                                                      rollback let plot again has not
    ROLLBACK game turn phase [REPLOT] [FORCE] [reason]
                                                      the game is then held: EDIT if need
                                                      be, then ADJUDICATE (re-run now) or
                                                      RESUME (orders due from now); an
                                                      ended game only with FORCE and a
                                                      reason (its sides have seen all)
    RULE game dispute-id UPHELD|DISMISSED text        one text, read by every side
    RULE game dispute-id UPHELD|DISMISSED side="text" side="text"
                                                      one text per side, every side named
    EDIT game /json/pointer value                     correcting edit of an existing value
                                                      of the open phase's state; value is
                                                      JSON (else a string), of the type the
                                                      value replaced, within the ruleset's
                                                      checks of the state
    UPGRADE game [reason]                             move the game to this pbem's rules
                                                      (ruleset version, data) from its open
                                                      phase on; announced to every seat
    END game [reason]
    FAILED [game]                                     mail that could not be sent
    RESEND-MAIL id [id ...]                           send failed mail again

Words are split as a shell does: quote a text with an apostrophe in double quotes
("the carrier's escort"). Every act is announced to the seats it concerns. A
command that changes a game is written into the game's record (published when
the game ends); a command that only reads is kept in the audit store
(pbem.lifecycle.readlog: AUDIT shows it; never exported) and logged to ``pbem.audit``,
never written into the record.
The tools between turns (LIST, SEATS, DISPUTES, AUDIT, MESSAGE, RESEND, SET,
DELETE, UNOBSERVE) live in pbem.lifecycle.season; docs/moderator.md describes them.
"""

from __future__ import annotations

import base64
import json
import logging
import shlex
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pbem.core.errors import LifecycleError
from pbem.core.options import describe as describe_options
from pbem.intake.keyring import PublicKey, key_warnings, read_key
from pbem.lifecycle import readlog, season, upgrades
from pbem.lifecycle.acts import DATA_KEYS
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.revocation import given_revocation, is_revoked
from pbem.lifecycle.settings import SETTINGS
from pbem.outbox import delivery
from pbem.record.payloads import ModeratorCommand
from pbem.record.rules import describe as describe_rules
from pbem.storage.enums import KeyKind
from pbem.storage.models import Game, SeatKey
from pbem.storage.seatkeys import seat_keys

# The moderator's reads (STATUS, LIST, AUDIT ...): never in a game's record; kept in
# the audit store (pbem.lifecycle.readlog) and logged.
audit_log = logging.getLogger("pbem.audit")
# What the record and the audit store say of a command given at the command line:
# the local user and host name go only to the log, since the record is published
# when the game ends.
CLI_BY, CLI_ORIGIN = "moderator", "command line"


@dataclass(frozen=True)
class Actor:
    """Who gives a command, how and from where: recorded in the game's record."""

    by: str  # the sender's address (mail), the local user (CLI)
    via: str  # "mail" | "cli"
    origin: str  # the mail's Message-ID, or the CLI's host


def _need(args: list[str], n: int, usage: str) -> None:
    if len(args) < n:
        raise LifecycleError(f"usage: {usage}")


def _key_args(words: list[str]) -> tuple[str | None, bytes | None, bytes | None, str]:
    """A key, then optional tz=Zone: (OpenSSH line, S/MIME PEM, OpenPGP key, zone)."""
    tz = "UTC"
    rest = []
    for w in words:
        if w.startswith("tz="):
            tz = w[3:]
        else:
            rest.append(w)
    if not rest:
        raise LifecycleError(
            "a key is required: an OpenSSH ed25519 line, smime:<base64 DER> or openpgp:<base64 key>"
        )
    key = _public_key(rest)
    material = key.material
    if key.kind == KeyKind.SMIME:
        return None, material, None, tz
    if key.kind == KeyKind.OPENPGP:
        return None, None, material, tz
    return material.decode("ascii"), None, None, tz


# A key in a command is the key itself: by mail there is no file to read (the CLI
# reads @FILE and says so when the "@" is forgotten), so a lone word that is neither
# a prefixed key nor a key line is most often a key file's name.
PASTE_A_KEY = (
    "paste the public key itself on the command's line: the whole line of the .pub "
    "file, 'ssh-ed25519 AAAA... comment' (an S/MIME certificate as smime:<base64 DER>, "
    "an OpenPGP key as openpgp:<base64 key>)"
)


PREFIXES = ("smime:", "openpgp:", "ssh-")  # the CLI's @FILE arrives as one such word


def _public_key(words: list[str]) -> PublicKey:
    """KEY as written in a command: smime:<base64 DER certificate>, openpgp:<base64
    OpenPGP key> (the CLI writes these for @FILE), or an OpenSSH line."""
    first = words[0]
    if len(words) == 1 and not first.split()[1:] and not first.startswith(PREFIXES):
        raise LifecycleError(f"{first!r} is not a key: {PASTE_A_KEY}")
    try:
        if first.startswith("smime:"):
            from cryptography import x509
            from cryptography.hazmat.primitives.serialization import Encoding

            der = base64.b64decode(first[6:], validate=True)
            pem = x509.load_der_x509_certificate(der).public_bytes(Encoding.PEM)
            return read_key(KeyKind.SMIME, pem)
        if first.startswith("openpgp:"):
            return read_key(KeyKind.OPENPGP, base64.b64decode(first[8:], validate=True))
        return read_key(KeyKind.ED25519, " ".join(words).encode("utf-8"))
    except ValueError as exc:
        raise LifecycleError(f"unusable key or certificate: {exc}") from None


def _key_warnings(gm: GameMaster, keys: list[SeatKey]) -> str:
    """Accepted, but worth a word: an expired or not yet valid key or certificate."""
    found = [
        w
        for k in keys
        for w in key_warnings(PublicKey(k.kind, k.fingerprint, k.material), gm.desk.now)
    ]
    return "".join(f"; {w}" for w in found)


def _create(gm: GameMaster, a: list[str]) -> str:
    _need(a, 3, "CREATE game ruleset scenario [option=value ...]")
    options: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    given: dict[str, str] = {}  # key -> value as written: no key twice
    for pair in a[3:]:
        key, sep, value = pair.partition("=")
        if not sep:
            raise LifecycleError(f"{pair!r}: options are written key=value")
        if key in given:
            raise LifecycleError(
                f"option {key} is given twice ({key}={given[key]}, {pair}): give it once"
            )
        given[key] = value
        if key in DATA_KEYS:
            # The moderator's per-game data, as TOML (CLI: overrides=@file.toml,
            # datapack=@pack.toml); kept as JSON (a TOML date becomes its ISO text).
            try:
                options[key] = json.loads(json.dumps(tomllib.loads(value), default=str))
            except tomllib.TOMLDecodeError as exc:
                raise LifecycleError(f"{key}: not valid TOML: {exc}") from None
        elif key in SETTINGS:
            try:
                settings[key] = SETTINGS[key](value)
            except ValueError:
                raise LifecycleError(
                    f"{key}={value!r} is not a valid value"
                    + (
                        ""
                        if key in ("early_adjudication", "no_orders_policy")
                        else " (a number more than 0)"
                    )
                ) from None
        else:
            options[key] = value
    game = gm.acts.create_game(a[0], a[1], a[2], options, settings)
    rules = {k: v for k, v in game.options.items() if k not in DATA_KEYS}
    in_force = describe_options(rules) if rules else "none"
    return f"game {game.id} created ({game.ruleset}, {game.scenario}); options: {in_force}"


def _assign(gm: GameMaster, a: list[str]) -> str:
    _need(a, 4, "ASSIGN game side email KEY [tz=Zone] [encrypt=yes]")
    words, encrypt = _encrypt_option(a[3:])
    key, cert, pgp, tz = _key_args(words)
    seat = gm.acts.assign(
        a[0], a[1], a[2], public_key=key, certificate=cert, openpgp=pgp, timezone=tz
    )
    keys = seat_keys(gm.desk.session, a[0], a[1])
    return (
        f"{seat.email} plays {seat.side} in {a[0]} (key {keys[0].fingerprint})"
        + _key_warnings(gm, keys)
        + _encryption(gm, a[0], a[1], encrypt)
    )


def _replace(gm: GameMaster, a: list[str]) -> str:
    _need(a, 4, "REPLACE game side email KEY [tz=Zone] [encrypt=yes]")
    words, encrypt = _encrypt_option(a[3:])
    key, cert, pgp, tz = _key_args(words)
    seat = gm.acts.replace_player(
        a[0], a[1], a[2], public_key=key, certificate=cert, openpgp=pgp, timezone=tz
    )
    return (
        f"{seat.email} takes over {seat.side} in {a[0]}; the previous key no longer works"
        + _key_warnings(gm, seat_keys(gm.desk.session, a[0], a[1]))
        + _encryption(gm, a[0], a[1], encrypt)
    )


_YES_NO = {"yes": True, "on": True, "true": True, "no": False, "off": False, "false": False}


def _yes_no(word: str, what: str) -> bool:
    try:
        return _YES_NO[word.lower()]
    except KeyError:
        raise LifecycleError(f"{what}: {word!r} is not yes or no") from None


def _encrypt_option(words: list[str]) -> tuple[list[str], bool]:
    """ASSIGN's and REPLACE's ``encrypt=yes|no``, taken out of the key's words."""
    encrypt = False
    rest = []
    for word in words:
        if word.lower().startswith("encrypt="):
            encrypt = _yes_no(word.partition("=")[2], "encrypt")
        else:
            rest.append(word)
    return rest, encrypt


def _encryption(gm: GameMaster, game_id: str, side: str, encrypt: bool) -> str:
    """Opt the player in; what to add to the answer."""
    if not encrypt:
        return ""
    key = gm.acts.set_encryption(game_id, side, True)
    assert key is not None
    return f"; answers and reports to {side} are encrypted to {key.kind} key {key.fingerprint}"


def _key(gm: GameMaster, a: list[str]) -> str:
    usage = (
        "KEY game side ADD KEY | KEY game side RETIRE fingerprint | KEY game side LIST | "
        "KEY game side ENCRYPT yes|no"
    )
    _need(a, 3, usage)
    game_id, side, verb = a[0], a[1], a[2].upper()
    if verb == "ADD":
        _need(a, 4, usage)
        if revoked := _revocation(gm, game_id, side, a[3]):
            return revoked
        key = gm.acts.add_key(game_id, side, _public_key(a[3:]))
        return f"{side} in {game_id} may sign with {key.kind} key {key.fingerprint}" + (
            _key_warnings(gm, [key])
        )
    if verb == "RETIRE":
        _need(a, 4, usage)
        key = gm.acts.retire_key(game_id, side, a[3])
        return f"{key.kind} key {key.fingerprint} of {side} in {game_id} retired"
    if verb == "ENCRYPT":
        _need(a, 4, usage)
        if _yes_no(a[3], "ENCRYPT"):
            chosen = gm.acts.set_encryption(game_id, side, True)
            assert chosen is not None
            return (
                f"answers and reports to {side} in {game_id} are encrypted to "
                f"{chosen.kind} key {chosen.fingerprint}"
            )
        gm.acts.set_encryption(game_id, side, False)
        return f"answers and reports to {side} in {game_id} are no longer encrypted"
    if verb == "LIST":
        keys = seat_keys(gm.desk.session, game_id, side, retired=True)
        return f"{side} in {game_id}: " + (
            "; ".join(
                f"{k.kind} {k.fingerprint} "
                + (f"retired {k.retired_at:%Y-%m-%d}" if k.retired_at else "in use")
                + (" (revoked)" if is_revoked(k) else "")
                for k in keys
            )
            or "no player"
        )
    raise LifecycleError(f"usage: {usage}")


def _revocation(gm: GameMaster, game_id: str, side: str, word: str) -> str | None:
    """KEY ADD of a revoked OpenPGP key (or its revocation certificate) retires it."""
    if not word.startswith("openpgp:"):
        return None
    try:
        data = base64.b64decode(word[8:], validate=True)
    except ValueError:
        return None  # _public_key says what is wrong with it
    return given_revocation(gm.desk, game_id, side, data)


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
    """Ends a pause, and the hold a rollback left (the phase's orders are due from now)."""
    _need(a, 1, "RESUME game")
    game = gm.lookups.game(a[0])
    held = game.held
    if game.status != "paused" and not held:
        raise LifecycleError(f"game {a[0]} is neither paused nor held")
    if held and held.startswith(upgrades.RULES_HOLD):
        upgrades.refuse_other_rules(gm.lookups, game)  # ended by UPGRADE, not RESUME
    if game.status == "paused":
        gm.acts.resume(a[0])
    if held:
        phase = gm.corrections.release(game)
        if phase is not None and phase.deadline is not None:
            return (
                f"game {a[0]} released ({held}); turn {phase.turn} {phase.name} orders due "
                f"by {phase.deadline:%Y-%m-%d %H:%M} UTC"
            )
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
    _need(a, 1, "ADJUDICATE game [NOW]")
    if len(a) > 2 or (len(a) == 2 and a[1].upper() != "NOW"):
        raise LifecycleError("usage: ADJUDICATE game [NOW]")
    if len(a) == 1:
        _refuse_before_replot(gm, a[0])
    result = gm.phases.adjudicate_now(a[0])
    nxt = result.next_phase
    return f"{a[0]} turn {result.phase.turn} {result.phase.name} adjudicated" + (
        f"; turn {nxt.turn} {nxt.name} open" if nxt else "; the game is over"
    )


def _refuse_before_replot(gm: GameMaster, game_id: str) -> None:
    """ADJUDICATE without NOW waits for the sides a rollback told they may send
    orders again: adjudicating at once would take their orders from them."""
    game = gm.lookups.game(game_id)
    phase = gm.lookups.open_phase(game_id)
    owed = gm.corrections.replot_owed(game, phase) if phase is not None else []
    if phase is None or not owed:
        return
    raise LifecycleError(
        f"{', '.join(owed)} {'was' if len(owed) == 1 else 'were'} told by the rollback that "
        f"{'it' if len(owed) == 1 else 'they'} may send orders for turn {phase.turn} "
        f"{phase.name} again, and {'has' if len(owed) == 1 else 'have'} not: RESUME "
        f"{game_id} and wait for the orders, or ADJUDICATE {game_id} NOW to adjudicate "
        "without them (the no-orders policy applies); nothing was done"
    )


_ROLLBACK_FLAGS = ("REPLOT", "FORCE")


def _rollback(gm: GameMaster, a: list[str]) -> str:
    _need(a, 3, "ROLLBACK game turn phase [REPLOT] [FORCE] [reason]")
    try:
        turn = int(a[1])
    except ValueError:
        raise LifecycleError(f"{a[1]!r} is not a turn number") from None
    rest, flags = a[3:], set()
    while rest and rest[0].upper() in _ROLLBACK_FLAGS:
        flags.add(rest.pop(0).upper())
    replot = "REPLOT" in flags
    reason = " ".join(rest)
    phase = gm.corrections.rollback(
        a[0], turn, a[2], replot=replot, reason=reason, force="FORCE" in flags
    )
    open_to = sorted(gm.corrections.may_plot(phase))
    how = (
        "players plot again under a new seed"
        if replot
        else f"orders on file locked; {', '.join(open_to)} may send orders, under a new seed"
        if open_to
        else "same orders and seed, locked"
    )
    return (
        f"{a[0]} rolled back to turn {phase.turn} {phase.name} ({how}); the game is held: "
        f"EDIT if need be, then ADJUDICATE {a[0]} or RESUME {a[0]}"
    )


def _rule(gm: GameMaster, a: list[str]) -> str:
    usage = 'RULE game dispute-id UPHELD|DISMISSED text  (or side="text" for every side)'
    _need(a, 4, usage)
    verdict = a[2].upper()
    if verdict not in ("UPHELD", "DISMISSED"):
        raise LifecycleError("a ruling is UPHELD or DISMISSED")
    try:
        dispute_id = int(a[1])
    except ValueError:
        raise LifecycleError(f"{a[1]!r} is not a dispute number") from None
    sides = gm.lookups.sides_of(gm.lookups.game(a[0]))
    per_side = [w.partition("=") for w in a[3:]]
    rulings: dict[str, str] | None = None
    if per_side[0][1] and per_side[0][0] in sides:
        # north="text" south="text": the dispute text may name what a side must not
        # know, so each side reads only what the moderator wrote for it.
        rulings = {}
        for side, sep, text in per_side:
            if not sep or side not in sides:
                raise LifecycleError(f'{side + sep + text!r}: write side="text" for each side')
            if side in rulings:
                raise LifecycleError(f"{side} is given two rulings")
            if not text.strip():
                raise LifecycleError(f"the ruling for {side} is empty")
            rulings[side] = text.strip()
        reason = "; ".join(f"{s}: {t}" for s, t in rulings.items())
    else:
        reason = " ".join(a[3:])
    dispute = gm.disputes.rule(a[0], dispute_id, verdict == "UPHELD", reason, rulings)
    told = "each side its own text" if rulings else "every side the same text"
    return f"dispute {dispute_id} {dispute.status}; the players were told ({told})"


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


def _upgrade(gm: GameMaster, a: list[str]) -> str:
    _need(a, 1, "UPGRADE game [reason]")
    reason = " ".join(a[1:]) or "moved by the moderator"
    phase = upgrades.upgrade(gm.desk, gm.lookups, a[0], reason)
    game = gm.lookups.game(a[0])
    where = f" from turn {phase.turn} {phase.name} on" if phase is not None else ""
    return (
        f"{a[0]} now plays by {describe_rules(game.ruleset, game.rules)}{where}; "
        "the players were told"
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
        outcome = season.outcome_text(game.outcome)
        return f"{game.id}: {game.status}" + (f"; outcome: {outcome}" if outcome else "") + unsent
    # Only who is in: nobody reads a sealed plot before adjudication. A side whose
    # mail had refused lines is "held": the round waits for its correction or DONE.
    holds = gm.lookups.who_holds(phase)
    who = ", ".join(
        f"{s}: {'held' if holds[s] else 'in' if v else 'missing'}"
        for s, v in gm.lookups.who_has_plotted(phase).items()
    )
    deadline = f"{phase.deadline:%Y-%m-%d %H:%M} UTC" if phase.deadline else "none"
    disputes = sum(d["status"] == "open" for d in season.dispute_lines(gm, game.id))
    return (
        f"{game.id}: {season.shown_state(game, disputes)}, turn {phase.turn} {phase.name}, "
        f"deadline {deadline}; {who}{unsent}"
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
    "KEY": _key,
    "START": _start,
    "PAUSE": _pause,
    "RESUME": _resume,
    "EXTEND": _extend,
    "ADJUDICATE": _adjudicate,
    "ROLLBACK": _rollback,
    "RULE": _rule,
    "EDIT": _edit,
    "UPGRADE": _upgrade,
    "END": _end,
    "STATUS": _status,
    "FAILED": _failed,
    "RESEND-MAIL": _resend_mail,
    **season.COMMANDS,  # LIST SEATS DISPUTES AUDIT MESSAGE RESEND SET DELETE UNOBSERVE
}


def execute(gm: GameMaster, line: str, actor: Actor | None = None) -> str:
    """Run one command line; with ``actor``, the game it names records who gave it."""
    try:
        words = shlex.split(line)
    except ValueError as exc:
        hint = ' (put a text with an apostrophe in double quotes: "the carrier\'s escort")'
        raise LifecycleError(
            f"cannot read the command: {exc}" + (hint if "quotation" in str(exc) else "")
        ) from None
    if not words:
        raise LifecycleError("empty command")
    command = COMMANDS.get(words[0].upper())
    if command is None:
        raise LifecycleError(
            f"unknown command {words[0]!r}; commands: {', '.join(sorted(COMMANDS))}"
        )
    game_id = words[1] if len(words) > 1 else ""
    written = gm.desk.written.get(game_id, 0)
    result = command(gm, words[1:])
    if actor is None:
        return result
    changed = gm.desk.written.get(game_id, 0) > written
    cli = actor.via == "cli"
    game = gm.desk.session.get(Game, game_id) if game_id else None
    if not changed:
        readlog.note(
            gm.desk,
            at=gm.desk.now,
            game_id=game.id if game is not None else None,  # None: LIST, a deleted game
            command=words[0].upper(),
            line=" ".join(shlex.quote(w) for w in words),
            via=actor.via,
            by=CLI_BY if cli else actor.by,
            origin=CLI_ORIGIN if cli else actor.origin,
        )
    elif game is not None:
        gm.desk.record(
            gm.lookups.game(game_id),
            ModeratorCommand(
                command=words[0].upper(),
                by=CLI_BY if cli else actor.by,
                via=actor.via,
                origin=CLI_ORIGIN if cli else actor.origin,
            ),
        )
    audit_log.info(
        "moderator %s %s by %s via %s (%s)",
        "command" if changed else "read",
        words[0].upper(),
        actor.by,
        actor.via,
        actor.origin,
        extra={"game": game_id or None},
    )
    return result
