"""Property: whatever bytes arrive, intake never raises and always files the mail
with a final status (issue 2, "bad input ... never crash, never lose mail").

Each example goes the daemon's way: ``Worker.file`` (store, commit) then
``Worker.process`` (one transaction) on a SQLite database with a running demo
game, so that well-formed signed mail reaches the deep end of the mailroom.
A status of "failed" would mean a bug caught by the worker's safety net: the
property demands "answered" or "ignored".
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from pbem.config import Config, IntakeConfig, ModeratorConfig, SecretsConfig
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import generate_keypair, sign_block
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.service.work import Worker
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.models import InboundMail

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
NORTH_KEY, NORTH_PUB = generate_keypair("north")
MODERATOR = "moderator@pbem.example"


class Intake:
    """A worker on a fresh SQLite database holding one running demo game."""

    def __init__(self, folder: Path) -> None:
        self.config = Config(
            moderator=ModeratorConfig(address=MODERATOR),
            secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
            # No rate limit in the way: every example should reach the mailroom's depths.
            intake=IntakeConfig(rate_limit=1_000_000, max_size=200_000),
            base_dir=folder,
        )
        self.engine = make_engine(f"sqlite:///{folder / 'pbem.sqlite3'}")
        create_all(self.engine)
        self.sessions = make_sessionmaker(self.engine)
        self.worker = Worker(self.config, self.sessions, "test:1", lambda: T0)
        with self.sessions.begin() as s:
            gm = GameMaster(Desk(s, self.config, self.config.secrets.key_bytes(), T0), Publisher())
            gm.acts.create_game("g1", "demo", "duel", settings={"early_adjudication": False})
            gm.acts.assign("g1", "north", "north@example.org", public_key=NORTH_PUB)
            _, south_pub = generate_keypair("south")
            gm.acts.assign("g1", "south", "south@example.org", public_key=south_pub)
            gm.acts.start("g1")

    def take(self, raw: bytes) -> InboundMail:
        assert self.worker.file("uid:1", raw) is True
        digest = hashlib.sha256(raw).hexdigest()
        with self.sessions() as s:
            row_id = s.scalars(select(InboundMail.id).where(InboundMail.digest == digest)).one()
        self.worker.process(row_id)
        with self.sessions() as s:
            row = s.get(InboundMail, row_id)
            assert row is not None
            s.expunge(row)
            return row


@pytest.fixture(scope="module")
def intake() -> Iterator[Intake]:
    with tempfile.TemporaryDirectory() as folder:
        it = Intake(Path(folder))
        yield it
        it.engine.dispose()


def _assert_filed(row: InboundMail) -> None:
    assert row.status in ("answered", "ignored"), (row.status, row.outcome)
    assert row.outcome
    assert row.processed_at is not None


# Each mail its own Message-ID: copies of one Message-ID are answered once.
_MESSAGE_IDS = itertools.count(1)


def _signed_mail(orders: str) -> bytes:
    block = sign_block(
        add_nonce("Game: g1\nSide: north\nTurn: 1\nPhase: plot\n\n" + orders), NORTH_KEY
    )
    return (
        f"From: north@example.org\nTo: {MODERATOR}\nSubject: orders\n"
        f"Message-ID: <p{next(_MESSAGE_IDS)}@example.org>\n"
        "Content-Type: text/plain; charset=utf-8\n\n" + block
    ).encode()


HEADER_NAMES = st.sampled_from(
    [
        "From",
        "To",
        "Subject",
        "Content-Type",
        "Content-Transfer-Encoding",
        "MIME-Version",
        "Message-ID",
        "Return-Path",
        "Auto-Submitted",
        "References",
        "In-Reply-To",
        "X-Pbem-Loop",
        "List-Id",
    ]
)
HEADER_VALUES = st.one_of(
    st.binary(max_size=200),
    st.sampled_from(
        [
            b"north@example.org",
            b"<>",
            b'multipart/mixed; boundary="b"',
            b'multipart/signed; protocol="application/pkcs7-signature"; boundary=b',
            b"text/plain; charset=x-unknown",
            b"text/html; charset=utf-16",
            b"base64",
            b"quoted-printable",
            b"=?utf-8?b?8J+Ukg==?=",
            b"=?iso-8859-1?q?caf=E9?=",
        ]
    ),
)


@st.composite
def mail_shaped(draw: st.DrawFn) -> bytes:
    """Header-like lines, a blank line, then a body of anything (often a MIME part)."""
    headers = draw(st.lists(st.tuples(HEADER_NAMES, HEADER_VALUES), max_size=12))
    head = b"".join(name.encode() + b": " + value + b"\r\n" for name, value in headers)
    body = draw(
        st.one_of(
            st.binary(max_size=2000),
            st.just(b"--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n"),
            st.just(_signed_mail("SEND SQN-1 A\n").split(b"\n\n", 1)[1]),
        )
    )
    return head + b"\r\n" + body


@st.composite
def mutated_signed_mail(draw: st.DrawFn) -> bytes:
    """A valid signed order mail with bytes flipped, cut or inserted."""
    orders = draw(
        st.lists(st.sampled_from(["SEND SQN-1 A", "SEND SQN-2 Z", "HOLD", "# c"]), max_size=4)
    )
    raw = bytearray(_signed_mail("\n".join(orders) + "\n"))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(raw)))
        what = draw(st.sampled_from(["flip", "cut", "insert"]))
        if what == "flip" and at < len(raw):
            raw[at] = draw(st.integers(0, 255))
        elif what == "cut":
            del raw[at : at + draw(st.integers(1, 40))]
        else:
            raw[at:at] = draw(st.binary(min_size=1, max_size=20))
    return bytes(raw)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.binary(max_size=3000))
def test_arbitrary_bytes_are_filed_with_a_status(intake: Intake, raw: bytes) -> None:
    _assert_filed(intake.take(raw))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(mail_shaped())
def test_mail_shaped_bytes_are_filed_with_a_status(intake: Intake, raw: bytes) -> None:
    _assert_filed(intake.take(raw))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(mutated_signed_mail())
def test_mutated_signed_mail_is_filed_with_a_status(intake: Intake, raw: bytes) -> None:
    _assert_filed(intake.take(raw))


def test_the_unmutated_signed_mail_is_accepted(intake: Intake) -> None:
    """The mutation test's seed reaches the end of the pipeline (else it proves little)."""
    row = intake.take(_signed_mail("SEND SQN-1 A\nSEND SQN-2 B\n"))
    assert (row.status, row.outcome) == ("answered", "accepted 2, refused 0")
