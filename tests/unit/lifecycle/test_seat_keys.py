"""A seat's keys (issue 14): an OpenPGP key registered at ASSIGN, several keys per
seat (Ed25519, S/MIME, OpenPGP), rotation with KEY ADD / KEY RETIRE, and
OpenPGP-signed orders through the mailroom with a precise answer for each
refusal (unknown key, another player's key, retired key, replay, tampering)."""

from __future__ import annotations

import base64
import datetime
import email
import email.policy
import re
from email.message import EmailMessage
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.serialization import Encoding, pkcs7
from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import sign_block
from pbem.intake.smime import make_self_signed_certificate, sign_smime
from pbem.lifecycle import moderator
from pbem.lifecycle.mailroom import Mailroom, file_mail
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.storage.enums import KeyKind
from pbem.storage.models import OutboundMail
from pbem.storage.seatkeys import seat_keys
from tests.gnupg import GnuPG, clearsigned_mail, thunderbird_mail

MODERATOR = "pbem@example.org"


class Players:
    def __init__(self, gpg: GnuPG) -> None:
        self.gpg = gpg
        self.north = gpg.generate("North <north@example.org>")
        self.south = gpg.generate("South <south@example.org>")
        self.north2 = gpg.generate("North again <north2@example.org>")

    def key(self, uid: str) -> str:
        """The KEY word of a command, as the CLI writes it for @north.asc."""
        return "openpgp:" + base64.b64encode(self.gpg.export(uid)).decode()


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> Players:
    return Players(GnuPG(tmp_path_factory.mktemp("gnupg") / "home"))


def _smime_word(pem: bytes) -> str:
    """The KEY word of a command, as the CLI writes it for @cert.pem."""
    der = x509.load_pem_x509_certificate(pem).public_bytes(Encoding.DER)
    return "smime:" + base64.b64encode(der).decode()


def do(table, line: str) -> str:
    return table.run(lambda gm: moderator.execute(gm, line))


@pytest.fixture
def pgp_game(table, players: Players) -> str:
    do(table, "CREATE g1 demo duel early_adjudication=yes")
    do(table, f"ASSIGN g1 north north@example.org {players.key('north@example.org')}")
    do(table, f"ASSIGN g1 south south@example.org {players.key('south@example.org')}")
    do(table, "START g1")
    return "g1"


def _sheet(side: str, lines: list[str], turn: int = 1) -> str:
    return add_nonce(f"Game: g1\nSide: {side}\nTurn: {turn}\nPhase: plot\n\n" + "\n".join(lines))


def _process(table, raw: bytes, sender: str) -> tuple[str, str]:
    def go(gm):
        row = file_mail(gm.desk.session, "ref", raw, gm.desk.now, gm.desk.key)
        assert row is not None
        outcome = Mailroom(gm).process(row)
        answer = gm.desk.session.scalars(
            select(OutboundMail)
            .where(OutboundMail.recipient == sender)
            .order_by(OutboundMail.id.desc())
        ).first()
        parsed = email.message_from_bytes(
            open_outbound(gm.desk.key, answer), policy=email.policy.default
        )
        assert isinstance(parsed, EmailMessage)
        part = parsed.get_body(("plain",))
        assert part is not None
        return outcome, " ".join(part.get_content().split())

    return table.run(go)


def _headers(sender: str) -> dict[str, str]:
    return {"From": sender, "To": MODERATOR, "Subject": "orders"}


def test_openpgp_key_at_assign_and_thunderbird_orders_accepted(table, pgp_game, players):
    keys = table.run(lambda gm: seat_keys(gm.desk.session, "g1", "north"))
    assert [(k.kind, k.fingerprint) for k in keys] == [(KeyKind.OPENPGP, players.north)]
    raw = thunderbird_mail(
        players.gpg,
        "north@example.org",
        _sheet("north", ["SEND SQN-1 A"]),
        _headers("north@example.org"),
        attach_key=players.gpg.export("north@example.org"),
    )
    outcome, answer = _process(table, raw, "north@example.org")
    assert outcome == "accepted 1, refused 0", answer
    record = table.run(lambda gm: journal.entries(gm.desk.session, "g1"))
    added = [e["payload"] for e in record if e["kind"] == "seat-key-added"]
    assert added[0] == {"side": "north", "key_kind": "openpgp", "fingerprint": players.north}


