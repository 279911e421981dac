"""The rate limit (issue 2, "rate-limit a flooding sender"): at most
``rate_limit`` answered mails per sender in any ``rate_window`` seconds; more
are filed, not answered. Counted in the database, so it holds for several
worker processes or daemons and across restarts."""

from __future__ import annotations

import base64
import dataclasses
import os
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from pbem.config import Config, SecretsConfig
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import InboundMail

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
OVER = "not answered: sender over the rate limit"


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _config(limit: int, window: float) -> Config:
    config = Config(secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()))
    return dataclasses.replace(
        config,
        intake=dataclasses.replace(config.intake, rate_limit=limit, rate_window=int(window)),
    )


def _workers(url: str, config: Config, clock: Clock, n: int = 1) -> list[Worker]:
    engine = make_engine(url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    return [Worker(config, sessions, f"test:{i}", clock) for i in range(n)]


def _question(sender: str) -> bytes:
    """A mail without an order block: answered (with an error), so it counts."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "moderator@pbem.example"
    msg["Subject"] = "a question"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content("When is the deadline?\n")
    return msg.as_bytes()


def _send(worker: Worker, *senders: str) -> list[str]:
    """File one mail from each sender and process them as one batch."""
    worker.file_many([(f"r{i}", _question(s)) for i, s in enumerate(senders)])
    ids = worker.pending_mail()
    outcomes = worker.process_many(ids)
    return ["over" if outcomes[i] == OVER else "answered" for i in ids]


def test_a_flooding_sender_is_filed_not_answered_until_the_window_moves_on(database_url):
    clock = Clock()
    (worker,) = _workers(database_url, _config(3, 60), clock)
    assert _send(worker, *["p@example.org"] * 4) == ["answered"] * 3 + ["over"]
    clock.now = T0 + timedelta(seconds=59)
    assert _send(worker, "p@example.org") == ["over"]
    clock.now = T0 + timedelta(seconds=60)  # the first three left the window
    assert _send(worker, "p@example.org", "p@example.org") == ["answered", "answered"]
    with worker.sessions() as s:
        statuses = list(s.scalars(select(InboundMail.status).order_by(InboundMail.id)))
    assert statuses.count("ignored") == 2 and len(statuses) == 7  # filed all the same


def test_senders_are_counted_apart_and_without_regard_to_case(database_url):
    (worker,) = _workers(database_url, _config(1, 60), Clock())
    assert _send(worker, "P@Example.org", "p@example.org", "q@example.org") == [
        "answered",
        "over",
        "answered",
    ]


def test_the_limit_holds_across_daemons_and_restarts(database_url):
    """Two Workers on one database, as two worker processes or daemons are; then
    a third, as after a restart: each sees what the others answered."""
    clock = Clock()
    first, second = _workers(database_url, _config(2, 3600), clock, n=2)
    assert _send(first, "p@example.org") == ["answered"]
    assert _send(second, "p@example.org") == ["answered"]
    assert _send(first, "p@example.org") == ["over"]
    (restarted,) = _workers(database_url, _config(2, 3600), clock)
    assert _send(restarted, "p@example.org") == ["over"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 4),
    st.integers(5, 60),
    st.lists(
        st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 30)), min_size=1, max_size=5),
        max_size=12,
    ),
)
def test_no_sender_is_ever_answered_more_than_the_limit_in_any_window(
    tmp_path_factory, limit: int, window: int, batches: list[list[tuple[str, int]]]
):
    folder: Path = tmp_path_factory.mktemp("rate")
    clock = Clock()
    (worker,) = _workers(f"sqlite:///{folder / 'db.sqlite3'}", _config(limit, window), clock)
    answered: dict[str, list[datetime]] = {}
    for batch in batches:
        clock.now += timedelta(seconds=sum(step for _, step in batch))
        senders = [f"{who}@example.org" for who, _ in batch]
        for sender, result in zip(senders, _send(worker, *senders), strict=True):
            if result == "answered":
                answered.setdefault(sender, []).append(clock.now)
    for times in answered.values():
        for i, start in enumerate(times):
            assert sum(1 for t in times[i:] if t < start + timedelta(seconds=window)) <= limit
