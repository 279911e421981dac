"""Operator and moderator commands: init, serve, db, moderator, status, archive, verify."""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from sqlalchemy.orm import Session

from pbem.cli.argtypes import positive_number
from pbem.config import Config, example_config, load_config, resolve_path
from pbem.core.errors import ConfigError
from pbem.service.logs import setup_logging


def _config(args: argparse.Namespace) -> Config:
    config = load_config(args.config)
    args.loaded_config = config  # for the error boundary (pbem.cli.command): names and redacts
    return config


def cmd_init(args: argparse.Namespace) -> int:
    from pbem.outbox.gamekeys import generate_game_keys, key_files

    path = Path(args.path)
    if path.exists() and not args.force:
        print(f"pbem: {path} exists; use --force to overwrite", file=sys.stderr)
        return 1
    keys = Path(args.keys)
    folder = resolve_path(path.parent, keys)
    files = key_files(folder)
    if not args.force:
        files.refuse_to_replace()
    path.write_text(
        example_config(
            openpgp_key=str(keys / files.openpgp_key.name),
            smime_key=str(keys / files.smime_key.name),
            smime_certificate=str(keys / files.smime_certificate.name),
        )
    )
    path.chmod(0o600)  # it holds the plot key
    # For the example's address until the moderator sets [moderator]: then `mailkeys --force`.
    generate_game_keys(folder, "pbem moderator", "moderator@pbem.example", force=True)
    print(
        f"wrote {path} (with a fresh plot key) and signing keys in {folder}; "
        f"set [moderator] address and name, then: pbem -c {path} mailkeys --force; "
        f"pbem -c {path} db upgrade"
    )
    return 0


def cmd_mailkeys(args: argparse.Namespace) -> int:
    """Make the game's OpenPGP key and S/MIME certificate for [moderator] address."""
    from pbem.outbox.gamekeys import generate_game_keys

    config = _config(args)
    folder = resolve_path(config.base_dir, args.out) if args.out else _keys_folder(config)
    files = generate_game_keys(
        folder, config.moderator.name, config.moderator.address, force=args.force
    )
    print(f"the game's signing keys for {config.moderator.name} <{config.moderator.address}>:")
    print(f"  secret (mode 0600, keep them): {files.openpgp_key}, {files.smime_key}")
    print(
        f"  public (publish them to the players): {files.openpgp_public}, {files.smime_certificate}"
    )
    written = {
        "openpgp_key": files.openpgp_key,
        "smime_key": files.smime_key,
        "smime_certificate": files.smime_certificate,
    }
    named = {k: getattr(config.signing, k) for k in written}
    if all(v and resolve_path(config.base_dir, v) == written[k] for k, v in named.items()):
        print("the configuration's [signing] section names them already")
        return 0
    # Paths in the configuration are relative to its folder (or absolute).
    shown = {k: _relative(config.base_dir, v) for k, v in written.items()}
    print("name them in [signing] (paths relative to the configuration's folder, or absolute):")
    print("\n".join(f'  {k} = "{v}"' for k, v in shown.items()))
    return 0


def _relative(base: Path, path: Path) -> str:
    return str(path.relative_to(base)) if path.is_relative_to(base) else str(path)