def test_clearsigned_orders_accepted_and_a_replay_refused(table, pgp_game, players):
    raw = clearsigned_mail(
        players.gpg,
        "south@example.org",
        _sheet("south", ["SEND SQN-1 B"]),
        _headers("south@example.org"),
    )
    assert _process(table, raw, "south@example.org")[0] == "accepted 1, refused 0"
    # The same signature again, in a new mail (another Message-ID, other headers).
    again = raw.replace(b"Subject: orders", b"Subject: orders (again)")
    outcome, answer = _process(table, again, "south@example.org")
    assert outcome.startswith("refused: replay")
    assert "received before" in answer


def test_another_players_key_is_refused_as_the_wrong_side(table, pgp_game, players):
    raw = thunderbird_mail(
        players.gpg,
        "south@example.org",
        _sheet("north", ["SEND SQN-1 A"]),
        _headers("north@example.org"),
    )
    outcome, answer = _process(table, raw, "north@example.org")
    assert outcome.startswith("refused: wrong-side")
    assert f"key {players.south} is registered for side south in game g1, not north" in answer


def test_unknown_openpgp_key_refused_with_its_own_hint(table, pgp_game, players):
    raw = thunderbird_mail(
        players.gpg,
        "north2@example.org",
        _sheet("north", ["SEND SQN-1 A"]),
        _headers("north@example.org"),
    )
    outcome, answer = _process(table, raw, "north@example.org")
    assert outcome.startswith("refused: unknown-key")
    assert f"OpenPGP key {players.north2} that signed is not registered" in answer
    assert "KEY game side ADD" in answer and "pbem sign" not in answer  # no pasted-block hint


def test_tampered_pgp_mail_refused_without_the_pasted_block_hint(table, pgp_game, players):
    raw = thunderbird_mail(
        players.gpg,
        "north@example.org",
        _sheet("north", ["SEND SQN-1 A"]),
        _headers("north@example.org"),
    )
    outcome, answer = _process(table, raw.replace(b"SQN-1 A", b"SQN-1 B"), "north@example.org")
    assert outcome.startswith("refused: bad-signature")
    assert "does not match the signed text" in answer
    assert "paste" not in answer and "mail program signed it" in answer


def test_wrong_protocol_is_refused_not_accepted(table, pgp_game, players):
    raw = thunderbird_mail(
        players.gpg,
        "north@example.org",
        _sheet("north", ["SEND SQN-1 A"]),
        _headers("north@example.org"),
    )
    wrong = raw.replace(
        b'protocol="application/pgp-signature"', b'protocol="application/pkcs7-signature"'
    )
    outcome, _ = _process(table, wrong, "north@example.org")
    assert outcome.startswith("refused:")


def test_key_rotation_add_then_retire(table, pgp_game, players):
    """The player makes a new key: the moderator adds it, then retires the old one; mail
    signed with the old key is then refused as retired, by name."""
    answer = do(table, f"KEY g1 north ADD {players.key('north2@example.org')}")
    assert answer == f"north in g1 may sign with openpgp key {players.north2}"
    listed = do(table, "KEY g1 north LIST")
    assert f"openpgp {players.north} in use" in listed
    assert f"openpgp {players.north2} in use" in listed
    assert do(table, f"KEY g1 north RETIRE {players.north[:12]}") == (
        f"openpgp key {players.north} of north in g1 retired"
    )
    old = thunderbird_mail(
        players.gpg,
        "north@example.org",
        _sheet("north", ["SEND SQN-1 A"]),
        _headers("north@example.org"),
    )
    outcome, answer = _process(table, old, "north@example.org")
    assert outcome.startswith("refused: retired-key")
    assert f"key {players.north} was retired from game g1 by the moderator" in answer
    new = thunderbird_mail(
        players.gpg,
        "north2@example.org",
        _sheet("north", ["SEND SQN-1 A"]),
        _headers("north@example.org"),
    )
    assert _process(table, new, "north@example.org")[0] == "accepted 1, refused 0"
    kinds = [e["kind"] for e in table.run(lambda gm: journal.entries(gm.desk.session, "g1"))]
    assert "seat-key-retired" in kinds


