"""The project stands alone: every repository path its tracked text names
(docs/usn-data.md, tests/e2e/netns.py, pbem/rulesets/witp/clock.py, tools/..., bench/...)
is a file of the project, and nothing points to notes kept outside it (the shared
docs and rules beside the project). A newcomer who follows a path finds the file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A path of the project: a top folder, then a file name with one of these endings. Not
# preceded by a word, a slash or a dot, so a path under pbem/docs is read whole; "../" is
# relative to the file that says it.
PATH = re.compile(
    r"(?<![\w/.-])((?:\.\./)*(?:docs|tests|pbem|tools|bench|deploy|bin)/[\w./-]*?"
    r"\.(?:md|py|toml|j2|sh|txt))(?![\w-])"
)
OUTSIDE = re.compile(r"(?:\.\./|/work/)shared\b|\bshared/(?:docs|rules)\b")
# Paths a user creates (config files and the like), named in docs but not tracked.
USER_MADE: frozenset[str] = frozenset()


def tracked_texts() -> list[tuple[Path, str]]:
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    out = []
    for name in names:
        path = ROOT / name
        if path.is_symlink() or not path.is_file():
            continue  # docs/ links to pbem/docs: the page is read once, at its target
        try:
            out.append((path, path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue  # a picture, a binary fixture
    return out


def named_paths(text: str) -> list[str]:
    return [m.group(1) for m in PATH.finditer(text)]


def missing(path: Path, text: str) -> list[str]:
    """The project paths ``text`` (the file at ``path``) names that do not exist."""
    out = []
    for named in named_paths(text):
        target = path.parent / named if named.startswith("../") else ROOT / named
        if named not in USER_MADE and not target.exists():
            out.append(named)
    return out


def test_the_scanner_reads_paths_whole_and_relative() -> None:
    # Written with "@" for "/" so that this file names no missing path itself.
    text = "see docs@usn-data.md, `pbem@docs@usn-guide.md` and (..@docs@x.md); not mydocs@a.md"
    assert named_paths(text.replace("@", "/")) == [
        "docs/usn-data.md",
        "pbem/docs/usn-guide.md",
        "..@docs@x.md".replace("@", "/"),
    ]
    here = ROOT / "pbem" / "docs" / "usn-guide.md"
    named = "tests@netns.py and ..@docs@usn-guide.md".replace("@", "/")
    assert missing(here, named) == ["tests@netns.py".replace("@", "/")]
    assert OUTSIDE.search("from @work@shared@docs@usn-rules-inventory.md".replace("@", "/"))
    assert OUTSIDE.search("See shared@docs@mail-lab.md.".replace("@", "/"))
    assert not OUTSIDE.search("a shared database")


def test_every_path_the_project_names_is_in_the_project() -> None:
    bad: dict[str, list[str]] = {}
    named = 0
    for path, text in tracked_texts():
        named += len(named_paths(text))
        where = str(path.relative_to(ROOT))
        for p in missing(path, text):
            bad.setdefault(where, []).append(p)
        for m in OUTSIDE.finditer(text):
            bad.setdefault(where, []).append(m.group(0))
    assert not bad, bad
    assert named > 200  # the scan read the project's paths, not nothing