def _keys_folder(config: Config) -> Path:
    """Where the configured keys are, else ``keys/`` beside the configuration."""
    for path in (config.signing.openpgp_key, config.signing.smime_key):
        if path:
            return Path(path).parent
    return config.base_dir / "keys"


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from pbem.storage.db import upgrade

    config = _config(args)
    before, after = upgrade(config.database.url)
    where = config.redact(config.database.url)
    if before is None:
        print(f"created pbem's tables in the database at {where} (schema {after})")
    elif before != after:
        print(f"upgraded the database at {where} from schema {before} to {after}")
    else:
        print(f"the database at {where} is up to date (schema {after})")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from pbem.service.daemon import Daemon
    from pbem.service.doctor import start_up_failures

    config = _config(args)
    setup_logging(config, args.log_level)
    # The doctor's start-up checks, the same list: what `pbem doctor` fails, serve refuses.
    failed = start_up_failures(config)
    if failed:
        raise ConfigError(
            "the daemon does not start (`pbem doctor` shows every check): "
            + "; ".join(f"{f.check}: {f.detail}" for f in failed)
        )
    daemon = Daemon(config, own_process=True)
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
    """@FILE stands for a key file's line, a certificate file as smime:<base64 DER>, an
    OpenPGP public key (gpg --armor --export) as openpgp:<base64>;
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
    if b"BEGIN PGP PUBLIC KEY BLOCK" in data or b"BEGIN PGP PRIVATE KEY BLOCK" in data:
        return "openpgp:" + base64.b64encode(data).decode()  # read (and refused) by the command
    return _text(data, word).strip()


KEY_FILE_SUFFIXES = (".pub", ".pem", ".asc", ".crt", ".gpg", ".key")


def _forgotten_at(words: list[str]) -> None:
    """A key file named without its ``@`` (``alice.pub`` for ``@alice.pub``) would be
    read as the key itself: say how to write it instead."""
    for w in words[1:]:
        if "@" in w or "=" in w or " " in w:  # a file given, an e-mail address, an option
            continue
        if w.lower().endswith(KEY_FILE_SUFFIXES) or Path(w).is_file():
            raise ConfigError(f"{w}: to give a key or certificate in a file, write @{w}")


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
    import getpass
    import shlex
    import socket

    from pbem.lifecycle import moderator
    from pbem.lifecycle.desk import Desk
    from pbem.lifecycle.games import GameMaster
    from pbem.lifecycle.publishing import Publisher
    from pbem.service.clock import utcnow
    from pbem.storage.db import make_engine, make_sessionmaker

    if args.words and args.words[0].lower() == "dashboard":
        return cmd_dashboard(args, args.words[1:])
    config = _config(args)
    # Reads leave no record entry: they are kept in the audit store (moderator_reads,
    # in this command's transaction), and logged to pbem.audit where the daemon's log
    # goes (stderr, in the configured format and level), with the local user and host.
    setup_logging(config, args.log_level)
    _forgotten_at(args.words)
    words = [_expand(w) for w in args.words]
    line = " ".join(shlex.quote(w) for w in words)
    engine = make_engine(config.database.url, config.database)
    try:
        with make_sessionmaker(engine).begin() as s:
            gm = GameMaster(Desk(s, config, config.secrets.key_bytes(), utcnow()), Publisher())
            actor = moderator.Actor(by=getpass.getuser(), via="cli", origin=socket.gethostname())
            print(moderator.execute(gm, line, actor))
    finally:
        engine.dispose()
    return 0


def cmd_dashboard(args: argparse.Namespace, words: list[str]) -> int:
    """``pbem mod dashboard [--port N]``: the moderator's dashboard on 127.0.0.1."""
    from pbem.service.dashboard import serve

    parser = argparse.ArgumentParser(
        prog="pbem mod dashboard",
        description="Serve the moderator's dashboard, read-only, on 127.0.0.1 until Ctrl-C.",
    )
    parser.add_argument(
        "--port", type=int, default=8018, help="TCP port on 127.0.0.1 (0: any free port)"
    )
    options = parser.parse_args(words)
    if not 0 <= options.port <= 65535:
        raise ConfigError(f"--port {options.port}: a TCP port is 0 to 65535")
    config = _config(args)
    setup_logging(config, args.log_level)

    def ready(url: str) -> None:
        print(f"the moderator's dashboard is at {url} (read-only; Ctrl-C stops it)", flush=True)

    with suppress(KeyboardInterrupt):
        serve(config, options.port, ready)
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
        print(f"rules: {result.rules}")
        for note in result.notes:
            print(f"note: {note}")
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


def cmd_doctor(args: argparse.Namespace) -> int:
    from pbem.service.doctor import run_doctor

    return run_doctor(args.config)


def cmd_demo(args: argparse.Namespace) -> int:
    from pbem.demo.runner import run_demo

    return run_demo(
        Path(args.dir).resolve(), args.ruleset, args.scenario, args.timeout, args.option
    )


_SCENARIO_LIST = "{scenarios}"  # the demo's epilog: every ruleset's scenarios


class _ScenarioHelp(argparse.RawDescriptionHelpFormatter):
    """``pbem demo --help`` lists each ruleset's scenarios, read only when help is
    shown (reading every ruleset's data takes half a second)."""

    def _format_text(self, text: str) -> str:
        if text == _SCENARIO_LIST:
            text = scenario_listing()
        return super()._format_text(text)


