"""Partitions, not only kills (issue 19): two real ``pbem serve`` daemons on one
PostgreSQL database and one Dovecot mailbox, each on a host of its own (a
network namespace the test makes, tests/e2e/netns.py), one of them cut off from
the mailbox or from PostgreSQL mid-work, or paused past its lease.

What must hold whatever happens: every mail is processed once and filed once in
the processed folder, every answer is delivered once (counted in the players'
mailboxes by the order it answers), neither daemon logs an error, and the
deadlines move only when no daemon could work.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, text

from pbem.record import journal
from pbem.service.heartbeat import HEARTBEAT_SECONDS, OUTAGE_AFTER
from pbem.storage.models import (
    DaemonLease,
    Game,
    Heartbeat,
    InboundMail,
    MailboxLease,
    OutboundMail,
    OwedReports,
    Phase,
)
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
from tests.e2e.netns import Host, Network
from tests.maillab import MailLab

pytestmark = pytest.mark.slow

# The shortest lease the configuration takes; the timeouts below it, as it requires.
LEASE = 10
# Every wait: long enough for a loaded machine (a lease, reconnect backoffs, the work).
PATIENCE = 120
# The grace after the deadlines of the tests' games (seconds).
GRACE = 4.0
# A game's deadline falls this long after the second daemon starts: after the
# fetcher's cut is noticed (PostgreSQL: within tcp_user_timeout; IMAP: within its
# command timeout, 30 s) and the mailbox lease lapsed (LEASE), on a loaded machine.
DEADLINE_IN = 75.0


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    yield from make_database("postgresql", tmp_path)


@pytest.fixture
def network(mail_lab: MailLab) -> Iterator[Network]:
    with Network([5432, mail_lab.imap_port, mail_lab.smtp_port]) as network:
        yield network


@dataclass
class Node:
    """A daemon on a host of its own."""

    host: Host
    daemon: DaemonProcess

    @property
    def pid(self) -> int:
        assert self.daemon.process is not None
        return self.daemon.process.pid


@dataclass
class League:
    lab: MailLab
    desk: ModeratorDesk
    players: list[Player]
    network: Network
    tmp_path: Path
    sent: list[str]

    def node(self, name: str) -> Node:
        """A daemon in a new namespace, reaching the database and the lab through
        its gateway; not started."""
        host = self.network.host()
        c = self.desk.config
        config = replace(
            c,
            database=replace(
                c.database, url=c.database.url.replace("127.0.0.1:5432", f"{host.gateway}:5432")
            ),
            imap=replace(c.imap, host=host.gateway),
            smtp=replace(c.smtp, host=host.gateway),
        )
        assert config.database.url != c.database.url
        folder = self.tmp_path / name
        folder.mkdir()
        return Node(
            host, DaemonProcess(replace(self.desk, config=config), folder, host.command([]))
        )

    def orders(self, n: int) -> None:
        for _ in range(n):
            k = len(self.sent)
            player = self.players[k % 2]
            msg = compose(
                player.address,
                self.desk.address,
                f"orders {k}",
                signed(player, "g1", [f"SEND SQN-{1 + k % 3} A"]),
            )
            submit(self.lab, msg)
            self.sent.append(str(msg["Message-ID"]))

    def all_answered(self) -> bool:
        with self.desk.sessions() as s:
            # An adjudication notes its reports and queues them in a second
            # transaction (pbem.lifecycle.publishing): owed reports are mail to come.
            # Read first: the transaction that drops a note queues its mail.
            owed = s.scalar(select(OwedReports.id).limit(1))
            statuses = list(s.scalars(select(InboundMail.status)))
            pending = list(
                s.scalars(select(OutboundMail.id).where(OutboundMail.status == "pending"))
            )
        return (
            len(statuses) == len(self.sent) and "new" not in statuses and not pending and not owed
        )

    def wait_answered(self, what: str) -> None:
        wait_until(self.all_answered, PATIENCE, what)

    def fetcher(self) -> str | None:
        with self.desk.sessions() as s:
            return s.scalar(select(MailboxLease.owner))

    def db_now(self):  # type: ignore[no-untyped-def]
        with self.desk.sessions() as s:
            return s.scalar(select(text("now()")))

    def beats_again(self, owner: str) -> None:
        """Until daemon ``owner`` renews its lease past now + most of a lease."""
        since = self.db_now()

        def renewed() -> bool:
            with self.desk.sessions() as s:
                row = s.get(DaemonLease, owner)
                return row is not None and row.lease_until > since + timedelta(seconds=LEASE / 2)

        wait_until(renewed, PATIENCE, f"daemon {owner} to renew its lease")

    def deadline_game(self, game_id: str) -> Phase:
        """A game started now whose first deadline falls DEADLINE_IN seconds later,
        grace GRACE after it (no early adjudication, no reminder before the
        deadline); its open phase as started. Made before a daemon starts, it is
        in that daemon's plan of when to look (a game made behind the daemons'
        backs waits for their next look at every game)."""
        self.desk.demo_game(
            game_id,
            self.players,
            scenario="long-duel",
            early_adjudication=False,
            deadline_hours=DEADLINE_IN / 3600,
            grace_hours=GRACE / 3600,
            reminder_hours=0,
        )
        return self.phase(game_id)

    def phase(self, game_id: str) -> Phase:
        """The game's first phase, as stored now."""
        with self.desk.sessions() as s:
            return s.scalars(select(Phase).where(Phase.game_id == game_id, Phase.seq == 1)).one()

    def adjudicated(self, game_id: str) -> bool:
        return self.phase(game_id).adjudicated_at is not None

    def pushed_back(self) -> list[dict[str, object]]:
        """Every deadline moved after an outage, in any game (the records)."""
        with self.desk.sessions() as s:
            games = list(s.scalars(select(Game.id)))
            return [
                e["payload"]
                for game_id in games
                for e in journal.entries(s, game_id, kinds=["deadline-pushed-back"])
            ]

    def last_beats(self) -> list[datetime]:
        """Each daemon's heartbeat row: until when it could last work."""
        with self.desk.sessions() as s:
            return list(s.scalars(select(Heartbeat.at).where(Heartbeat.name.like("daemon %"))))

    def nobody_works(self) -> bool:
        """No daemon's row is younger than OUTAGE_AFTER: none could work (as the
        daemons judge an outage)."""
        now = self.db_now()
        beats = self.last_beats()
        return bool(beats) and all(now - at > OUTAGE_AFTER for at in beats)

    def check_game_mail_once(self, game_id: str) -> None:
        """Every mail the game queued (reports, reminders, notices) sent, and delivered once;
        each player has the report of the adjudicated first phase."""
        with self.desk.sessions() as s:
            rows = list(s.scalars(select(OutboundMail).where(OutboundMail.game_id == game_id)))
        assert rows and all(r.status == "sent" for r in rows), [(r.id, r.status) for r in rows]
        seen = Counter(
            str(m["Message-ID"])
            for to in {r.recipient for r in rows}  # the players, the moderator's notices
            for m in delivered(self.lab, to)
        )
        assert {r.message_id: seen[r.message_id] for r in rows} == {r.message_id: 1 for r in rows}
        adjudicated_at = self.phase(game_id).adjudicated_at
        assert adjudicated_at is not None
        reported = {
            r.recipient for r in rows if r.kind == "report" and r.created_at >= adjudicated_at
        }
        assert reported >= {p.address for p in self.players}

    def check_exactly_once(self, *nodes: Node, in_flight_at_cut: int = 0) -> None:
        """Each order answered by one delivered mail, filed once; no error logged.

        ``in_flight_at_cut``: a link cut between the SMTP server's 250 and the commit
        that marks the mail sent leaves that mail unmarked, and the peer that takes
        it over sends it again (nothing can tell it the server has it). At most
        this many answers (one per SMTP connection) may arrive twice, as the same
        Message-ID: one answer, two copies, never two answers."""
        copies: Counter[str] = Counter()
        answer_ids: dict[str, set[str]] = {}
        for p in self.players:
            for m in delivered(self.lab, p.address):
                if m["In-Reply-To"] is not None:
                    copies[str(m["In-Reply-To"])] += 1
                    answer_ids.setdefault(str(m["In-Reply-To"]), set()).add(str(m["Message-ID"]))
        assert set(copies) == set(self.sent)
        assert {k: len(v) for k, v in answer_ids.items()} == {m: 1 for m in self.sent}
        doubled = {k: n for k, n in copies.items() if n > 1}
        assert len(doubled) <= in_flight_at_cut and set(doubled.values()) <= {2}, doubled
        assert self.lab.count(self.desk.address) == 0
        filed = [
            m.split(b"Message-ID:", 1)[1].split(b"\n", 1)[0].strip().decode()
            for m in self.lab.list_messages(self.desk.address, "pbem-processed")
        ]
        assert Counter(filed) == Counter({m: 1 for m in self.sent})
        for node in nodes:
            log = node.daemon.log()
            assert "Traceback" not in log and "ERROR" not in log, log[-4000:]


