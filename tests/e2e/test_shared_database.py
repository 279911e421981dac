"""Several daemons on one PostgreSQL: each mail processed once, each game changed
by one daemon at a time (issue 2 item 8)."""

from __future__ import annotations

import base64
import logging
import os
import threading
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid

from sqlalchemy import func, select

from pbem.config import Config, SecretsConfig
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import InboundMail, OutboundMail, Plot
from tests.conftest import make_database


def _order_mail(side: str, key: bytes, squadron: str, zone: str) -> bytes:
    body = add_nonce(f"Game: g1\nSide: {side}\nTurn: 1\nPhase: plot\n\nSEND {squadron} {zone}\n")
    msg = EmailMessage()
    msg["From"] = f"{side}@example.org"
    msg["To"] = "moderator@pbem.example"
    msg["Subject"] = "orders"
    msg["Message-ID"] = make_msgid()
    msg.set_content(sign_block(body, key), cte="quoted-printable")
    return msg.as_bytes()


def test_two_daemons_share_postgresql_each_mail_once(tmp_path):
    for url in make_database("postgresql", tmp_path):
        engine = make_engine(url)
        create_all(engine)
        sessions = make_sessionmaker(engine)
        config = Config(
            secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
            base_dir=tmp_path,
        )
        keys = {side: generate_keypair(side) for side in ("north", "south")}
        with sessions.begin() as s:
            gm = GameMaster(
                Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)), Publisher()
            )
            gm.acts.create_game("g1", "demo", "long-duel", settings={"early_adjudication": False})
            for side in keys:
                gm.acts.assign("g1", side, f"{side}@example.org", public_key=keys[side][1])
            gm.acts.start("g1")
        workers = [
            Worker(config, sessions, f"daemon-{i}", lambda: datetime.now(UTC)) for i in (1, 2)
        ]
        mails = [
            _order_mail(side, keys[side][0], f"SQN-{1 + n % 3}", "ABC"[n % 3])
            for n in range(20)
            for side in keys
        ]
        for n, raw in enumerate(mails):
            workers[n % 2].file(f"ref-{n}", raw)
        workers[0].file("ref-again", mails[0])  # the same bytes fetched twice: stored once

        results: dict[str, list[str]] = {w.owner: [] for w in workers}

        def run(worker: Worker, results: dict[str, list[str]] = results) -> None:
            for mail_id in worker.pending_mail(limit=1000):
                outcome = worker.process(mail_id)
                if outcome is not None:
                    results[worker.owner].append(outcome)

        threads = [threading.Thread(target=run, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        with sessions() as s:
            assert s.scalar(select(func.count()).select_from(InboundMail)) == len(mails)
            statuses = s.scalars(select(InboundMail.status)).all()
            assert set(statuses) == {"answered"}
            answers = s.scalar(
                select(func.count()).select_from(OutboundMail).where(OutboundMail.kind == "answer")
            )
            assert answers == len(mails)  # exactly one answer per mail
            # every mail's orders were sealed once: one current plot per side, the rest replaced
            plots = s.scalars(select(Plot)).all()
            assert len(plots) == len(mails)
            assert sum(p.current for p in plots) == 2
        processed = sum(len(v) for v in results.values())
        assert processed == len(mails)
        engine.dispose()


def _envelope(side: str, block: str, n: int) -> bytes:
    """One signed block in a mail of its own (its own Message-ID and subject)."""
    msg = EmailMessage()
    msg["From"] = f"{side}@example.org"
    msg["To"] = "moderator@pbem.example"
    msg["Subject"] = f"orders, copy {n}"
    msg["Message-ID"] = make_msgid()
    msg.set_content(block, cte="quoted-printable")
    return msg.as_bytes()


def test_two_workers_racing_on_one_signed_block_answer_a_replay_without_error(
    tmp_path, monkeypatch, caplog
):
    """One block in four mails, decided by two workers at once on PostgreSQL: both
    batches find the signature unused, one records it, the other takes the replay
    as an ordinary answer, not a unique violation that fails its batch."""
    from pbem.lifecycle.mailroom.attribute import Attribution
    from pbem.storage.models import UsedSignature

    both_looked = threading.Barrier(2, timeout=60)
    looked = Attribution.prefetch

    def prefetch_then_meet(self: Attribution, blocks: object) -> None:
        looked(self, blocks)  # type: ignore[arg-type]
        both_looked.wait()  # each batch has seen the block unused before either records it

    monkeypatch.setattr(Attribution, "prefetch", prefetch_then_meet)
    for url in make_database("postgresql", tmp_path):
        engine = make_engine(url)
        create_all(engine)
        sessions = make_sessionmaker(engine)
        config = Config(
            secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
            base_dir=tmp_path,
        )
        key, public = generate_keypair("south")
        _, north = generate_keypair("north")
        with sessions.begin() as s:
            gm = GameMaster(
                Desk(s, config, config.secrets.key_bytes(), datetime.now(UTC)), Publisher()
            )
            gm.acts.create_game("g1", "demo", "long-duel", settings={"early_adjudication": False})
            gm.acts.assign("g1", "south", "south@example.org", public_key=public)
            gm.acts.assign("g1", "north", "north@example.org", public_key=north)
            gm.acts.start("g1")
        workers = [
            Worker(config, sessions, f"worker-{i}", lambda: datetime.now(UTC)) for i in (1, 2)
        ]
        body = add_nonce("Game: g1\nSide: south\nTurn: 1\nPhase: plot\n\nSEND SQN-1 A\n")
        block = sign_block(body, key)
        for n in range(4):
            workers[0].file(f"ref-{n}", _envelope("south", block, n))
        ids = workers[0].pending_mail()
        assert len(ids) == 4
        outcomes: dict[int, str] = {}

        def decide(worker: Worker, mine: list[int], outcomes: dict[int, str] = outcomes) -> None:
            outcomes.update(worker.process_many(mine))

        caplog.set_level("INFO")
        threads = [
            threading.Thread(target=decide, args=(w, ids[i::2])) for i, w in enumerate(workers)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        assert sorted(outcomes) == ids
        accepted = [o for o in outcomes.values() if o.startswith("accepted")]
        replays = [o for o in outcomes.values() if o.startswith("refused: replay")]
        assert (len(accepted), len(replays)) == (1, 3), outcomes
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert errors == []
        assert not any("one at a time" in r.getMessage() for r in caplog.records)
        with sessions() as s:
            assert s.scalar(select(func.count()).select_from(UsedSignature)) == 1
            assert set(s.scalars(select(InboundMail.status))) == {"answered"}
        engine.dispose()