def scenario_listing() -> str:
    """Each ruleset's scenarios, its demonstration's marked."""
    from pbem import rulesets
    from pbem.demo.runner import DEFAULT_SCENARIOS

    lines = ["scenarios (--scenario), by ruleset (--ruleset):"]
    for name in rulesets.names():
        default = DEFAULT_SCENARIOS.get(name)
        names = [
            sc.name + (" (default)" if sc.name == default else "")
            for sc in rulesets.get(name).scenarios()
        ]
        lines.append(f"  {name}: {', '.join(names)}")
    return "\n".join(lines)


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _add_demo(sub)
    _add_operator(sub)
    _add_game(sub)


def _add_demo(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="play a demonstration game by signed mail through the daemon",
        epilog=_SCENARIO_LIST,
        formatter_class=_ScenarioHelp,
    )
    p.add_argument("--dir", default="pbem-demo", help="working folder (default ./pbem-demo)")
    # The rulesets are listed below (read only for --help); the demo refuses another.
    p.add_argument("--ruleset", default="usn", help="one of the rulesets below (default: usn)")
    p.add_argument(
        "--scenario",
        default=None,
        help="one of the ruleset's scenarios (listed below); default: its demonstration",
    )
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


def _add_operator(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The installation's: init, mailkeys, doctor, serve, db upgrade."""
    p = sub.add_parser("init", help="write a commented example configuration")
    p.add_argument("path", nargs="?", default="pbem.toml")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument(
        "--keys",
        default="keys",
        help="folder for the game's signing keys, relative to the file's (default keys)",
    )
    p.set_defaults(func=cmd_init)

    p = sub.add_parser(
        "mailkeys",
        help="make the game's OpenPGP key and S/MIME certificate that sign outgoing mail",
        description=(
            "Make the keys every mail pbem sends is signed with, for [moderator] name and "
            "address: an OpenPGP key (openpgp.key, public openpgp.asc) and a self-signed "
            "S/MIME certificate (smime.key, smime.pem). Publish the .asc and .pem files."
        ),
    )
    p.add_argument("--out", default=None, help="folder (default: the configured keys' folder)")
    p.add_argument("--force", action="store_true", help="replace existing keys")
    p.set_defaults(func=cmd_mailkeys)

    p = sub.add_parser(
        "doctor",
        help="check the configuration, database, IMAP, SMTP, keys and clock; one line each",
    )
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("serve", help="run the daemon (stop with SIGTERM or Ctrl-C)")
    p.add_argument("--once", action="store_true", help="one round of intake, clock and outbox")
    p.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database maintenance")
    dbsub = db.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    p = dbsub.add_parser("upgrade", help="create or migrate the schema (Alembic)")
    p.set_defaults(func=cmd_db_upgrade)


def _add_game(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The games': moderator commands, the archive, verify."""
    p = sub.add_parser(
        "moderator",
        aliases=["mod"],
        help="run a moderator command (the same set as by signed mail)",
        description=(
            "Moderator commands: CREATE game ruleset scenario [k=v ...] | ASSIGN game side email "
            "KEY [tz=Zone] [encrypt=yes] | REPLACE game side email KEY | "
            "OBSERVE game email [side] | START | "
            "PAUSE game [reason] | RESUME | EXTEND game hours | ADJUDICATE | STATUS | "
            "ROLLBACK game turn phase [REPLOT] | EDIT game /json/pointer value | "
            "RULE game id UPHELD|DISMISSED reason | "
            "KEY game side ADD KEY|RETIRE fingerprint|LIST|ENCRYPT yes|no | "
            "UPGRADE game [reason] | END game [reason] | LIST | SEATS game | DISPUTES [game] | AUDIT [game] | "
            "MESSAGE game side|all text | RESEND game side [turn [phase]] | "
            "SET game key=value [...] [reason] | DELETE game | UNOBSERVE game email | "
            "FAILED [game] | RESEND-MAIL id [id ...]. "
            "KEY may be @FILE (an OpenSSH public key, a PEM certificate "
            "or an OpenPGP public key, gpg --armor --export). "
            "`pbem mod dashboard [--port N]` serves the moderator's dashboard on 127.0.0.1."
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
