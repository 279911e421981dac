"""The moderator's acts on a game: create, seat players and observers, start,
pause and resume, extend a deadline, replace a player, end."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem import rulesets
from pbem.core import options as game_options
from pbem.core.errors import DataError, LifecycleError
from pbem.core.ruleset import ScenarioInfo
from pbem.core.sequence import phase_label
from pbem.intake.keyring import PublicKey, read_key
from pbem.lifecycle import deadlines
from pbem.lifecycle.announce import announce
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.lifecycle.phases import PhaseMachine
from pbem.outbox.privacy import encryption_key_of
from pbem.record import rules
from pbem.record.chain import state_hash
from pbem.record.payloads import (
    DeadlineExtended,
    EncryptionChosen,
    GameCreated,
    GameStarted,
    ObserverAdded,
    Paused,
    PlayerAssigned,
    PlayerReplaced,
    Resumed,
    SeatKeyAdded,
    SeatKeyRetired,
)
from pbem.storage.enums import GameStatus, KeyKind, PhaseStatus, SeatRole
from pbem.storage.models import Game, Phase, Seat, SeatKey
from pbem.storage.seatkeys import seat_keys

log = logging.getLogger("pbem.lifecycle")
OVERRIDES = "overrides"  # CREATE's per-game data corrections (TOML), not an option
DATAPACK = "datapack"  # CREATE's per-game data pack (TOML, War in the Pacific), not an option
DATA_KEYS = (OVERRIDES, DATAPACK)  # CREATE's TOML data, handed to the ruleset as it is
# A plain mail address (no display name): what a seat's mail goes to.
MAILBOX = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")


def shift_deadlines(phase: Phase, by: timedelta) -> None:
    """Move a phase's deadline, grace period and reminder (a pause, an extension, an outage)."""
    if phase.deadline is not None:
        phase.deadline += by
    if phase.grace_until is not None:
        phase.grace_until += by
    if phase.remind_at is not None:
        phase.remind_at += by


