"""Worker.process_many: a batch of stored mails decided in one transaction, with
its lookups read up front (issue 2, the intake's throughput). Whatever the
batch holds, each mail must get the answer it would get alone."""

from __future__ import annotations

import base64
import email
import email.policy
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlalchemy import event, select
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import Config, ModeratorConfig, SecretsConfig
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import room
from pbem.lifecycle.publishing import Publisher
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.record.chain import verify_chain
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import Game, InboundMail, OutboundMail, Plot
from tests.conftest import make_database

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
MODERATOR = "pbem@example.org"
UMPIRE = generate_keypair("umpire")
KEYS = {side: generate_keypair(side) for side in ("north", "south")}


def _config(tmp_path: Path) -> Config:
    return Config(
        moderator=ModeratorConfig(
            address=MODERATOR, human="umpire@example.org", public_key=UMPIRE[1]
        ),
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        base_dir=tmp_path,
    )


def _sessions(url: str, config: Config, now: datetime = NOW) -> sessionmaker[Session]:
    engine = make_engine(url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as s:
        gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), now), Publisher())
        for game in ("g1", "g2"):
            gm.acts.create_game(game, "demo", "long-duel", settings={"early_adjudication": False})
            for side, (_, public) in KEYS.items():
                gm.acts.assign(game, side, f"{side}@example.org", public_key=public)
            gm.acts.start(game)
    return sessions


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[tuple[Worker, Config]]:
    config = _config(tmp_path)
    yield Worker(config, _sessions(database_url, config), "test:1", lambda: NOW), config


def _block(side: str, key: bytes, orders: list[str], game: str = "g1") -> str:
    sheet = f"Game: {game}\nSide: {side}\nTurn: 1\nPhase: plot\n\n" + "\n".join(orders) + "\n"
    return sign_block(add_nonce(sheet), key)