@pytest.fixture
def league(mail_lab: MailLab, pg_url: str, tmp_path: Path, network: Network) -> Iterator[League]:
    desk = moderator_desk(mail_lab, pg_url, tmp_path)
    desk.config = replace(
        desk.config,
        database=replace(
            desk.config.database,
            lease_seconds=LEASE,
            lock_timeout=3,
            idle_in_transaction_timeout=6,
        ),
    )
    players = [new_player(mail_lab, side, prefix="part") for side in ("north", "south")]
    desk.demo_game("g1", players, scenario="long-duel", early_adjudication=False)
    yield League(mail_lab, desk, players, network, tmp_path, [])


@pytest.fixture
def pair(league: League) -> Iterator[tuple[Node, Node]]:
    """Two daemons, each in its own namespace: the first started first (it fetches)."""
    first, second = league.node("a"), league.node("b")
    try:
        yield first, second
    finally:
        for node in (first, second):
            if node.daemon.process is not None and node.daemon.process.poll() is None:
                os.kill(node.pid, signal.SIGCONT)
            node.daemon.kill()


def _start_both(
    league: League, first: Node, second: Node, before_second: Callable[[], object] = lambda: None
) -> str:
    """Start the first, let it answer a few orders, call ``before_second``, start the
    second; the first's id."""
    first.daemon.start()
    first.daemon.wait_ready()
    league.orders(3)
    league.wait_answered("the first daemon to answer")
    owner = league.fetcher()
    assert owner is not None
    before_second()
    second.daemon.start()
    second.daemon.wait_ready()
    assert league.fetcher() == owner
    return owner


