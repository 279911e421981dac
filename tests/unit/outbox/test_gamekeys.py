"""The game's signing keys (issue 14): made by ``pbem init`` and ``pbem mailkeys``,
named in ``[signing]``, checked when the daemon starts, used by every ``enqueue``."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pysequoia
import pytest
from cryptography import x509

from pbem.config import Config, SecretsConfig, SigningConfig, load_config
from pbem.core.errors import ConfigError
from pbem.outbox.gamekeys import generate_game_keys, load_game_keys
from pbem.outbox.queue import Outgoing, enqueue, open_outbound
from pbem.storage.db import create_all, make_engine, make_sessionmaker
from tests.gpgtool import parse

ROOT = Path(__file__).resolve().parents[3]


def pbem(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "pbem", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_init_and_mailkeys_make_the_keys_the_configuration_names(tmp_path: Path) -> None:
    made = pbem(tmp_path, "init", "pbem.toml")
    assert made.returncode == 0, made.stderr
    keys = tmp_path / "keys"
    assert (keys / "openpgp.key").stat().st_mode & 0o077 == 0  # secret: owner only
    assert (keys / "smime.key").stat().st_mode & 0o077 == 0
    config = load_config(tmp_path / "pbem.toml", environ={})
    assert config.signing.openpgp_key == str(keys / "openpgp.key")
    loaded = load_game_keys(config.signing)
    assert loaded.openpgp is not None and loaded.smime is not None

    # The moderator sets the real address, then makes the keys for it.
    text = (tmp_path / "pbem.toml").read_text()
    (tmp_path / "pbem.toml").write_text(
        text.replace('address = "moderator@pbem.example"', 'address = "usn@wargames.example"')
    )
    again = pbem(tmp_path, "-c", "pbem.toml", "mailkeys")
    assert again.returncode == 1 and "--force" in again.stderr  # never replaced unasked
    replaced = pbem(tmp_path, "-c", "pbem.toml", "mailkeys", "--force")
    assert replaced.returncode == 0, replaced.stderr
    published = (keys / "openpgp.asc").read_bytes()
    assert b"PUBLIC KEY BLOCK" in published and b"PRIVATE" not in published  # no secret
    public = pysequoia.Cert.from_bytes(published)
    assert [str(u) for u in public.user_ids] == ["pbem moderator <usn@wargames.example>"]
    certificate = x509.load_pem_x509_certificate((keys / "smime.pem").read_bytes())
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    assert names.value.get_values_for_type(x509.RFC822Name) == ["usn@wargames.example"]
    new = load_game_keys(load_config(tmp_path / "pbem.toml", environ={}).signing)
    assert new.openpgp is not None and loaded.openpgp is not None
    # The replaced file is read again: the new key, not the one cached before.
    assert new.openpgp.extract_certificate().fingerprint == public.fingerprint
    assert loaded.openpgp.extract_certificate().fingerprint != public.fingerprint


def test_serve_refuses_a_key_that_cannot_sign(tmp_path: Path) -> None:
    assert pbem(tmp_path, "init", "pbem.toml").returncode == 0
    text = (tmp_path / "pbem.toml").read_text()
    # The published (public) key by mistake: it cannot sign.
    (tmp_path / "pbem.toml").write_text(text.replace("keys/openpgp.key", "keys/openpgp.asc"))
    refused = pbem(tmp_path, "-c", "pbem.toml", "serve", "--once")
    assert refused.returncode == 1
    assert "Traceback" not in refused.stderr
    assert "[signing] openpgp_key" in refused.stderr and "openpgp.asc" in refused.stderr


def test_signing_paths_are_relative_to_the_file_and_go_in_pairs(tmp_path: Path) -> None:
    config = Config(signing=SigningConfig(openpgp_key="keys/openpgp.key"), base_dir=tmp_path)
    assert config.signing.openpgp_key == str(tmp_path.resolve() / "keys/openpgp.key")
    assert config.signing.smime_key == ""  # none stays none
    with pytest.raises(ConfigError, match="smime_key and smime_certificate go together"):
        SigningConfig(smime_key="smime.key")


def test_a_missing_key_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[signing\] openpgp_key: cannot read .*nothing.key"):
        load_game_keys(SigningConfig(openpgp_key=str(tmp_path / "nothing.key")))


def test_a_certificate_of_another_key_is_refused(tmp_path: Path) -> None:
    first = generate_game_keys(tmp_path / "a", "m", "m@example.org")
    second = generate_game_keys(tmp_path / "b", "m", "m@example.org")
    with pytest.raises(ConfigError, match="is not the certificate of the key"):
        load_game_keys(
            SigningConfig(
                smime_key=str(first.smime_key), smime_certificate=str(second.smime_certificate)
            )
        )


def test_enqueue_stores_the_mail_signed_only_when_the_game_has_a_key(tmp_path: Path) -> None:
    files = generate_game_keys(tmp_path / "keys", "pbem moderator", "moderator@pbem.example")
    secrets = SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode())
    plain = Config(secrets=secrets, base_dir=tmp_path)
    signing = replace(plain, signing=SigningConfig(openpgp_key=str(files.openpgp_key)))
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    create_all(engine)
    try:
        with make_sessionmaker(engine).begin() as s:
            raws = {
                name: open_outbound(
                    secrets.key_bytes(),
                    enqueue(
                        s,
                        config,
                        Outgoing(
                            kind="answer",
                            cause=("answer", name),
                            to="alice@example.org",
                            subject="Re: orders",
                            text="Orders understood.\n",
                        ),
                        datetime(2026, 12, 1, tzinfo=UTC),
                    ),
                )
                for name, config in (("plain", plain), ("signed", signing))
            }
    finally:
        engine.dispose()
    unsigned, signed = (parse(raws[name]) for name in ("plain", "signed"))
    assert unsigned.get_content_type() == "text/plain"
    assert signed.get_content_type() == "multipart/signed"
    for msg in (unsigned, signed):
        body = msg.get_body(("plain",))
        assert body is not None and body.get_content() == "Orders understood.\r\n"