def _mail(sender: str, block: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = MODERATOR
    msg["Subject"] = "orders"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content("Orders below.\n\n" + block)
    return msg.as_bytes()


def _orders(side: str, orders: list[str], game: str = "g1") -> bytes:
    return _mail(f"{side}@example.org", _block(side, KEYS[side][0], orders, game))


def _run_batch(worker: Worker, mails: list[bytes]) -> list[str]:
    """File the mails, process them as one batch; outcomes in mail order."""
    worker.file_many([(f"ref{i}", raw) for i, raw in enumerate(mails)])
    ids = worker.pending_mail()
    assert len(ids) == len(mails)
    outcomes = worker.process_many(ids)
    return [outcomes[i] for i in ids]


def _answers(worker: Worker) -> dict[str, list[str]]:
    """The queued answers' text, by recipient, in queue order."""
    out: dict[str, list[str]] = {}
    with worker.sessions() as s:
        answers = select(OutboundMail).where(OutboundMail.kind == "answer")
        for row in s.scalars(answers.order_by(OutboundMail.id)):
            parsed = email.message_from_bytes(
                open_outbound(worker.key, row), policy=email.policy.default
            )
            assert isinstance(parsed, EmailMessage)
            body = parsed.get_body(("plain",))
            assert body is not None
            out.setdefault(row.recipient, []).append(body.get_content())
    return out


def test_same_side_twice_in_one_batch_the_second_replaces_the_first(world):
    worker, _ = world
    outcomes = _run_batch(
        worker,
        [_orders("north", ["SEND SQN-1 A"]), _orders("north", ["SEND SQN-1 B", "SEND SQN-2 C"])],
    )
    assert outcomes == ["accepted 1, refused 0", "accepted 2, refused 0"]
    with worker.sessions() as s:
        plots = list(s.scalars(select(Plot).where(Plot.side == "north")))
        assert sorted(p.current for p in plots) == [False, True]
        chain = journal.entries(s, "g1")
    sealed = [e["payload"] for e in chain if e["kind"] == "orders-sealed"]
    assert [p["replaced"] for p in sealed] == [False, True]
    assert verify_chain(chain) == []
    first, second = _answers(worker)["north@example.org"]
    assert "replaces" not in first.lower() and "SEND SQN-1 B" in second


def test_a_block_replayed_within_one_batch_is_refused(world):
    worker, _ = world
    block = _block("south", KEYS["south"][0], ["SEND SQN-1 A"])
    outcomes = _run_batch(
        worker, [_mail("south@example.org", block), _mail("south@example.org", block)]
    )
    assert outcomes[0] == "accepted 1, refused 0"
    assert outcomes[1].startswith("refused: replay")


def test_a_block_replayed_from_an_earlier_batch_is_refused(world):
    worker, _ = world
    block = _block("south", KEYS["south"][0], ["SEND SQN-1 A"])
    assert _run_batch(worker, [_mail("south@example.org", block)]) == ["accepted 1, refused 0"]
    again = _mail("south@example.org", block)
    assert _run_batch(worker, [again])[0].startswith("refused: replay")


def test_a_batch_of_orders_is_flushed_once_at_its_commit(world):
    """The replay guard's INSERT goes out at once, once a mail, but does not flush
    the batch's pending rows (answers, plots, record entries) with it: they go out
    together at the commit, in many-row statements rather than a flush a mail."""
    worker, _ = world
    flushes: list[int] = []

    def count(session: Session, context: object, instances: object) -> None:
        flushes.append(len(session.new) + len(session.dirty))

    event.listen(Session, "before_flush", count)
    try:
        outcomes = _run_batch(
            worker,
            [
                _orders("north", ["SEND SQN-1 A"]),
                _orders("south", ["SEND SQN-2 B"]),
                _orders("north", ["SEND SQN-1 C"], "g2"),
                _orders("south", ["SEND SQN-2 C"], "g2"),
            ],
        )
    finally:
        event.remove(Session, "before_flush", count)
    assert outcomes == ["accepted 1, refused 0"] * 4
    # Filing and claiming flush nothing of the ORM's; deciding flushes once, at the
    # commit, every row the four mails wrote.
    assert [n for n in flushes if n] == [max(flushes)]
    assert max(flushes) >= 4 * 4  # each mail: its inbound row, answer, plot, record entry


def test_a_key_the_moderator_replaces_earlier_in_the_batch_counts_at_once(world):
    """The batch reads the seats of every signing key up front; a REPLACE by mail
    in the same batch must still retire the old key and admit the new one."""
    worker, _ = world
    new_key, new_public = generate_keypair("north-2")
    replace = _mail(
        "umpire@example.org",
        sign_block(
            add_nonce(
                "Game: g1\nSide: moderator\nTurn: 1\nPhase: plot\n\n"
                f"REPLACE g1 north north2@example.org {new_public}\n"
            ),
            UMPIRE[0],
        ),
    )
    old = _mail("north@example.org", _block("north", KEYS["north"][0], ["SEND SQN-1 A"]))
    new = _mail("north2@example.org", _block("north", new_key, ["SEND SQN-1 B"]))
    outcomes = _run_batch(worker, [replace, old, new])
    assert outcomes[0] == "moderator: 1 done"
    assert outcomes[1].startswith("refused: retired-key")
    assert outcomes[2] == "accepted 1, refused 0"


def test_mails_for_several_games_each_go_to_their_own_game(world):
    worker, _ = world
    outcomes = _run_batch(
        worker,
        [
            _orders("north", ["SEND SQN-1 A"], "g1"),
            _orders("north", ["SEND SQN-1 B"], "g2"),
            _orders("south", ["SEND SQN-2 C"], "g2"),
            _orders("south", ["SEND SQN-9 C"], "g1"),  # no such squadron: refused
        ],
    )
    assert outcomes[:3] == ["accepted 1, refused 0"] * 3
    assert outcomes[3] == "refused: every order line"
    with worker.sessions() as s:
        for game in ("g1", "g2"):
            assert verify_chain(journal.entries(s, game)) == []
        sealed = {
            game: [
                e["payload"]["side"]
                for e in journal.entries(s, game)
                if e["kind"] == "orders-sealed"
            ]
            for game in ("g1", "g2")
        }
    assert sealed == {"g1": ["north"], "g2": ["north", "south"]}


def test_a_mail_that_raises_is_filed_failed_and_the_rest_of_its_batch_answered(world, monkeypatch):
    worker, _ = world
    real = room.take_orders

    def buggy(gm, row, sheet, seat):  # type: ignore[no-untyped-def]
        if sheet.side == "south":
            raise RuntimeError("a bug")
        return real(gm, row, sheet, seat)

    monkeypatch.setattr(room, "take_orders", buggy)
    outcomes = _run_batch(
        worker,
        [
            _orders("north", ["SEND SQN-1 A"]),
            _orders("south", ["SEND SQN-1 B"]),
            _orders("north", ["SEND SQN-2 C"], "g2"),
        ],
    )
    assert outcomes == ["accepted 1, refused 0", "failed", "accepted 1, refused 0"]
    with worker.sessions() as s:
        rows = list(s.scalars(select(InboundMail).order_by(InboundMail.id)))
        assert [r.status for r in rows] == ["answered", "failed", "answered"]
        assert "a bug" in (rows[1].outcome or "")
        # Each answered mail is answered once, the failed one not at all.
        answers = select(OutboundMail).where(OutboundMail.kind == "answer")
        assert len(list(s.scalars(answers))) == 2
        assert verify_chain(journal.entries(s, "g1")) == []


def test_a_batch_answers_exactly_as_one_mail_at_a_time(tmp_path):
    """The same mails through process_many and through process, one by one, on
    two fresh databases: the same outcomes, answers and record."""
    mails = [
        _orders("north", ["SEND SQN-1 A"]),
        _orders("south", ["SEND SQN-1 B", "BOGUS"]),
        _orders("north", ["SEND SQN-2 C"]),
        _mail("south@example.org", "no block here"),
        _orders("south", ["SEND SQN-3 A"], "g2"),
    ]
    results = []
    for how in ("batch", "alone"):
        folder = tmp_path / how
        folder.mkdir()
        for url in make_database("sqlite", folder):
            config = _config(folder)
            worker = Worker(config, _sessions(url, config), "test:1", lambda: NOW)
            if how == "batch":
                outcomes = _run_batch(worker, mails)
            else:
                worker.file_many([(f"ref{i}", raw) for i, raw in enumerate(mails)])
                outcomes = [worker.process(i) or "" for i in worker.pending_mail()]
            with worker.sessions() as s:
                kinds = {g: [e["kind"] for e in journal.entries(s, g)] for g in ("g1", "g2")}
            # Commitments hash a random nonce: compare the answers without them.
            answers = {
                who: [re.sub(r"[0-9a-f]{64}", "<commitment>", text) for text in texts]
                for who, texts in _answers(worker).items()
            }
            results.append((outcomes, answers, kinds))
    assert results[0] == results[1]
    assert results[0][0][1] == "accepted 1, refused 1"


@pytest.fixture
def pg_world(tmp_path: Path) -> Iterator[tuple[Worker, Config, str]]:
    """A worker on PostgreSQL whose lock waits run out after half a second."""
    databases = make_database("postgresql", tmp_path)
    url = next(databases)
    config = _config(tmp_path)
    config = replace(config, database=replace(config.database, lock_timeout=0.5))
    _sessions(url, config)
    sessions = make_sessionmaker(make_engine(url, config.database))
    try:
        yield Worker(config, sessions, "test:1", lambda: NOW), config, url
    finally:
        next(databases, None)


def test_a_batch_a_peer_holds_locked_waits_unclaimed_and_is_answered_later(
    pg_world: tuple[Worker, Config, str], caplog: pytest.LogCaptureFixture
) -> None:
    """A stalled peer's open transaction holds game g1's row (a daemon paused or cut
    off mid-tick). The batch's wait for it runs out (lock_timeout): that is no
    fault of the mails, so none is filed failed and nothing is logged as an error;
    they stay new and unclaimed for a later round, which answers them once the
    peer's transaction is gone (the partition test's unplugged daemon)."""
    worker, _, url = pg_world
    worker.file_many([("ref0", _orders("north", ["SEND SQN-1 A"]))])
    ids = worker.pending_mail()
    peer = make_engine(url)
    with peer.connect() as conn:
        conn.execute(select(Game).where(Game.id == "g1").with_for_update())
        with caplog.at_level(logging.WARNING, logger="pbem"):
            assert worker.process_many(ids) == {}
            assert worker.process(ids[0]) is None  # one at a time, the same
        conn.rollback()
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert any("lock a peer holds" in r.getMessage() for r in caplog.records)
    with worker.sessions() as s:
        [row] = s.scalars(select(InboundMail))
        assert (row.status, row.claim_owner) == ("new", None)
    assert worker.pending_mail() == ids
    assert worker.process_many(ids) == {ids[0]: "accepted 1, refused 0"}