def test_the_fetcher_cut_off_from_the_mailbox_is_replaced_and_repeats_nothing(
    league: League, pair: tuple[Node, Node]
) -> None:
    """The fetching daemon loses its path to IMAP mid-work: the other takes the
    mailbox once the lease lapses and fetches; back, the first moves and sends
    nothing twice and does not take the mailbox back."""
    first, second = pair
    cut_owner = _start_both(league, first, second)
    league.orders(3)
    first.host.cut(league.lab.imap_port)
    league.orders(3)
    league.wait_answered("the second daemon to take the mailbox and answer")
    assert league.fetcher() not in (None, cut_owner)
    first.host.restore()
    league.beats_again(cut_owner)
    league.orders(2)
    league.wait_answered("both daemons to answer after the link returned")
    assert league.fetcher() not in (None, cut_owner)
    assert first.daemon.stop() == 0 and second.daemon.stop() == 0
    league.check_exactly_once(first, second)


def _owner(node: Node) -> str:
    """The daemon's id, from its "ready" line (the last run's)."""
    ready = [line for line in node.daemon.log().splitlines() if "pbem daemon ready" in line]
    return ready[-1].rsplit("owner=", 1)[1].split()[0]


def test_a_daemon_cut_off_from_postgresql_mid_batch_is_taken_over_and_recovers(
    league: League, pair: tuple[Node, Node]
) -> None:
    """The fetcher holds claimed answers it cannot send yet (its SMTP path cut)
    when it loses PostgreSQL too: its lease is not renewed, and the other daemon
    takes the answers and the mailbox over. The links back, the first beats and
    works again. Nothing is sent twice: cut off, it could check its claims in no
    database, so it sent nothing."""
    first, second = pair
    cut_owner = _start_both(league, first, second)
    first.host.cut(league.lab.smtp_port)
    league.orders(6)

    def holds_claims() -> bool:
        with league.desk.sessions() as s:
            return bool(
                s.scalars(
                    select(OutboundMail.id).where(
                        OutboundMail.status == "pending", OutboundMail.claim_owner == cut_owner
                    )
                ).first()
            )

    wait_until(holds_claims, PATIENCE, "the first daemon to claim answers it cannot send")
    first.host.cut(5432)
    league.orders(2)
    league.wait_answered("the second daemon to take the claims and the mailbox over")
    assert league.fetcher() not in (None, cut_owner)
    with league.desk.sessions() as s:
        lease = s.get(DaemonLease, cut_owner)
        assert lease is not None and lease.lease_until < league.db_now()  # lapsed, unrenewed
    first.host.restore()
    league.beats_again(cut_owner)
    league.orders(4)
    league.wait_answered("both daemons to answer after the link returned")
    assert first.daemon.stop() == 0 and second.daemon.stop() == 0
    league.check_exactly_once(first, second)


