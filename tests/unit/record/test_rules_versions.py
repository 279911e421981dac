"""A game keeps its rules: ``pbem verify`` re-adjudicates a record only by the rules it
names (ruleset version, data fingerprint), and otherwise says which pbem it needs.

The archives in tests/fixtures/archives were recorded by pbem 0.1.0 (commit bb4b81f),
before records named their rules (tests/fixtures/archives/make_archive.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem import __version__, rulesets
from pbem.record.archive import verify_archive
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.witp.ruleset import WitpRuleset

ARCHIVES = Path(__file__).parents[2] / "fixtures" / "archives"
# Phases each archive holds (re-adjudicated when the rules are the record's).
PHASES = {"usn": 14, "witp": 5}
RULESETS = {"usn": UsnRuleset, "witp": WitpRuleset}


def _legacy_refusal(name: str) -> str:
    """What verify says of the archive: its first entry naming rules (the set-up) was
    made by the legacy rules, which are not this pbem's."""
    legacy = rulesets.LEGACY[name]
    here = rulesets.identity(rulesets.get(name))
    record = (ARCHIVES / f"{name}-0.1.0" / "record.jsonl").read_text().splitlines()
    started = next(e["seq"] for e in map(json.loads, record) if e["kind"] == "game-started")
    return (
        f"record entry {started}: this record was adjudicated by {name} rules version 1 with data "
        f"fingerprint {legacy.data[:16]} (pbem 0.1.0, before records named their rules); "
        f"this pbem ({__version__}) has {here.describe()}: it cannot re-adjudicate it. "
        "Install pbem 0.1.0 (its source: the release's tag, commit bb4b81f) in a virtual "
        "environment of its own to verify it: a pbem re-adjudicates by its own rules only, "
        "and older rules are kept by the release that played them"
    )


@pytest.mark.parametrize("name", ["usn", "witp"])
def test_archive_of_release_0_1_0_verifies_or_is_refused_precisely(name: str) -> None:
    """Must hold across every change of the rules: while the rules are those of
    pbem 0.1.0 the archive verifies; once the version or data moved, it is refused
    with the exact reason (never "events differ")."""
    result = verify_archive(ARCHIVES / f"{name}-0.1.0")
    here = rulesets.identity(rulesets.get(name))
    if here == rulesets.LEGACY[name]:
        assert result.problems == [], (
            f"the {name} rules give other results for a record of version 1 with the same "
            f"data: bump {RULESETS[name].__name__}.version"
        )
        assert result.phases == PHASES[name]
        assert result.rules.startswith(f"{name} rules version 1 with data fingerprint")
    else:
        assert result.problems == [_legacy_refusal(name)]
        assert result.phases == 0


@pytest.mark.parametrize("name", ["usn", "witp"])
def test_archive_of_release_0_1_0_refused_once_the_version_moves(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RULESETS[name], "version", "2")
    result = verify_archive(ARCHIVES / f"{name}-0.1.0")
    assert result.problems == [_legacy_refusal(name)]
    assert f"{name} rules version 2 with data fingerprint" in result.problems[0]


def test_archive_of_release_0_1_0_refused_once_the_data_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rulesets, "packaged_fingerprint", lambda name: "f" * 64)
    result = verify_archive(ARCHIVES / "usn-0.1.0")
    assert result.problems == [_legacy_refusal("usn")]
    here = f"usn rules version {RULESETS['usn'].version} with data fingerprint ffffffffffffffff:"
    assert here in result.problems[0]


def test_rules_changed_since_a_release_are_a_new_release() -> None:
    """The record names the pbem release beside the rules, and verify sends a moderator
    to that release: rules that differ from release 0.1.0's may not be recorded under
    its number, or verify would send the moderator to the release he already has."""
    changed = [
        n for n in rulesets.names() if rulesets.identity(rulesets.get(n)) != rulesets.LEGACY[n]
    ]
    if changed:
        assert __version__ != rulesets.LEGACY_RELEASE, (
            f"rules changed ({changed}): raise the release"
        )
