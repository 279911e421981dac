"""PostgreSQL restarted under two working daemons: the claims a failed
transaction left behind are given back (or taken again) as soon as the
database is back, so every order is answered within one lease time of its
return, none twice, and no daemon logs an error."""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbem.service.leases import CLAIM_SECONDS
from pbem.storage.models import InboundMail, OutboundMail
from tests.conftest import make_database
from tests.e2e.helpers import (
    DaemonProcess,
    ModeratorDesk,
    Player,
    compose,
    delivered,
    moderator_desk,
    new_player,
    signed,
    submit,
    wait_until,
)
from tests.maillab import MailLab

ORDERS = 40


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    yield from make_database("postgresql", tmp_path)


def restart_postgresql(port: int = 5432) -> None:
    """``pg_ctl -m fast restart`` of the local cluster on ``port``: every session
    ends at once; returns when the server accepts connections again."""
    for line in subprocess.run(
        ["pg_lsclusters", "--no-header"], check=True, capture_output=True, text=True
    ).stdout.splitlines():
        version, cluster, cluster_port = line.split()[:3]
        if int(cluster_port) == port:
            subprocess.run(
                ["pg_ctlcluster", version, cluster, "restart", "-m", "fast"],
                check=True,
                timeout=120,
            )
            return
    raise AssertionError(f"no local PostgreSQL cluster on port {port}")


def _orders(lab: MailLab, desk: ModeratorDesk, players: list[Player], n: int) -> list[str]:
    sent = []
    for k in range(n):
        player = players[k % 2]
        body = signed(player, "g1", [f"SEND SQN-{1 + k % 3} A"])
        msg = compose(player.address, desk.address, f"orders {k}", body)
        submit(lab, msg)
        sent.append(str(msg["Message-ID"]))
    return sent


def _answers_sent(desk: ModeratorDesk) -> int:
    with desk.sessions() as s:
        return int(
            s.scalar(
                select(func.count())
                .select_from(OutboundMail)
                .where(OutboundMail.kind == "answer", OutboundMail.status == "sent")
            )
            or 0
        )


def _all_answered(desk: ModeratorDesk, n: int) -> bool:
    with desk.sessions() as s:
        statuses = list(s.scalars(select(InboundMail.status)))
        pending = s.scalar(
            select(func.count()).select_from(OutboundMail).where(OutboundMail.status == "pending")
        )
    return len(statuses) == n and "new" not in statuses and not pending


@pytest.mark.slow
def test_a_postgresql_restart_mid_work_strands_no_claim_and_sends_nothing_twice(
    mail_lab: MailLab, pg_url: str, tmp_path: Path
) -> None:
    desk = moderator_desk(mail_lab, pg_url, tmp_path)
    players = [new_player(mail_lab, side, prefix="restart") for side in ("north", "south")]
    desk.demo_game("g1", players, scenario="long-duel", early_adjudication=False)
    daemons = [DaemonProcess(desk, _folder(tmp_path, name)) for name in ("a", "b")]
    try:
        for daemon in daemons:
            daemon.start()
        for daemon in daemons:
            daemon.wait_ready(60)
        sent = _orders(mail_lab, desk, players, ORDERS)
        # Mid-work, twice: once the first answers are out, and again halfway (a
        # restart finds other transactions under way each time).
        for answered in (1, ORDERS // 2):
            wait_until(lambda n=answered: _answers_sent(desk) >= n, 120, f"{answered} answers")
            restart_postgresql()
            desk.sessions.kw["bind"].dispose()  # the test's own connections ended too
        back = time.monotonic()
        # Claims last CLAIM_SECONDS; a claim left stranded would hold its mail that
        # long. Within one lease time (15 s here) and the time the work takes.
        lease = desk.config.database.lease_seconds
        wait_until(lambda: _all_answered(desk, ORDERS), 120, "every order to be answered")
        took = time.monotonic() - back
        assert took < CLAIM_SECONDS / 2, took
        assert lease < CLAIM_SECONDS / 2
        with desk.sessions() as s:
            claimed = s.scalar(
                select(func.count())
                .select_from(InboundMail)
                .where(InboundMail.claim_owner.is_not(None), InboundMail.status == "new")
            )
        assert claimed == 0
        for daemon in daemons:
            assert daemon.stop() == 0
    finally:
        for daemon in daemons:
            daemon.kill()
    # Each order answered by exactly one delivered mail: nothing sent twice.
    replies = Counter(
        str(m["In-Reply-To"])
        for p in players
        for m in delivered(mail_lab, p.address)
        if m["In-Reply-To"] is not None
    )
    assert replies == Counter({m: 1 for m in sent})
    for daemon in daemons:
        log = daemon.log()
        assert "ERROR" not in log and "Traceback" not in log, log[-4000:]
        assert "never retrieved" not in log, log[-4000:]


def _folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    return folder
