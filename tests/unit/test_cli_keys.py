"""A player's OpenPGP key at ASSIGN by the command line (``@alice.asc``, as
``gpg --armor --export`` writes it), and rotation with KEY ADD / LIST / RETIRE."""

from __future__ import annotations

from pathlib import Path

from tests.gnupg import GnuPG
from tests.unit.test_cli_errors import installed, pbem, refused

__all__ = ["installed"]  # the fixture, shared


def test_openpgp_key_by_file_at_assign_and_rotation(installed: Path, tmp_path: Path) -> None:
    gpg = GnuPG(tmp_path / "gnupg")
    first = gpg.generate("Alice <alice@example.org>")
    second = gpg.generate("Alice (2027) <alice2027@example.org>")
    (installed / "alice.asc").write_bytes(gpg.export("alice@example.org"))
    (installed / "alice-2027.asc").write_bytes(gpg.export("alice2027@example.org"))
    (installed / "secret.asc").write_bytes(gpg.export_secret("alice@example.org"))
    mod = ["-c", "pbem.toml", "mod"]
    assert pbem(installed, *mod, "CREATE", "k1", "demo", "duel").returncode == 0
    assigned = pbem(installed, *mod, "ASSIGN", "k1", "north", "alice@example.org", "@alice.asc")
    assert assigned.returncode == 0, assigned.stderr
    assert f"(key {first})" in assigned.stdout
    added = pbem(installed, *mod, "KEY", "k1", "north", "ADD", "@alice-2027.asc")
    assert f"north in k1 may sign with openpgp key {second}" in added.stdout, added.stderr
    retired = pbem(installed, *mod, "KEY", "k1", "north", "RETIRE", first)
    assert f"openpgp key {first} of north in k1 retired" in retired.stdout, retired.stderr
    listed = pbem(installed, *mod, "KEY", "k1", "north", "LIST").stdout
    assert f"openpgp {first} retired" in listed and f"openpgp {second} in use" in listed
    refused(
        pbem(installed, *mod, "KEY", "k1", "north", "ADD", "@secret.asc"),
        "secret key",
        "gpg --armor --export",
    )