def checked_options(info: ScenarioInfo, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every option in force, checked against what the scenario takes; ``overrides``
    and ``datapack`` (the moderator's data) go to the ruleset as they are."""
    rules = {k: v for k, v in given.items() if k not in DATA_KEYS}
    try:
        in_force = game_options.resolve(info.options, rules)
    except game_options.OptionError as exc:
        raise LifecycleError(f"{info.name}: {exc}") from None
    in_force.update({k: given[k] for k in DATA_KEYS if k in given})
    return in_force


class ModeratorActs:
    """What the moderator does to a game, bound to one transaction."""

    def __init__(self, desk: Desk, lookups: Lookups, phases: PhaseMachine) -> None:
        self.desk = desk
        self.lookups = lookups
        self.phases = phases

    def create_game(
        self,
        game_id: str,
        ruleset_name: str,
        scenario: str,
        options: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> Game:
        s = self.desk.session
        if not game_id or not game_id.replace("-", "").replace("_", "").isalnum():
            raise LifecycleError(f"game id {game_id!r} must be letters, digits, '-' or '_'")
        if s.get(Game, game_id) is not None:
            raise LifecycleError(f"game {game_id!r} already exists")
        ruleset = rulesets.get(ruleset_name)
        known = {sc.name: sc for sc in ruleset.scenarios()}
        if scenario not in known:
            raise LifecycleError(
                f"ruleset {ruleset_name} has no scenario {scenario!r}; "
                f"known: {', '.join(sorted(known))}"
            )
        in_force = checked_options(known[scenario], options or {})
        if any(k in in_force for k in DATA_KEYS):
            try:  # the moderator's data is checked now, not at START
                ruleset.initial_state(scenario, in_force)
            except DataError as exc:
                raise LifecycleError(f"{scenario}: {exc}") from None
        merged = deadlines.game_settings(self.desk.config.games, settings or {})
        for side in known[scenario].sides:
            try:
                deadlines.no_orders_policy(merged, side)  # refuse an unknown policy now
            except ValueError as exc:
                raise LifecycleError(str(exc)) from None
        game = Game(
            id=game_id,
            ruleset=ruleset_name,
            scenario=scenario,
            options=in_force,
            settings=merged,
            created_at=self.desk.now,
            rules=rules.in_code(ruleset),
        )
        s.add(game)
        s.flush()
        self.desk.record(
            game,
            GameCreated(
                ruleset=ruleset_name, scenario=scenario, options=game.options, settings=merged
            ),
        )
        log.info("game created", extra={"game": game_id})
        return game

    # ------------------------------------------------------------------ seats

    def assign(
        self,
        game_id: str,
        side: str,
        email: str,
        *,
        public_key: str | None = None,
        certificate: bytes | None = None,
        openpgp: bytes | None = None,
        timezone: str = "UTC",
    ) -> Seat:
        """Seat a player with one key: an OpenSSH Ed25519 line, an S/MIME certificate
        (PEM) or an OpenPGP public key (more with ``add_key``)."""
        game = self.lookups.game(game_id)
        if side not in self.lookups.sides_of(game):
            raise LifecycleError(f"game {game_id} has no side {side!r}")
        if self.lookups.player(game_id, side) is not None:
            raise LifecycleError(f"side {side} of {game_id} already has a player; use REPLACE")
        keys = _read_keys(public_key, certificate, openpgp)
        seat = self._new_seat(game, SeatRole.PLAYER, side, email, keys, timezone)
        by_kind = {k.kind: k.fingerprint for k in keys}
        self.desk.record(
            game,
            PlayerAssigned(
                side=side,
                email=seat.email,
                key=by_kind.get(KeyKind.ED25519),
                certificate=by_kind.get(KeyKind.SMIME),
            ),
        )
        if KeyKind.OPENPGP in by_kind:  # PlayerAssigned predates OpenPGP: its own entry
            self.desk.record(
                game,
                SeatKeyAdded(side=side, key_kind="openpgp", fingerprint=by_kind[KeyKind.OPENPGP]),
            )
        return seat

    def add_observer(self, game_id: str, email: str, side: str | None) -> Seat:
        game = self.lookups.game(game_id)
        if side is not None and side not in self.lookups.sides_of(game):
            raise LifecycleError(f"game {game_id} has no side {side!r}")
        for known in self.lookups.seats(game_id, role=SeatRole.OBSERVER):
            if known.email == email.strip().lower():  # one copy per address
                if known.side == side:
                    return known
                raise LifecycleError(
                    f"{known.email} already observes {game_id} ({known.side or 'omniscient'}); "
                    "UNOBSERVE it first to change its view"
                )
        seat = self._new_seat(game, SeatRole.OBSERVER, side, email, [], "UTC")
        self.desk.record(game, ObserverAdded(email=seat.email, side=side))
        return seat

    def replace_player(
        self,
        game_id: str,
        side: str,
        email: str,
        *,
        public_key: str | None = None,
        certificate: bytes | None = None,
        openpgp: bytes | None = None,
        timezone: str = "UTC",
    ) -> Seat:
        game = self.lookups.game(game_id)
        old = self.lookups.player(game_id, side)
        if old is None:
            raise LifecycleError(f"side {side} of {game_id} has no player to replace")
        old_keys = seat_keys(self.desk.session, game_id, side)
        keys = _read_keys(public_key, certificate, openpgp)
        old.active = False
        old.retired_at = self.desk.now
        seat = self._new_seat(game, SeatRole.PLAYER, side, email, keys, timezone)
        entry = self.desk.record(
            game,
            PlayerReplaced(
                side=side,
                old_email=old.email,
                old_key=old_keys[0].fingerprint if old_keys else None,
                email=seat.email,
                key=keys[0].fingerprint,
            ),
        )
        # Who plays a side is no secret: every seat hears of it (the old player is
        # retired, so he hears nothing more of the game).
        announce(
            self.desk,
            self.lookups,
            game,
            entry,
            f"{side} has a new player",
            f"From now on {seat.email} plays {side} in game {game_id}; the previous "
            "player's key no longer works.",
        )
        phase = self.lookups.open_phase(game_id)
        if phase is not None and self.phases.reporter is not None:
            # The new player gets his side's current report (and order form) at once.
            self.phases.reporter.seat_report(self.lookups, game, phase, seat)
        return seat

    # ------------------------------------------------------------------- keys

    def add_key(self, game_id: str, side: str, key: PublicKey) -> SeatKey:
        """Let the side's player sign with one more key (rotation: add the new, then
        retire the old). The same key again replaces its stored copy, so an
        OpenPGP key with a new expiry date can be sent again."""
        game = self.lookups.game(game_id)
        seat = self._player(game_id, side)
        held = {k.fingerprint: k for k in seat_keys(self.desk.session, game_id, side, retired=True)}
        existing = held.get(key.fingerprint)
        if existing is not None:
            if existing.retired_at is not None:
                raise LifecycleError(
                    f"the key {key.fingerprint} of {side} in {game_id} was retired; "
                    "a retired key is not taken back (make a new one)"
                )
            existing.material = key.material
            return existing
        added = SeatKey(
            seat_id=seat.id,
            kind=key.kind,
            fingerprint=key.fingerprint,
            material=key.material,
            added_at=self.desk.now,
        )
        self.desk.session.add(added)
        self.desk.session.flush()
        self.desk.record(
            game, SeatKeyAdded(side=side, key_kind=key.kind.value, fingerprint=key.fingerprint)
        )
        return added

    def retire_key(self, game_id: str, side: str, fingerprint: str) -> SeatKey:
        """Stop a key of the side's player: mail signed with it is refused from now on.
        ``fingerprint`` may be a unique start of it (at least 8 characters)."""
        game = self.lookups.game(game_id)
        self._player(game_id, side)
        keys = seat_keys(self.desk.session, game_id, side)
        wanted = fingerprint.strip().replace(" ", "")
        matches = [
            k
            for k in keys
            if k.fingerprint == wanted
            or (len(wanted) >= 8 and k.fingerprint.lower().startswith(wanted.lower()))
        ]
        if not matches:
            on_file = ", ".join(f"{k.kind} {k.fingerprint}" for k in keys) or "none"
            raise LifecycleError(
                f"{side} in {game_id} has no key in use with fingerprint {fingerprint}; "
                f"keys in use: {on_file}"
            )
        if len(matches) > 1:
            raise LifecycleError(f"{fingerprint} starts {len(matches)} keys; give more of it")
        if len(keys) == 1:
            raise LifecycleError(
                f"{matches[0].fingerprint} is the only key {side} signs with in {game_id}; "
                "add the new key first (KEY game side ADD KEY)"
            )
        key = matches[0]
        key.retired_at = self.desk.now
        self.desk.record(
            game, SeatKeyRetired(side=side, key_kind=key.kind.value, fingerprint=key.fingerprint)
        )
        return key

    def set_encryption(self, game_id: str, side: str, encrypt: bool) -> SeatKey | None:
        """Opt the side's player in to (or out of) mail encrypted to the player's key;
        returns the key mail is encrypted to (None when opting out)."""
        game = self.lookups.game(game_id)
        seat = self._player(game_id, side)
        chosen = None
        if encrypt:
            found = encryption_key_of(seat_keys(self.desk.session, game_id, side))
            if found is None:
                raise LifecycleError(
                    f"{side} in {game_id} has no key mail can be encrypted to: register an "
                    "OpenPGP key with an encryption subkey (as Thunderbird and gpg make them) "
                    "or an RSA S/MIME certificate (KEY game side ADD @key.asc); an Ed25519 "
                    "order-signing key cannot encrypt"
                )
            chosen = found[0]
        seat.encrypt = encrypt
        self.desk.record(
            game,
            EncryptionChosen(
                side=side,
                encrypt=encrypt,
                key_kind=chosen.kind.value if chosen else None,
                fingerprint=chosen.fingerprint if chosen else None,
            ),
        )
        return chosen

    def _player(self, game_id: str, side: str) -> Seat:
        seat = self.lookups.player(game_id, side)
        if seat is None:
            raise LifecycleError(f"side {side!r} of {game_id} has no player")
        return seat

    def _new_seat(
        self,
        game: Game,
        role: SeatRole,
        side: str | None,
        email: str,
        keys: list[PublicKey],
        timezone: str,
    ) -> Seat:
        if not MAILBOX.fullmatch(email.strip()):
            raise LifecycleError(f"{email!r} is not a mail address (name@example.org)")
        if role == SeatRole.PLAYER and not keys:
            raise LifecycleError(
                "a player needs a key: an Ed25519 public key, an S/MIME certificate "
                "or an OpenPGP public key"
            )
        fingerprints = {k.fingerprint for k in keys}
        for other in self.lookups.seats(game.id, role=SeatRole.PLAYER):
            # One key, one side: else whoever signs for one side could sign for the other.
            if (
                other.side != side
                and other.side is not None
                and fingerprints
                & {k.fingerprint for k in seat_keys(self.desk.session, game.id, other.side)}
            ):
                raise LifecycleError(
                    f"that key already plays {other.side} in {game.id}; each side needs its own"
                )
        try:
            ZoneInfo(timezone)  # shown in the player's zone: a typo must not fall back to UTC
        except (ZoneInfoNotFoundError, ValueError):
            raise LifecycleError(
                f"unknown time zone {timezone!r}; use an IANA name such as Europe/Berlin"
            ) from None
        seat = Seat(
            game_id=game.id,
            role=role,
            side=side,
            email=email.strip().lower(),
            timezone=timezone,
            joined_at=self.desk.now,
        )
        self.desk.session.add(seat)
        self.desk.session.flush()
        self.desk.session.add_all(
            SeatKey(
                seat_id=seat.id,
                kind=key.kind,
                fingerprint=key.fingerprint,
                material=key.material,
                added_at=self.desk.now,
            )
            for key in keys
        )
        self.desk.session.flush()
        return seat

    # ------------------------------------------------------- start, pause, end

    def start(self, game_id: str) -> Phase | None:
        game = self.lookups.game(game_id)
        if game.status != GameStatus.CREATED:
            raise LifecycleError(f"game {game_id} is {game.status}, not waiting to start")
        missing = [
            s for s in self.lookups.sides_of(game) if self.lookups.player(game_id, s) is None
        ]
        if missing:
            raise LifecycleError(f"no player for side(s): {', '.join(missing)}")
        ruleset = self.lookups.ruleset(game)
        state = ruleset.initial_state(game.scenario, game.options)
        game.status = GameStatus.RUNNING
        game.rules = rules.in_code(ruleset)  # the game keeps the rules it starts with
        started = state_hash(state)
        self.desk.record(game, GameStarted(state_hash=started, rules=game.rules))
        return self.phases.open_next(game, state, seq=1, epoch=0, events=(), known_hash=started)

    def pause(self, game_id: str, reason: str) -> None:
        game = self.lookups.game(game_id)
        if game.status != GameStatus.RUNNING:
            raise LifecycleError(f"game {game_id} is {game.status}; only a running game pauses")
        if game.pauses_used >= int(game.settings["max_pauses"]):
            raise LifecycleError(f"game {game_id} has used all {game.pauses_used} pauses allowed")
        game.status = GameStatus.PAUSED
        game.paused_at = self.desk.now
        game.pauses_used += 1
        entry = self.desk.record(game, Paused(reason=reason, pauses_used=game.pauses_used))
        cap = float(game.settings["max_pause_days"])
        announce(
            self.desk,
            self.lookups,
            game,
            entry,
            "game paused",
            f"The moderator has paused game {game_id}: {reason}.\n\nNo orders are taken "
            "and no deadline runs while it is paused; deadlines move by the time it was "
            f"paused. It resumes when the moderator says so, at the latest after {cap:g} days.",
        )

    def resume(self, game_id: str, *, auto: bool = False) -> None:
        game = self.lookups.game(game_id)
        if game.status != GameStatus.PAUSED or game.paused_at is None:
            raise LifecycleError(f"game {game_id} is not paused")
        held = self.desk.now - game.paused_at
        cap = timedelta(days=float(game.settings["max_pause_days"]))
        game.paused_seconds += int(held.total_seconds())
        game.status = GameStatus.RUNNING
        game.paused_at = None
        phase = self.lookups.open_phase(game_id)
        if phase is not None:  # the clock stood still while paused
            shift_deadlines(phase, held)
        entry = self.desk.record(
            game, Resumed(paused_for_seconds=int(held.total_seconds()), over_cap=held > cap)
        )
        why = "the longest pause allowed has passed" if auto else "the moderator resumed it"

        def text(zone: str) -> str:
            due = (
                f" Orders for turn {phase.turn} phase {phase.name} are due by "
                f"{deadlines.local_time(phase.deadline, zone)}."
                if phase is not None and phase.deadline is not None and not game.held
                else ""
            )
            return f"Game {game_id} goes on: {why}.{due}"

        announce(self.desk, self.lookups, game, entry, "game resumed", self._in_zones(game, text))

    def auto_resume_due(self, game: Game) -> bool:
        """Whether a paused game has been held as long as its settings allow."""
        cap = timedelta(days=float(game.settings["max_pause_days"]))
        return (
            game.status == GameStatus.PAUSED
            and game.paused_at is not None
            and (self.desk.now - game.paused_at >= cap)
        )

    def extend(self, game_id: str, hours: float) -> Phase:
        game = self.lookups.game(game_id)
        phase = self.lookups.require_open(game)
        cap = float(game.settings["max_extension_hours"])
        if not 0 < hours <= cap:
            raise LifecycleError(f"an extension must be more than 0 and at most {cap:g} hours")
        shift_deadlines(phase, timedelta(hours=hours))
        entry = self.desk.record(
            game,
            DeadlineExtended(
                phase_seq=phase.seq,
                hours=hours,
                deadline=phase.deadline.isoformat() if phase.deadline else None,
            ),
        )
        announce(
            self.desk,
            self.lookups,
            game,
            entry,
            f"deadline extended: {phase_label(phase.turn, phase.name)}",
            self._in_zones(
                game,
                lambda zone: (
                    f"The moderator has extended the deadline of game {game_id} turn "
                    f"{phase.turn} phase {phase.name} by {hours:g} hours: orders are now due by "
                    + (deadlines.local_time(phase.deadline, zone) if phase.deadline else "-")
                    + "."
                ),
            ),
        )
        return phase

    def _in_zones(self, game: Game, text: Callable[[str], str]) -> dict[str | None, str]:
        """One text per side, its times in the side's player's zone (the observers of
        the side read the same); UTC for the omniscient observers."""
        texts: dict[str | None, str] = {None: text("UTC")}
        for seat in self.lookups.seats(game.id, role=SeatRole.PLAYER):
            texts[seat.side] = text(seat.timezone)
        return texts

    def end(self, game_id: str, reason: str, winner: str | None = None) -> None:
        game = self.lookups.game(game_id)
        if game.status == GameStatus.OVER:
            raise LifecycleError(f"game {game_id} is already over")
        phase = self.lookups.open_phase(game_id)
        # The final reports show the game as it stands: the open phase's state.
        state = self.lookups.state_of(phase) if phase is not None else None
        if phase is not None:
            phase.status = PhaseStatus.SUPERSEDED
        game.held = None
        outcome: dict[str, Any] = {
            "winner": winner,
            "level": "ended by the moderator",
            "summary": reason,
            "scores": {},
        }
        self.phases.finish(game, outcome, state=state)


def _read_keys(
    public_key: str | None, certificate: bytes | None, openpgp: bytes | None
) -> list[PublicKey]:
    """The keys given to ASSIGN or REPLACE, read and fingerprinted."""
    given = [
        (KeyKind.ED25519, public_key.encode("utf-8") if public_key else None),
        (KeyKind.SMIME, certificate),
        (KeyKind.OPENPGP, openpgp),
    ]
    try:
        return [read_key(kind, material) for kind, material in given if material]
    except ValueError as exc:
        raise LifecycleError(f"unusable key or certificate: {exc}") from None
