"""Benchmark: what signing (and encrypting) each outgoing mail costs.

Usage:  python bench/sign.py [--mails 500]

In one process, on the same answers and reports: composing alone (the
baseline, what ``enqueue`` did before), then composing and signing with the
game's OpenPGP key (PGP/MIME), with its S/MIME certificate, and signing and
encrypting to a player's OpenPGP key. Reported: ms per mail and the ratio to
the baseline. Target: OpenPGP signing (the default) adds less than 5 ms per
mail, so a burst of 2,000 answers gains less than 10 s of CPU; S/MIME (RSA 3072)
and encryption are reported.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pysequoia  # noqa: E402

from pbem.config import SigningConfig  # noqa: E402
from pbem.outbox.compose import compose_reply  # noqa: E402
from pbem.outbox.gamekeys import GameKeys, generate_game_keys, load_game_keys  # noqa: E402
from pbem.outbox.protect import protect  # noqa: E402

TARGET_MS = 5.0
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 200  # a ~50 kB map picture


def mail(i: int) -> bytes:
    report = i % 2 == 1
    # Every fourth mail has trailing blanks: it is made quoted-printable before signing.
    blank = "   " if i % 4 == 0 else ""
    text = "".join(f"line {n} of turn {i}: SEND SQN-{n} A{blank}\n" for n in range(60))
    return compose_reply(
        to="alice@example.org",
        sender="pbem moderator <moderator@pbem.example>",
        subject=f"g1: turn {i}",
        text=text,
        html=f"<pre>{text}</pre>" if report else None,
        in_reply_to=None,
        message_id=f"<pbem.report.{i}@pbem.example>",
        loop_token="moderator@pbem.example",
        date=datetime(2026, 12, 1, tzinfo=UTC),
        attachments=[("map.png", "image/png", PNG)] if report else (),
        auto_submitted="auto-generated",
    )


def timed(label: str, mails: int, step: Callable[[int], bytes]) -> float:
    start = time.process_time()
    for i in range(mails):
        step(i)
    per_mail = (time.process_time() - start) / mails * 1000
    print(f"{label:<42} {per_mail:7.2f} ms/mail")
    return per_mail


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mails", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        files = generate_game_keys(Path(folder), "pbem moderator", "moderator@pbem.example")
        keys = load_game_keys(
            SigningConfig(
                openpgp_key=str(files.openpgp_key),
                smime_key=str(files.smime_key),
                smime_certificate=str(files.smime_certificate),
            )
        )
    assert keys.openpgp is not None and keys.smime is not None
    player = pysequoia.Tsk.generate("alice <alice@example.org>").extract_certificate()
    n = args.mails
    base = timed("compose (baseline)", n, mail)
    runs = {
        "compose + sign, OpenPGP": timed(
            "compose + sign, OpenPGP", n, lambda i: protect(mail(i), keys)
        ),
        "compose + sign, S/MIME": timed(
            "compose + sign, S/MIME", n, lambda i: protect(mail(i), GameKeys(smime=keys.smime))
        ),
        "compose + sign + encrypt, OpenPGP": timed(
            "compose + sign + encrypt, OpenPGP",
            n,
            lambda i: protect(mail(i), keys, encrypt_to=player),
        ),
    }
    for label, per_mail in runs.items():
        extra = per_mail - base
        print(f"{label:<42} x{per_mail / base:5.2f} of the baseline, +{extra:.2f} ms/mail")
    openpgp = runs["compose + sign, OpenPGP"] - base
    ok = openpgp < TARGET_MS
    verdict = "OK" if ok else "MISSED"
    print(f"{verdict}: OpenPGP signing adds {openpgp:.2f} ms/mail (target < {TARGET_MS})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