def test_a_daemon_paused_past_its_lease_in_its_namespace_sends_nothing_twice(
    league: League, pair: tuple[Node, Node]
) -> None:
    """SIGSTOP the fetcher, on its own host: the other takes the mailbox and does
    the work; woken, the first neither fetches nor sends what is no longer its own
    (test_leases' SIGSTOP test, across namespaces)."""
    first, second = pair
    paused_owner = _start_both(league, first, second)
    os.kill(first.pid, signal.SIGSTOP)
    try:
        league.orders(3)
        league.wait_answered("the second daemon to take over")
        assert league.fetcher() not in (None, paused_owner)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    league.beats_again(paused_owner)
    league.orders(2)
    league.wait_answered("both daemons to answer")
    assert league.fetcher() not in (None, paused_owner)
    assert first.daemon.stop() == 0 and second.daemon.stop() == 0
    league.check_exactly_once(first, second)


def _adjudicated_by(node: Node, game_id: str) -> bool:
    """Whether the daemon's log says it adjudicated a round of the game."""
    return any(
        " adjudicated turn " in line and f"game={game_id}" in line.split()
        for line in node.daemon.log().splitlines()
    )


def _took_over(league: League, cut_owner: str) -> str:
    """Until a daemon other than ``cut_owner`` fetches; its id."""
    wait_until(
        lambda: league.fetcher() not in (None, cut_owner),
        PATIENCE,
        "the other daemon to take the mailbox over",
    )
    owner = league.fetcher()
    assert owner is not None
    return owner


@pytest.mark.parametrize("service", ["postgresql", "imap"])
def test_a_deadline_falling_while_one_daemon_is_cut_off_is_kept_by_the_other(
    league: League, pair: tuple[Node, Node], service: str
) -> None:
    """The fetcher is cut off from PostgreSQL, or from the mailbox; the other takes
    the mailbox over, and the game's deadline falls after that: the round is
    adjudicated after deadline and grace while the first is still cut off, and
    the deadline stays where it was (a daemon could work: no outage, nothing
    recorded). Back, the first repeats nothing; every report is delivered once."""
    first, second = pair
    games: list[Phase] = []
    cut_owner = _start_both(
        league, first, second, before_second=lambda: games.append(league.deadline_game("g2"))
    )
    [started] = games
    assert started.deadline is not None and started.grace_until is not None
    league.orders(3)
    first.host.cut(5432 if service == "postgresql" else league.lab.imap_port)
    league.orders(3)
    _took_over(league, cut_owner)
    assert league.db_now() < started.deadline, "taken over after the deadline: too slow a host"
    wait_until(lambda: league.adjudicated("g2"), PATIENCE, "the other daemon to adjudicate g2")
    kept = league.phase("g2")
    assert (kept.deadline, kept.grace_until) == (started.deadline, started.grace_until)
    assert kept.adjudicated_at is not None and kept.adjudicated_at >= started.grace_until
    # On time: the clock wakes at the grace's end; a cut-off peer costs the others at
    # most one lease time (OPERATIONS, "Several daemons on one PostgreSQL").
    assert kept.adjudicated_at - started.grace_until <= timedelta(seconds=LEASE)
    assert league.pushed_back() == []
    assert _adjudicated_by(second, "g2") and not _adjudicated_by(first, "g2")
    league.wait_answered("the other daemon to answer")
    first.host.restore()
    league.beats_again(cut_owner)
    league.orders(2)
    league.wait_answered("both daemons to answer after the link returned")
    assert first.daemon.stop() == 0 and second.daemon.stop() == 0
    assert league.pushed_back() == []  # nor when the first came back
    league.check_exactly_once(first, second)
    league.check_game_mail_once("g2")