def test_a_seat_holds_keys_of_every_kind(table, pgp_game, players, keys):
    certificate, _ = make_self_signed_certificate("north@example.org")
    do(table, f"KEY g1 north ADD {keys['north'][1]}")
    do(table, f"KEY g1 north ADD {_smime_word(certificate)}")
    kinds = table.run(lambda gm: [k.kind for k in seat_keys(gm.desk.session, "g1", "north")])
    assert kinds == [KeyKind.OPENPGP, KeyKind.ED25519, KeyKind.SMIME]


def test_key_commands_refuse_clearly(table, pgp_game, players):
    with pytest.raises(LifecycleError, match="only key north signs with"):
        do(table, f"KEY g1 north RETIRE {players.north}")
    with pytest.raises(LifecycleError, match="no key in use with fingerprint 0000"):
        do(table, "KEY g1 north RETIRE 00000000")
    with pytest.raises(LifecycleError, match="secret key"):
        secret = base64.b64encode(players.gpg.export_secret("north@example.org")).decode()
        do(table, f"KEY g1 north ADD openpgp:{secret}")
    with pytest.raises(LifecycleError, match="usage: KEY game side ADD"):
        do(table, "KEY g1 north SWAP x")
    with pytest.raises(LifecycleError, match="has no player"):
        do(table, f"KEY g1 west ADD {players.key('north2@example.org')}")


def test_assign_with_an_expired_openpgp_key_warns(table, tmp_path: Path):
    gpg = GnuPG(tmp_path / "home")
    gpg.generate("Old <old@example.org>", expire="1d", at="20260101T000000")
    key = "openpgp:" + base64.b64encode(gpg.export("old@example.org")).decode()
    do(table, "CREATE g2 demo duel")
    answer = do(table, f"ASSIGN g2 north old@example.org {key}")
    assert "old@example.org plays north in g2" in answer
    assert re.search(r"warning: the OpenPGP key \w+ expired on 2026-01-02", answer)


@pytest.mark.parametrize(
    ("start", "days", "expected"),
    [
        (datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC), 30, "expired on 2020-01-31"),
        (datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC), 30, "is not valid before 2029-12-31"),
    ],
)
def test_assign_with_an_expired_or_future_smime_certificate_warns(table, start, days, expected):
    pem, _ = make_self_signed_certificate("old@example.org", days=days, now=start)
    do(table, "CREATE g3 demo duel")
    answer = do(table, f"ASSIGN g3 north old@example.org {_smime_word(pem)}")
    assert "old@example.org plays north in g3" in answer
    assert "warning: the S/MIME certificate" in answer and expected in answer


# --- S/MIME through the mailroom ---------------------------------------------------------


@pytest.fixture(scope="module")
def certificates() -> dict[str, tuple[bytes, bytes]]:
    return {
        side: make_self_signed_certificate(f"{side}@example.org") for side in ("north", "south")
    }


@pytest.fixture
def smime_game(table, certificates) -> str:
    do(table, "CREATE g1 demo duel early_adjudication=yes")
    for side in ("north", "south"):
        word = _smime_word(certificates[side][0])
        do(table, f"ASSIGN g1 {side} {side}@example.org {word}")
    do(table, "START g1")
    return "g1"


