"""The four U.S.N. mini-games played by signed order mails through the lifecycle
(GameMaster + Mailroom, on SQLite) from set-up to the victory verdict (issue 6 item 7).

Each side's orders are the demonstration's scripted plans (pbem.demo.usn.PLANS), by
mail round; ship routes are found on the real map, so they follow map corrections.
Dice are the game's own seeded dice, so the combats differ from run to run; what
is checked is the lifecycle to the end and that the verdict is the one the victory
rules give for the final state (VP.CALC, VP.LEVELS, MINI.*.VC).
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import Config, ModeratorConfig, SecretsConfig
from pbem.core.dice import ScriptedDice
from pbem.demo.usn import PLANS, Plan
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import Mailroom, file_mail
from pbem.lifecycle.publishing import Publisher
from pbem.record import journal
from pbem.rulesets.usn import victory
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset, victory_terms
from pbem.rulesets.usn.state import GameState
from pbem.storage.db import create_all, make_engine, make_sessionmaker

J, A = "japanese", "allied"
MODERATOR = "pbem@example.org"
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

GAMES = {  # scenario -> the objective its verdict names (MINI.*.VC)
    "coral-sea": "port-moresby",
    "midway": "midway",
    "eastern-solomons": "guadalcanal-air-base",
    "santa-cruz": "guadalcanal-air-base",
}


# --- the moderator's table --------------------------------------------------------


@pytest.fixture
def sessions(sqlite_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(sqlite_url)
    create_all(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(
        moderator=ModeratorConfig(address=MODERATOR),
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        base_dir=tmp_path,
    )


class Table:
    def __init__(self, sessions: sessionmaker[Session], config: Config) -> None:
        self.sessions = sessions
        self.config = config

    def run(self, fn: Callable[[GameMaster], Any]) -> Any:
        with self.sessions.begin() as s:
            gm = GameMaster(Desk(s, self.config, self.config.secrets.key_bytes(), T0), Publisher())
            return fn(gm)


def mail_orders(table: Table, sender: str, key: bytes, head: str, lines: list[str]) -> str:
    """File and process one signed order mail; returns the mailroom's outcome."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = MODERATOR
    msg["Subject"] = "orders"
    msg["Message-ID"] = f"<{os.urandom(8).hex()}@example.org>"
    msg.set_content("My orders.\n\n" + sign_block(add_nonce(head + "\n".join(lines) + "\n"), key))
    raw = msg.as_bytes()

    def go(gm: GameMaster) -> str:
        row = file_mail(gm.desk.session, "ref", raw, T0, gm.desk.key)
        assert row is not None
        return Mailroom(gm).process(row)

    return str(table.run(go))


def play(table: Table, scenario: str, script: Plan) -> tuple[dict[str, Any], list[Any], Any]:
    """Play one game to its end; returns (final state, record entries, outcome)."""
    keys = {side: generate_keypair(side) for side in (J, A)}
    gid = f"usn-{scenario}"

    def setup(gm: GameMaster) -> None:
        gm.acts.create_game(gid, "usn", scenario, settings={"early_adjudication": True})
        for side in (J, A):
            gm.acts.assign(gid, side, f"{side}@example.org", public_key=keys[side][1])
        gm.acts.start(gid)

    table.run(setup)
    for _ in range(40):
        phase = table.run(lambda gm: _open(gm, gid))
        if phase is None:
            break
        turn, name, sides = phase
        for side in sides:
            lines = script.get((turn, name, side), [])
            head = f"Game: {gid}\nSide: {side}\nTurn: {turn}\nPhase: {name}\n\n"
            outcome = mail_orders(table, f"{side}@example.org", keys[side][0], head, lines)
            assert outcome.startswith("accepted"), (turn, name, side, outcome)
            m = re.match(r"accepted (\d+), refused (\d+)", outcome)
            assert m and int(m.group(2)) == 0, (turn, name, side, lines, outcome)
        table.run(lambda gm: gm.clock.tick(gid))
    return table.run(lambda gm: _final(gm, gid))


def _open(gm: GameMaster, gid: str) -> tuple[int, str, tuple[str, ...]] | None:
    game = gm.lookups.game(gid)
    phase = gm.lookups.open_phase(gid)
    if game.status != "running" or phase is None:
        return None
    return phase.turn, phase.name, tuple(phase.sides)


def _final(gm: GameMaster, gid: str) -> tuple[dict[str, Any], list[Any], Any]:
    """The state after the last round, recomputed from the record (the lifecycle keeps
    states per open phase): the last phase's state, its revealed orders and rolls."""
    game = gm.lookups.game(gid)
    assert game.status == "over", game.status
    entries = journal.entries(gm.desk.session, gid)
    assert any(e["kind"] == "game-over" for e in entries), "no game-over entry"
    last = [e["payload"] for e in entries if e["kind"] == "phase-adjudicated"][-1]
    start = gm.lookups.state_of(gm.lookups.line_of_play(gid)[-1])
    orders = {side: list(p["orders"]) for side, p in last["plots"].items()}
    dice = ScriptedDice([int(v) for v, _ in last["rolls"]])
    final = dict(UsnRuleset(load_world(), world_geo()).adjudicate(start, orders, dice).state)
    return final, entries, dict(game.outcome or {})


@pytest.mark.parametrize("scenario", sorted(GAMES))
def test_mini_game_played_by_mail_to_the_verdict(
    scenario: str, sessions: sessionmaker[Session], config: Config
) -> None:
    """MINI.*: set-up to verdict by scripted order mails; the verdict is VP.CALC's."""
    objective = GAMES[scenario]
    geo = world_geo()
    table = Table(sessions, config)
    final, entries, outcome = play(table, scenario, PLANS[scenario](geo))
    adjudicated = [e["payload"] for e in entries if e["kind"] == "phase-adjudicated"]
    s = GameState.from_json(final)
    assert s.over
    # The two set-up rounds (SETUP.JFIRST, nothing placed: the default set-up), then six
    # mail rounds a turn, to the last.
    assert len(adjudicated) == 2 + 6 * s.last_turn
    expected = victory.verdict(geo, s, victory_terms(load_world(), scenario))
    assert (outcome["winner"], outcome["level"], outcome["scores"]) == (
        expected.winner,
        expected.level,
        dict(expected.scores),
    )
    assert objective in outcome["summary"] or outcome["winner"] is None
    kinds = [ev["kind"] for e in adjudicated for ev in e["events"]]
    if scenario in ("eastern-solomons", "santa-cruz"):
        assert "land-combat" in kinds  # the scripted attack was fought (SEQ.5K)
