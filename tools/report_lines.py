"""How much a player reads: the lines of each side's text reports in a demo's mail.

    python tools/report_lines.py DIR          # a finished ``pbem demo --dir DIR`` folder
    python tools/report_lines.py --run DIR    # play the demo there first (witp by default)

For each audience (the part of the address before @): the report mails it was
sent, the plain-text lines in all, the smallest, median and largest report, and
the lines of the order form it carries (filled in, not read), and where a report has
a digest (before its "Full detail" heading), the digest's lines, its order form not
counted. Answers to orders ("Re: ...") are not reports and are not counted.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import mailbox
import statistics
import subprocess
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

DIGEST_END = "Full detail"


def reports(folder: Path) -> Iterator[tuple[str, str, str]]:
    """(audience, subject, plain text) of every report the daemon sent, in order."""
    box = mailbox.Maildir(str(folder / "mail" / "outbox"), create=False)
    for key in sorted(box.keys()):
        msg = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        subject = str(msg["Subject"])
        if subject.startswith("Re:"):
            continue
        part = msg.get_body(("plain",))
        text = part.get_content().replace("\r\n", "\n") if part is not None else ""
        yield str(msg["To"]).partition("@")[0], subject, text


def form_lines(text: str) -> int:
    """The lines of the order form, its "---8<---" marks and heading included."""
    lines = text.splitlines()
    if "Your order form:" not in lines:
        return 0
    start = lines.index("Your order form:")
    end = lines.index("---8<---", start + 2)
    return end - start + 1


def digest_lines(text: str) -> int | None:
    """The lines before the "Full detail" heading, the order form not counted."""
    lines = text.splitlines()
    at = next((i for i, ln in enumerate(lines) if ln.startswith(DIGEST_END)), None)
    return None if at is None else at - form_lines("\n".join(lines[:at]))


def count(folder: Path) -> dict[str, dict[str, float]]:
    per: dict[str, list[int]] = {}
    forms: dict[str, int] = {}
    digests: dict[str, list[int]] = {}
    for who, _subject, text in reports(folder):
        per.setdefault(who, []).append(len(text.splitlines()))
        forms[who] = forms.get(who, 0) + form_lines(text)
        d = digest_lines(text)
        if d is not None:
            digests.setdefault(who, []).append(d)
    out = {}
    for who, n in sorted(per.items()):
        row: dict[str, float] = {
            "reports": len(n),
            "lines": sum(n),
            "form_lines": forms[who],
            "min": min(n),
            "median": statistics.median(n),
            "max": max(n),
        }
        if digests.get(who):
            row["digest_median"] = statistics.median(digests[who])
            row["digest_max"] = max(digests[who])
        out[who] = row
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--run", action="store_true", help="play the demo in DIR first")
    ap.add_argument("--ruleset", default="witp")
    a = ap.parse_args()
    if a.run:
        cmd = [sys.executable, "-m", "pbem", "demo", "--dir", str(a.dir), "--ruleset", a.ruleset]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    for who, row in count(a.dir.resolve()).items():
        print(who, " ".join(f"{k}={v:g}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
