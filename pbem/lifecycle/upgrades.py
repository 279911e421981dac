"""A game keeps its rules across an upgrade of pbem.

A game plays by the rules it started with: its ruleset's version and the fingerprint
of its data (``Game.rules``, named in the record with the set-up and every
adjudication). When pbem is upgraded and a game's rules are not the code's, the game
is not adjudicated by other rules: when its phase falls due the daemon holds it and
tells the moderator and the players. The moderator either runs the pbem release that
plays the game's rules, or moves the game to the new rules, as an announced act
(``UPGRADE game``, recorded with the state the new rules start from).
"""

from __future__ import annotations

from typing import Any

from pbem import rulesets
from pbem.core.errors import LifecycleError
from pbem.core.ruleset import RulesIdentity
from pbem.lifecycle.announce import announce
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.lookups import Lookups
from pbem.record import rules
from pbem.record.chain import state_hash
from pbem.record.payloads import HoldReleased, RulesHeld, RulesUpgraded
from pbem.storage.enums import GameStatus
from pbem.storage.models import Game, Phase

# Game.held's reason when the game's rules are not this pbem's.
RULES_HOLD = "rules changed"


def game_rules(game: Game) -> dict[str, str]:
    """The rules ``game`` plays by, as the record writes them (a game from before
    rules were recorded plays by its ruleset's legacy rules)."""
    if game.rules:
        return {k: str(v) for k, v in game.rules.items()}
    legacy = rulesets.recorded(game.ruleset, None)
    return {**legacy.to_json(), "pbem": rulesets.LEGACY_RELEASE}


def _identity(game: Game) -> RulesIdentity:
    return rulesets.recorded(game.ruleset, game_rules(game))


def outdated(lookups: Lookups, game: Game) -> str:
    """Why ``game`` may not be adjudicated by this pbem's rules ("" if it may)."""
    here = lookups.ruleset(game)
    if _identity(game) == rulesets.identity(here):
        return ""
    available = rules.in_code(here)
    return (
        f"game {game.id} plays by {rules.describe(game.ruleset, game_rules(game))}; this pbem "
        f"({available['pbem']}) has {rulesets.identity(here).describe()}"
    )


def refuse_other_rules(lookups: Lookups, game: Game) -> None:
    """No adjudication by rules the game was not played by."""
    why = outdated(lookups, game)
    if why:
        raise LifecycleError(
            f"{why}: UPGRADE {game.id} moves it to these rules, or run pbem "
            f"{rules.release_of(game_rules(game))} to play on by its own"
        )


def hold(desk: Desk, lookups: Lookups, game: Game, phase: Phase) -> None:
    """A phase of a game whose rules are not this pbem's fell due: hold the game,
    record why (the moderator's digest reports it) and tell the players."""
    available, kept = rules.in_code(lookups.ruleset(game)), game_rules(game)
    what = "version" if kept["version"] != available["version"] else "data"
    game.held = f"{RULES_HOLD}: {what} {kept[what][:16]} -> {available[what][:16]}"
    entry = desk.record(game, RulesHeld(phase_seq=phase.seq, rules=kept, available=available))
    announce(
        desk,
        lookups,
        game,
        entry,
        "game held: the rules changed",
        f"Game {game.id} is held before turn {phase.turn} phase {phase.name} is adjudicated: "
        f"it is played by {rules.describe(game.ruleset, game_rules(game))}, and the "
        f"moderator's pbem now has {rulesets.identity(lookups.ruleset(game)).describe()}. "
        "Nothing is adjudicated by other rules than the game's. The moderator either moves "
        "the game to the new rules or goes on with the old; you will be told.",
    )


def upgrade(desk: Desk, lookups: Lookups, game_id: str, reason: str) -> Phase | None:
    """UPGRADE: move the game to this pbem's rules from its open phase on (announced,
    recorded with the state the new rules start from). Returns the open phase."""
    game = lookups.game(game_id)
    if game.status == GameStatus.OVER:
        raise LifecycleError(f"game {game_id} is over: its record keeps the rules it was played by")
    if not outdated(lookups, game):
        raise LifecycleError(
            f"game {game_id} already plays by {rules.describe(game.ruleset, game_rules(game))}"
        )
    old, new = game_rules(game), rules.in_code(lookups.ruleset(game))
    phase = None if game.status == GameStatus.CREATED else lookups.open_phase(game_id)
    state: dict[str, Any] | None = None if phase is None else dict(lookups.state_of(phase))
    entry = desk.record(
        game,
        RulesUpgraded(
            phase_seq=None if phase is None else phase.seq,
            old=old,
            new=new,
            state=state,
            state_hash=None if state is None else state_hash(state),
            reason=reason,
        ),
    )
    game.rules = new
    if phase is not None and (game.held or "").startswith(RULES_HOLD):
        game.held = None
        desk.record(game, HoldReleased(phase_seq=phase.seq, by="upgrade", deadline=None))
    where = "" if phase is None else f" from turn {phase.turn} phase {phase.name} on"
    announce(
        desk,
        lookups,
        game,
        entry,
        "the game moves to new rules",
        f"The moderator has moved game {game_id} to {rules.describe(game.ruleset, new)}"
        f"{where}: {reason}.\n\nThe phases already adjudicated stand as "
        f"{rules.describe(game.ruleset, old)} played them.",
    )
    return phase
