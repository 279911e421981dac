"""One way to queue a mail: an ``Outgoing`` value, queued once per cause."""

from __future__ import annotations

import base64
import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, select

from pbem.config import Config, SecretsConfig
from pbem.outbox.queue import Outgoing, compose_outbound, enqueue, message_id_for, open_outbound
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.enums import OutboundKind
from pbem.storage.models import OutboundMail

T0 = datetime(2026, 12, 1, tzinfo=UTC)
ANSWER = Outgoing(
    kind=OutboundKind.ANSWER,
    cause=("answer", "digest-1"),
    to="alice@example.org",
    subject="Re: orders",
    text="Orders understood.\n",
    in_reply_to="<orders-1@example.org>",
)


def _config(tmp_path: Path) -> Config:
    key = base64.b64encode(os.urandom(32)).decode()
    return Config(secrets=SecretsConfig(plot_key=key), base_dir=tmp_path)


def test_a_cause_is_queued_once_under_its_stable_message_id(tmp_path: Path) -> None:
    config = _config(tmp_path)
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    create_all(engine)
    try:
        with make_sessionmaker(engine).begin() as s:
            first = enqueue(s, config, ANSWER, T0)
            again = enqueue(s, config, replace(ANSWER, text="Something else.\n"), T0)
            assert again is first
            assert first.message_id == message_id_for(config, "answer", ANSWER.cause, ANSWER.to)
            assert s.scalar(select(func.count()).select_from(OutboundMail)) == 1
            raw = open_outbound(config.secrets.key_bytes(), first)
    finally:
        engine.dispose()
    assert b"Orders understood." in raw and b"In-Reply-To: <orders-1@example.org>" in raw
    composed = compose_outbound(config, ANSWER, T0)
    assert composed.message_id == first.message_id  # composing again: the same mail
    assert open_outbound(config.secrets.key_bytes(), composed) == raw