def test_a_deadline_falling_while_both_daemons_are_cut_off_from_the_mailbox_waits_and_moves_once(
    league: League, pair: tuple[Node, Node]
) -> None:
    """Both daemons lose their path to IMAP (PostgreSQL and SMTP still answer):
    no daemon can work, so the deadline that falls meanwhile waits; when the
    mailbox answers again it moves by the outage, from the last moment a daemon
    could work to the first beat after, recorded once, and the round is
    adjudicated after the new deadline and grace. The orders that waited in the
    mailbox are answered once."""
    first, second = pair
    games: list[Phase] = []
    _start_both(
        league, first, second, before_second=lambda: games.append(league.deadline_game("g2"))
    )
    [started] = games
    assert started.deadline is not None and started.grace_until is not None
    cut_at = league.db_now()
    for node in (first, second):
        node.host.cut(league.lab.imap_port)
    league.orders(2)  # delivered to the mailbox, unseen until it answers
    wait_until(league.nobody_works, PATIENCE, "both daemons to find the mailbox out of reach")
    assert league.db_now() < started.deadline, "both down after the deadline: too slow a host"
    wait_until(
        lambda: league.db_now() > started.grace_until + OUTAGE_AFTER,  # type: ignore[operator]
        PATIENCE,
        "deadline and grace to pass during the outage",
    )
    waited = league.phase("g2")
    assert waited.adjudicated_at is None
    assert (waited.deadline, waited.grace_until) == (started.deadline, started.grace_until)
    assert league.pushed_back() == [] and league.nobody_works()
    # The last moment a daemon could work: its mailbox's last answer, at the cut
    # (the IMAP session answers every poll, well within a heartbeat).
    last_alive = max(league.last_beats())
    assert (
        cut_at - timedelta(seconds=HEARTBEAT_SECONDS)
        <= last_alive
        <= cut_at + timedelta(seconds=HEARTBEAT_SECONDS)
    )
    restored_at = league.db_now()
    for node in (first, second):
        node.host.restore()
    wait_until(lambda: bool(league.pushed_back()), PATIENCE, "the deadline to move")
    moved_by = league.db_now()
    [pushed] = league.pushed_back()
    moved = league.phase("g2")
    assert moved.deadline is not None and moved.grace_until is not None
    shift = moved.deadline - started.deadline
    assert moved.grace_until - started.grace_until == shift
    assert pushed["downtime_seconds"] == int(shift.total_seconds())
    # By the measured gap: from the last beat to the first beat after the mailbox
    # answered again (between the restore and when the move was seen).
    assert restored_at - last_alive <= shift <= moved_by - last_alive
    wait_until(lambda: league.adjudicated("g2"), PATIENCE, "g2 to be adjudicated")
    done = league.phase("g2")
    assert done.adjudicated_at is not None and done.adjudicated_at >= moved.grace_until
    assert done.adjudicated_at - moved.grace_until <= timedelta(seconds=LEASE)
    league.wait_answered("the orders that waited in the mailbox to be answered")
    assert first.daemon.stop() == 0 and second.daemon.stop() == 0
    assert len(league.pushed_back()) == 1  # once, whichever daemon came back first
    league.check_exactly_once(first, second)
    league.check_game_mail_once("g2")


def test_a_daemon_unplugged_mid_work_loses_nothing_doubles_only_mails_in_flight_and_recovers(
    league: League, pair: tuple[Node, Node]
) -> None:
    """The fetcher's whole link goes down while it files and answers a burst of
    orders (every connection dead at once, new ones refused): the other takes its
    claims and the mailbox over and answers everything; plugged in again, the
    first beats and works, and nothing was lost; no answer was doubled but those in flight at the cut."""
    first, second = pair
    unplugged_owner = _start_both(league, first, second)
    league.orders(8)
    wait_until(
        lambda: len(league.desk.mails()) > 3,
        PATIENCE,
        "the first daemon to file some of the burst",
    )
    first.host.unplug()
    league.orders(2)
    league.wait_answered("the other daemon to take the work over")
    assert league.fetcher() not in (None, unplugged_owner)
    first.host.plug()
    league.beats_again(unplugged_owner)
    league.orders(3)
    league.wait_answered("both daemons to answer after the link returned")
    assert first.daemon.stop() == 0 and second.daemon.stop() == 0
    # Mails the server had taken when the link went may go out twice (see above).
    league.check_exactly_once(first, second, in_flight_at_cut=league.desk.config.smtp.connections)