def test_smime_orders_accepted(table, smime_game, certificates):
    raw = sign_smime(
        _sheet("north", ["SEND SQN-1 A"]), *certificates["north"], _headers("north@example.org")
    )
    assert _process(table, raw, "north@example.org")[0] == "accepted 1, refused 0"


def test_another_players_smime_certificate_is_refused_as_the_wrong_side(
    table, smime_game, certificates
):
    """South's certificate on a mail from north's address: found by the certificate the
    mail carries, verified, and refused as south's."""
    raw = sign_smime(
        _sheet("north", ["SEND SQN-1 A"]), *certificates["south"], _headers("north@example.org")
    )
    outcome, answer = _process(table, raw, "north@example.org")
    assert outcome.startswith("refused: wrong-side")
    assert "is registered for side south in game g1, not north" in answer


def test_smime_refusals_carry_no_hint_for_pasted_blocks(table, smime_game):
    stranger = make_self_signed_certificate("north@example.org")
    raw = sign_smime(_sheet("north", ["SEND SQN-1 A"]), *stranger, _headers("north@example.org"))
    outcome, answer = _process(table, raw, "north@example.org")
    assert outcome.startswith("refused: unknown-key")
    assert "self-signed certificate ('north@example.org'" in answer
    assert "pbem sign" not in answer and "paste" not in answer
    assert "KEY game side ADD" in answer


def test_opaque_smime_orders_accepted(table, smime_game, certificates):
    cert, key = certificates["south"]
    entity = (
        "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        + _sheet("south", ["SEND SQN-1 B"]).replace("\n", "\r\n")
    ).encode()
    der = (
        pkcs7.PKCS7SignatureBuilder()
        .set_data(entity)
        .add_signer(
            x509.load_pem_x509_certificate(cert),
            serialization.load_pem_private_key(key, password=None),  # type: ignore[arg-type]
            hashes.SHA256(),
        )
        .sign(Encoding.DER, [pkcs7.PKCS7Options.Binary])
    )
    raw = (
        b"From: south@example.org\r\nTo: pbem@example.org\r\nSubject: orders\r\n"
        b"Message-ID: <opaque-1@example.org>\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: application/pkcs7-mime; smime-type=signed-data; name=smime.p7m\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n"
    ) + base64.encodebytes(der).replace(b"\n", b"\r\n")
    outcome, answer = _process(table, raw, "south@example.org")
    assert outcome == "accepted 1, refused 0", answer


def test_a_pasted_block_in_a_mail_thunderbird_signed_with_an_unknown_key(table, players, keys):
    """A player with a pbem key whose Thunderbird signs every mail with its own OpenPGP
    key: the pasted block decides, as before OpenPGP was read."""
    do(table, "CREATE g1 demo duel early_adjudication=yes")
    do(table, f"ASSIGN g1 north north@example.org {keys['north'][1]}")
    do(table, f"ASSIGN g1 south south@example.org {keys['south'][1]}")
    do(table, "START g1")
    block = sign_block(_sheet("north", ["SEND SQN-1 A"]), keys["north"][0])
    raw = thunderbird_mail(
        players.gpg, "north2@example.org", "Orders:\n\n" + block, _headers("north@example.org")
    )
    outcome, answer = _process(table, raw, "north@example.org")
    assert outcome == "accepted 1, refused 0", answer


def test_unsigned_orders_from_an_openpgp_player_are_refused_as_unsigned(table, pgp_game):
    raw = (
        "From: north@example.org\r\nTo: pbem@example.org\r\nSubject: orders\r\n"
        "Message-ID: <unsigned-1@example.org>\r\n\r\n"
        + _sheet("north", ["SEND SQN-1 A"]).replace("\n", "\r\n")
    ).encode()
    outcome, answer = _process(table, raw, "north@example.org")
    assert outcome.startswith("refused: no-block")
    assert "the mail is not signed (OpenPGP or S/MIME) either" in answer
    assert "sign the mail with your mail program" in answer
