"""The metrics text: the exposition format's rules, and the database's counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbem.service.metrics import Family, Metrics, ProcessStats, render
from pbem.service.watchdog import Watchdog
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from pbem.storage.enums import InboundStatus, OutboundKind, OutboundStatus
from pbem.storage.models import InboundMail, OutboundMail
from tests.promtext import parse


def test_render_escapes_help_and_labels() -> None:
    text = render(
        [
            Family("pbem_a", "gauge", 'back\\slash and\nnewline "quoted"').add(1, k='x"y\\z\n'),
            Family("pbem_b_total", "counter", "b").add(2.5),
        ]
    )
    assert text == (
        '# HELP pbem_a back\\\\slash and\\nnewline "quoted"\n'
        "# TYPE pbem_a gauge\n"
        'pbem_a{k="x\\"y\\\\z\\n"} 1\n'
        "# HELP pbem_b_total b\n"
        "# TYPE pbem_b_total counter\n"
        "pbem_b_total 2.5\n"
    )
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


def test_the_http_endpoint(sqlite_url: str) -> None:
    import asyncio

    engine = make_engine(sqlite_url)
    create_all(engine)
    metrics = Metrics(make_sessionmaker(engine), ProcessStats())

    async def ask(server_port: int, request: bytes) -> tuple[str, str]:
        reader, writer = await asyncio.open_connection("127.0.0.1", server_port)
        writer.write(request)
        await writer.drain()
        answer = (await reader.read()).decode()
        writer.close()
        await writer.wait_closed()
        head, _, body = answer.partition("\r\n\r\n")
        return head.splitlines()[0], body

    async def main() -> None:
        server = await metrics.serve("127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            status, body = await ask(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status == "HTTP/1.1 200 OK"
            assert parse(body)[1][("pbem_database_up", ())] == 1
            status, _ = await ask(port, b"GET /metrics?x=1 HTTP/1.0\r\n\r\n")
            assert status == "HTTP/1.1 200 OK"
            assert (await ask(port, b"GET / HTTP/1.1\r\n\r\n"))[0] == "HTTP/1.1 404 Not Found"
            status, _ = await ask(port, b"POST /metrics HTTP/1.1\r\n\r\n")
            assert status == "HTTP/1.1 405 Method Not Allowed"
            assert (await ask(port, b"\x16\x03\x01garbage\r\n\r\n"))[
                0
            ] == "HTTP/1.1 400 Bad Request"
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    engine.dispose()
