"""Operator and moderator commands: init, serve, db, moderator, status, archive, verify."""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.orm import Session

from pbem.cli import positive_number
from pbem.config import Config, example_config, load_config
from pbem.core.errors import ConfigError
from pbem.service.logs import setup_logging


def _config(args: argparse.Namespace) -> Config:
    config = load_config(args.config)
    args.loaded_config = config  # for the error boundary (pbem.cli): names and redacts
    return config


def cmd_init(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if path.exists() and not args.force:
        print(f"pbem: {path} exists; use --force to overwrite", file=sys.stderr)
        return 1
    path.write_text(example_config())
    path.chmod(0o600)  # it holds the plot key
    print(f"wrote {path} (with a fresh plot key); edit it, then: pbem -c {path} db upgrade")
    return 0


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from pbem.storage.db import upgrade

    config = _config(args)
    upgrade(config.database.url)
    print(f"database at {config.redact(config.database.url)} is up to date")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from pbem.service.daemon import Daemon

    config = _config(args)
    setup_logging(config, args.log_level)
    config.secrets.key_bytes()  # refuse to start without a usable key
    daemon = Daemon(config)
    if args.once:
        asyncio.run(_once(daemon))
        return 0
    asyncio.run(daemon.run())
    return 0


async def _once(daemon: object) -> None:
    from pbem.service.daemon import Daemon

    assert isinstance(daemon, Daemon)
    await asyncio.to_thread(daemon.worker.start_up)
    await daemon.once()
    await daemon.inbox.close()
    await daemon.sender.close()


def _expand(word: str) -> str:
    """@FILE stands for a key file's line, or a certificate file as smime:<base64 DER>;
    key=@FILE for a file's text (overrides=@corrections.toml)."""
    key, sep, rest = word.partition("=@")
    if sep and key.isidentifier():
        return f"{key}={_text(_read_named(rest, word), word)}"
    if not word.startswith("@"):
        return word
    data = _read_named(word[1:], word)
    if b"BEGIN CERTIFICATE" in data:
        from cryptography import x509
        from cryptography.hazmat.primitives.serialization import Encoding

        try:
            certificate = x509.load_pem_x509_certificate(data)
        except ValueError as exc:
            raise ConfigError(f"{word}: not a readable PEM certificate: {exc}") from None
        return "smime:" + base64.b64encode(certificate.public_bytes(Encoding.DER)).decode()
    return _text(data, word).strip()


def _text(data: bytes, word: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{word}: not a text file (UTF-8)") from None


def _read_named(path: str, word: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{word}: cannot read {path}: {exc.strerror or exc}") from None


def cmd_moderator(args: argparse.Namespace) -> int:
    """Run one moderator command, the same set as by signed mail."""
    import shlex

    from pbem.lifecycle import moderator
    from pbem.lifecycle.desk import Desk
    from pbem.lifecycle.games import GameMaster
    from pbem.lifecycle.publishing import Publisher
    from pbem.service.clock import utcnow
    from pbem.storage.db import make_engine, make_sessionmaker

    config = _config(args)
    words = [_expand(w) for w in args.words]
    line = " ".join(shlex.quote(w) for w in words)
    engine = make_engine(config.database.url)
    try:
        with make_sessionmaker(engine).begin() as s:
            gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), utcnow()), Publisher())
            print(moderator.execute(gm, line))
    finally:
        engine.dispose()
    return 0


@contextmanager
def _reading(args: argparse.Namespace) -> Iterator[Session]:
    """A read-only session on the configured database, closed afterwards."""
    from pbem.storage.db import make_engine, make_sessionmaker

    engine = make_engine(_config(args).database.url)
    try:
        with make_sessionmaker(engine)() as s:
            yield s
    finally:
        engine.dispose()


def cmd_archive_export(args: argparse.Namespace) -> int:
    from pbem.record.archive import export

    with _reading(args) as s:
        out = export(s, args.game, Path(args.out), unfinished=args.unfinished)
    print(f"archive of {args.game} written to {out}")
    return 0


