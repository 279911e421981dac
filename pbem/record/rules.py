"""Which rules a record was played by, and whether this pbem can re-adjudicate it.

The record names the rules with the set-up (``game-started``) and with every
adjudication (``phase-adjudicated``): the ruleset's version, the fingerprint of its
data files and the pbem release, as ``{"version", "data", "pbem"}``. An entry of an
older record names none: it was played by the ruleset's legacy rules
(``pbem.rulesets.LEGACY``). A moderator's UPGRADE (``rules-upgraded``) says from
which phase on the game is played by newer rules, and holds the state they start from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem import __version__, rulesets
from pbem.core.ruleset import Ruleset, RulesIdentity

# The record entries that name the rules they were made by.
NAMING = ("game-started", "phase-adjudicated")


def in_code(ruleset: Ruleset) -> dict[str, str]:
    """The rules this pbem plays ``ruleset`` by, as the record writes them."""
    return {**rulesets.identity(ruleset).to_json(), "pbem": __version__}


def release_of(rules: Mapping[str, Any] | None) -> str:
    """The pbem release that played by ``rules`` (a record entry's or a game's)."""
    if rules and rules.get("pbem"):
        return str(rules["pbem"])
    return rulesets.LEGACY_RELEASE


def describe(name: str, rules: Mapping[str, Any] | None) -> str:
    """E.g. "usn rules version 1 with data fingerprint 409b5f8cbb5d02fb (pbem 0.1.0)"."""
    told = rulesets.recorded(name, dict(rules) if rules else None).describe()
    before = "" if rules else ", before records named their rules"
    return f"{told} (pbem {release_of(rules)}{before})"


def _install(rules: Mapping[str, Any] | None) -> str:
    """Where the rules a record needs are: each pbem plays its own rules of each game
    only (a release keeps one version of each ruleset's code, as the record's hashes
    need it byte for byte), so older rules are the release that played them."""
    release = release_of(rules)
    commit = "" if rules and rules.get("pbem") else f", commit {rulesets.LEGACY_COMMIT}"
    return (
        f"Install pbem {release} (its source: the release's tag{commit}) in a virtual "
        "environment of its own to verify it: a pbem re-adjudicates by its own rules "
        "only, and older rules are kept by the release that played them"
    )


@dataclass
class RulesCheck:
    """What ``check`` found: where re-adjudication starts (None: from the set-up; a
    record seq: a ``rules-upgraded`` entry), or why it cannot (``refusal``)."""

    start: int | None = None
    refusal: str = ""
    notes: list[str] = field(default_factory=list)
    needs: str = ""  # the rules the record's last adjudication names


def needs(name: str, entries: Sequence[Mapping[str, Any]]) -> str:
    """The rules a record needs to go on: those its last naming entry names."""
    last = next((e for e in reversed(entries) if e["kind"] in NAMING), None)
    return describe(name, None if last is None else last["payload"].get("rules"))


def _named(name: str, entries: Sequence[Mapping[str, Any]]) -> list[tuple[int, RulesIdentity]]:
    return [
        (int(e["seq"]), rulesets.recorded(name, e["payload"].get("rules")))
        for e in entries
        if e["kind"] in NAMING
    ]


def last_upgrade(entries: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The record's last UPGRADE of a started game (the one the line of play runs from)."""
    upgrades = [e for e in entries if e["kind"] == "rules-upgraded" and e["payload"].get("state")]
    return upgrades[-1] if upgrades else None


def check(name: str, entries: Sequence[Mapping[str, Any]], ruleset: Ruleset) -> RulesCheck:
    """Whether ``ruleset`` (this pbem's) may re-adjudicate the record ``entries``: every
    entry from the set-up (or from the last UPGRADE) on must name its rules."""
    found = _check(name, entries, ruleset)
    found.needs = needs(name, entries)
    return found


def _check(name: str, entries: Sequence[Mapping[str, Any]], ruleset: Ruleset) -> RulesCheck:
    here = rulesets.identity(ruleset)
    upgrade = last_upgrade(entries)
    start = None if upgrade is None else int(upgrade["seq"])
    named = _named(name, entries)
    if all(rules == here for _, rules in named):
        return RulesCheck()  # played by these rules throughout: re-adjudicated from set-up
    later = [(seq, rules) for seq, rules in named if start is None or seq > start]
    wrong = next(((seq, rules) for seq, rules in later if rules != here), None)
    new = None if upgrade is None else rulesets.recorded(name, upgrade["payload"]["new"])
    if start is not None and wrong is None and new == here:
        assert upgrade is not None
        old = upgrade["payload"]["old"]
        return RulesCheck(
            start=start,
            notes=[
                f"the phases before record entry {start} (the moderator's UPGRADE) were "
                f"adjudicated by {describe(name, old)}: not re-run here (install pbem "
                f"{release_of(old)} to verify them); from entry {start} on the record is "
                "re-adjudicated by this pbem's rules"
            ],
        )
    seq, _ = wrong or next((seq, rules) for seq, rules in named if rules != here)
    entry = next(e for e in entries if int(e["seq"]) == seq)
    rules = entry["payload"].get("rules")
    return RulesCheck(
        refusal=(
            f"record entry {seq}: this record was adjudicated by {describe(name, rules)}; "
            f"this pbem ({__version__}) has {here.describe()}: it cannot re-adjudicate it. "
            f"{_install(rules)}"
        )
    )
