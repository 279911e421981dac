"""The metrics text: the exposition format's rules, and the database's counts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import aiohttp
from prometheus_client.exposition import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector, CollectorRegistry

from pbem.service.metrics import Metrics, ProcessStats, family, single
from pbem.service.watchdog import Watchdog
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.enums import InboundStatus, OutboundKind, OutboundStatus
from pbem.storage.models import InboundMail, OutboundMail
from tests.promtext import parse


def test_help_and_labels_are_escaped_by_the_exposition() -> None:
    registry = CollectorRegistry(auto_describe=False)

    class Two(Collector):
        def collect(self) -> Iterator[Metric]:
            a = family("pbem_a", "gauge", 'back\\slash and\nnewline "quoted"', ["k"])
            a.add_metric(['x"y\\z\n'], 1)
            yield a
            yield single("pbem_b_total", "counter", "b", 2.5)

    registry.register(Two())
    text = generate_latest(registry).decode()
    assert '# HELP pbem_a back\\\\slash and\\nnewline "quoted"\n' in text
    assert 'pbem_a{k="x\\"y\\\\z\\n"} 1.0\n' in text
    types, samples = parse(text)
    assert types == {"pbem_a": "gauge", "pbem_b_total": "counter"}
    assert samples[("pbem_b_total", ())] == 2.5


def test_counts_come_from_the_database(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    with sessions.begin() as s:
        for n, status in enumerate([InboundStatus.ANSWERED] * 3 + [InboundStatus.FAILED]):
            s.add(
                InboundMail(
                    digest=f"{n:064d}",
                    transport_ref=str(n),
                    raw=b"",
                    received_at=now,
                    status=status,
                )
            )
        for n, (status, age) in enumerate(
            [(OutboundStatus.PENDING, 90), (OutboundStatus.PENDING, 30), (OutboundStatus.SENT, 500)]
        ):
            s.add(
                OutboundMail(
                    message_id=f"<m{n}@x>",
                    kind=OutboundKind.ANSWER,
                    sender="a@x",
                    recipient="b@x",
                    raw=b"",
                    created_at=now - timedelta(seconds=age),
                    next_attempt_at=now,
                    status=status,
                )
            )
    stats = ProcessStats(started=1.0)
    stats.fetched(4)
    dog = Watchdog(None)
    dog.beat("intake", 1.0)
    types, samples = parse(Metrics(sessions, stats, dog, lambda: now).text())
    assert all(name.startswith("pbem_") for name in types)
    assert samples[("pbem_database_up", ())] == 1
    assert samples[("pbem_inbound_mails", (("status", "answered"),))] == 3
    assert samples[("pbem_inbound_mails", (("status", "failed"),))] == 1
    assert samples[("pbem_inbound_mails", (("status", "new"),))] == 0
    assert samples[("pbem_outbound_mails", (("status", "pending"),))] == 2
    assert samples[("pbem_outbox_depth", ())] == 2
    assert samples[("pbem_outbox_oldest_pending_age_seconds", ())] == 90
    assert samples[("pbem_phases_waiting", ())] == 0
    assert samples[("pbem_disputes", (("status", "open"),))] == 0
    assert samples[("pbem_mail_fetched_total", ())] == 4
    assert samples[("pbem_mailbox_last_contact_timestamp_seconds", ())] > 1.0
    assert ("pbem_loop_progress_age_seconds", (("loop", "intake"),)) in samples
    assert types["pbem_mail_fetched_total"] == "counter"
    engine.dispose()


def test_a_database_out_of_reach_is_a_metric_not_an_error(tmp_path: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/no/such/folder/db.sqlite3")
    text = Metrics(make_sessionmaker(engine), ProcessStats()).text()
    _, samples = parse(text)
    assert samples[("pbem_database_up", ())] == 0
    assert ("pbem_mail_fetched_total", ()) in samples
    engine.dispose()


async def test_the_http_endpoint(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    create_all(engine)
    site = await Metrics(make_sessionmaker(engine), ProcessStats()).serve("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as http:

            async def ask(method: str, path: str, **headers: str) -> tuple[int, str, str]:
                async with http.request(method, f"{site.url}{path}", headers=headers) as r:
                    return r.status, r.headers.get("Content-Type", ""), await r.text()

            status, content_type, body = await ask("GET", "metrics")
            assert status == 200 and content_type.startswith("text/plain; version=0.0.4")
            assert parse(body)[1][("pbem_database_up", ())] == 1
            assert (await ask("GET", "metrics?x=1"))[0] == 200
            assert (await ask("GET", ""))[0] == 404
            assert (await ask("POST", "metrics"))[0] == 405
            _, content_type, body = await ask(
                "GET", "metrics", Accept="application/openmetrics-text"
            )
            assert content_type.startswith("application/openmetrics-text")
            assert body.endswith("# EOF\n") and "pbem_mail_fetched_total 0" in body
    finally:
        await site.close()
        engine.dispose()
