"""The mail-level noninterference harness (issue 13, issue 16): games on SQLite in
their first open phase; a world's state is put into the open phase, the same
signed order mail (bytes) goes through ``Mailroom.process``, and the answer and
the phase's report to the viewer are read back from the outbox as composed
(headers, text, HTML, attachments), then rolled back so worlds do not mix.

What may legitimately differ is made equal by construction: Date is the desk's
clock and Message-ID derives from the mail's digest, both the same; only the
commitment in a receipt is masked (``masked``), since it hashes a fresh random
nonce (PlotContent.new) and so is a function of nothing hidden.
"""

from __future__ import annotations

import base64
import email
import email.policy
import os
import re
from collections.abc import Mapping, Sequence
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import Config, SecretsConfig
from pbem.core.events import Event
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import Mailroom, file_mail
from pbem.lifecycle.publishing import Publisher
from pbem.outbox.queue import open_outbound
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import GameState as StoredState
from pbem.storage.models import OutboundMail

from .conftest import T0

COMMITMENT = re.compile(rb"Commitment: [0-9a-f]{64}")


class Harness:
    """Games on SQLite, each in its first open phase (set up by the caller)."""

    def __init__(
        self, sessions: sessionmaker[Session], config: Config, keys: dict[str, bytes]
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.keys = keys
        self.phase = (0, "")  # every game's open phase: turn, name

    def __repr__(self) -> str:
        return "Harness(games on SQLite)"

    def gm(self, s: Session) -> GameMaster:
        return GameMaster(Desk(s, self.config, self.config.secrets.key_bytes(), T0), Publisher())

    def start_game(
        self,
        game: str,
        ruleset: str,
        scenario: str,
        public: Mapping[str, str],
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """CREATE, ASSIGN each side (``side@example.org``, its public key), START;
        ``phase`` becomes the game's first open phase."""
        with self.sessions.begin() as s:
            gm = self.gm(s)
            gm.acts.create_game(game, ruleset, scenario, options=dict(options or {}))
            for side, key in public.items():
                gm.acts.assign(game, side, f"{side}@example.org", public_key=key)
            gm.acts.start(game)
            phase = gm.lookups.open_phase(game)
            assert phase is not None
            self.phase = (phase.turn, phase.name)

    def order_mail(self, game: str, side: str, text: str) -> bytes:
        """One signed order mail; the same bytes are sent in both worlds."""
        turn, name = self.phase
        sheet = f"Game: {game}\nSide: {side}\nTurn: {turn}\nPhase: {name}\nNonce: probe0001\n\n"
        msg = EmailMessage()
        msg["From"] = f"{side}@example.org"
        msg["To"] = "moderator@pbem.example"
        msg["Subject"] = "orders"
        msg["Message-ID"] = "<probe@example.org>"
        msg.set_content(sign_block(sheet + text + "\n", self.keys[side]))
        return msg.as_bytes()

    def mails(
        self,
        game: str,
        side: str,
        raw: bytes,
        state: Mapping[str, Any],
        events: Sequence[Event],
        report: bool,
    ) -> dict[str, bytes]:
        """The answer to ``raw`` (and the phase's report) mailed to ``side`` when the
        open phase's state is ``state`` (JSON); rolled back after, so worlds do not mix."""
        with self.sessions() as s:
            try:
                gm = self.gm(s)
                phase = gm.lookups.open_phase(game)
                assert phase is not None
                phase.sides = [side]  # the viewer owes orders in this phase
                stored = s.get(StoredState, phase.id)
                assert stored is not None
                stored.state = dict(state)
                row = file_mail(s, "probe", raw, T0, gm.desk.key)
                assert row is not None
                Mailroom(gm).process(row)
                # The one answer the mail gets: a mail that cannot be used (a stray
                # control character breaks its signature) is answered outside any game.
                out = {"answer": self._sent(s, "answer", None, side)}
                if report:
                    # The start already mailed this phase's report (one per cause, never
                    # twice): it is taken back, in this transaction only.
                    for old in s.scalars(
                        select(OutboundMail).where(
                            OutboundMail.kind == "report", OutboundMail.game_id == game
                        )
                    ):
                        s.delete(old)
                    s.flush()
                    game_row = gm.lookups.game(game)
                    Publisher().phase_reports(gm.lookups, game_row, phase, stored.state, events)
                    out["report"] = self._sent(s, "report", game, side)
                return out
            finally:
                s.rollback()

    def report_if_sent(
        self,
        game: str,
        side: str,
        state: Mapping[str, Any],
        events: Sequence[Event],
        sides: Sequence[str],
    ) -> bytes | None:
        """The report mailed to ``side`` as the open phase (owed by ``sides``) opens on
        ``state`` after ``events``, or None if it is sent none (a quiet round);
        rolled back after, so worlds do not mix."""
        with self.sessions() as s:
            try:
                gm = self.gm(s)
                phase = gm.lookups.open_phase(game)
                assert phase is not None
                phase.sides = list(sides)
                stored = s.get(StoredState, phase.id)
                assert stored is not None
                stored.state = dict(state)
                for old in s.scalars(
                    select(OutboundMail).where(
                        OutboundMail.kind == "report", OutboundMail.game_id == game
                    )
                ):
                    s.delete(old)
                s.flush()
                Publisher().phase_reports(gm.lookups, gm.lookups.game(game), phase, state, events)
                rows = s.scalars(
                    select(OutboundMail).where(
                        OutboundMail.kind == "report",
                        OutboundMail.game_id == game,
                        OutboundMail.recipient == f"{side}@example.org",
                    )
                ).all()
                assert len(rows) <= 1
                key = self.config.secrets.key_bytes()
                return open_outbound(key, rows[0]) if rows else None
            finally:
                s.rollback()

    def _sent(self, s: Session, kind: str, game: str | None, side: str) -> bytes:
        """The one mail of ``kind`` to ``side`` (of ``game``, unless None)."""
        query = select(OutboundMail).where(
            OutboundMail.kind == kind, OutboundMail.recipient == f"{side}@example.org"
        )
        if game is not None:
            query = query.where(OutboundMail.game_id == game)
        row = s.scalars(query).one()
        return open_outbound(self.config.secrets.key_bytes(), row)


def open_harness(folder: Path, sides: Sequence[str]) -> tuple[Harness, Engine, dict[str, str]]:
    """A fresh SQLite database in ``folder``, a Harness on it with a signing key per
    side, the engine (to dispose of), and each side's public key (for ASSIGN)."""
    engine = make_engine(f"sqlite:///{folder / 'pbem.sqlite3'}")
    create_all(engine)
    key = base64.b64encode(os.urandom(32)).decode()
    config = Config(secrets=SecretsConfig(plot_key=key), base_dir=folder)
    pairs = {side: generate_keypair(side) for side in sides}
    h = Harness(make_sessionmaker(engine), config, {s: k[0] for s, k in pairs.items()})
    return h, engine, {s: k[1] for s, k in pairs.items()}


def masked(raw: bytes) -> bytes:
    return COMMITMENT.sub(b"Commitment: (a fresh nonce's)", raw)


def subject_and_text(raw: bytes) -> tuple[str, str]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    body = msg.get_body(("plain",))
    assert body is not None
    return str(msg["Subject"]), str(body.get_content())