def cmd_archive_html(args: argparse.Namespace) -> int:
    from pbem.reports.site import write_site

    with _reading(args) as s:
        index = write_site(s, args.game, Path(args.out), unfinished=args.unfinished)
    print(f"site of {args.game} written: open {index}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from pbem.record.archive import verify_archive

    result = verify_archive(Path(args.archive))
    if result.ok:
        print(
            f"OK: {result.entries} record entries, {result.phases} phases re-adjudicated, "
            f"{result.rolls} die rolls and {result.commitments} plot commitments confirmed"
        )
        if r := result.reports:
            # Queued and not (yet) delivered or failed: still in the outbox at export.
            print(
                f"reports: {r['queued']} queued, {r['delivered']} delivered, {r['failed']} failed"
            )
        return 0
    print(f"FAILED: {len(result.problems)} problem(s):", file=sys.stderr)
    for p in result.problems:
        print(f"  - {p}", file=sys.stderr)
    return 1


def cmd_demo(args: argparse.Namespace) -> int:
    from pbem.demo import run_demo

    return run_demo(
        Path(args.dir).resolve(), args.ruleset, args.scenario, args.timeout, args.option
    )


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("demo", help="play a demonstration game by signed mail through the daemon")
    p.add_argument("--dir", default="pbem-demo", help="working folder (default ./pbem-demo)")
    p.add_argument("--ruleset", default="usn")
    p.add_argument("--scenario", default="coral-sea")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, checked as CREATE checks it (e.g. fog=double-blind, subs=true)",
    )
    p.add_argument(
        "--timeout", type=positive_number, default=300.0, help="seconds before giving up"
    )
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("init", help="write a commented example configuration")
    p.add_argument("path", nargs="?", default="pbem.toml")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("serve", help="run the daemon (stop with SIGTERM or Ctrl-C)")
    p.add_argument("--once", action="store_true", help="one round of intake, clock and outbox")
    p.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database maintenance")
    dbsub = db.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    p = dbsub.add_parser("upgrade", help="create or migrate the schema (Alembic)")
    p.set_defaults(func=cmd_db_upgrade)

    p = sub.add_parser(
        "moderator",
        aliases=["mod"],
        help="run a moderator command (the same set as by signed mail)",
        description=(
            "Moderator commands: CREATE game ruleset scenario [k=v ...] | ASSIGN game side email "
            "KEY [tz=Zone] | REPLACE game side email KEY | OBSERVE game email [side] | START | "
            "PAUSE game [reason] | RESUME | EXTEND game hours | ADJUDICATE | STATUS | "
            "ROLLBACK game turn phase [REPLOT] | EDIT game /json/pointer value | "
            "RULE game id UPHELD|DISMISSED reason | "
            "END game [reason] | FAILED [game] | RESEND-MAIL id [id ...]. KEY may be @FILE (an OpenSSH public key or a PEM certificate)."
        ),
    )
    p.add_argument("words", nargs=argparse.REMAINDER, help="the command and its arguments")
    p.set_defaults(func=cmd_moderator)

    archive = sub.add_parser("archive", help="the game archive")
    asub = archive.add_subparsers(dest="archive_command", metavar="COMMAND", required=True)
    p = asub.add_parser("export", help="write a game's full record to a folder")
    p.add_argument("game")
    p.add_argument("--out", required=True, help="folder to write")
    p.add_argument("--unfinished", action="store_true", help="export a game still in play")
    p.set_defaults(func=cmd_archive_export)
    p = asub.add_parser("html", help="write a game's static site: every report, then the record")
    p.add_argument("game")
    p.add_argument("--out", required=True, help="folder to write")
    p.add_argument("--unfinished", action="store_true", help="a game still in play (moderator)")
    p.set_defaults(func=cmd_archive_html)

    p = sub.add_parser("verify", help="re-run a game from its exported archive and check it all")
    p.add_argument("archive", help="folder written by `pbem archive export`")
    p.set_defaults(func=cmd_verify)
