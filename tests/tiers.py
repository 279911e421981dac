"""The test tiers (``bin/test --fast``, ``--unit``, the full run), decided here only.

A test's tier follows from where it lives and what it uses, so a new test lands
in the right one without a decorator:

- ``e2e``: everything under ``tests/e2e`` (real Dovecot, SMTP, daemons, PostgreSQL).
- ``unit``: everything else (``tests/unit``, ``tests/golden``).
- ``fast``: the unit tests of the rules and the pure packages (reading mail,
  rendering, the outbox's composing, the record) that use no server: not the
  ones on PostgreSQL or the mail lab, nor those marked ``slow`` or ``e2e``.

``--tier fast`` runs the fast tier, ``--tier unit`` the unit tier (which holds
the fast one), ``--tier full`` (the default) all of them. Each test is also
marked with its tier's name, so ``-m fast`` selects the same tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TIERS = ("fast", "unit", "full")
_TESTS = Path(__file__).parent
_E2E = _TESTS / "e2e"
# The packages whose unit tests need no game machine, daemon or server.
_FAST = tuple(
    _TESTS / folder
    for folder in (
        "unit/rulesets",
        "unit/intake",
        "unit/reports",
        "unit/outbox",
        "unit/record",
        "golden",
    )
)
# Fixtures that start or reach a server: a test using one is never fast.
_SERVER_FIXTURES = frozenset({"mail_lab", "mail_user"})
_SERVER_PARAMS = frozenset({"postgresql"})
_NOT_FAST_MARKS = ("e2e", "slow")


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--tier",
        choices=TIERS,
        default="full",
        help="run one tier: fast (rules, pure units), unit (all but tests/e2e), full (all)",
    )


def _uses_a_server(item: pytest.Item) -> bool:
    if _SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    return any(isinstance(p, str) and p in _SERVER_PARAMS for p in params)


def tier_of(item: pytest.Item) -> str:
    """``fast``, ``unit`` or ``e2e``: the smallest tier that holds ``item``."""
    path = Path(str(item.path))
    if _E2E in path.parents:
        return "e2e"
    fast = (
        any(folder in path.parents for folder in _FAST)
        and not any(item.get_closest_marker(m) for m in _NOT_FAST_MARKS)
        and not _uses_a_server(item)
    )
    return "fast" if fast else "unit"


def _in_tier(found: str, tier: str) -> bool:
    return tier == "full" or found == tier or (tier == "unit" and found == "fast")


def outside(path: Path, config: pytest.Config) -> bool:
    """Whether nothing under ``path`` can be in ``--tier``: then it is not even
    collected (importing a test module costs its assertion rewriting)."""
    tier = config.getoption("tier")
    if tier == "full" or _TESTS not in path.parents:
        return False
    if path == _E2E or _E2E in path.parents:
        return True
    if tier == "unit":
        return False
    return not any(
        folder == path or folder in path.parents or path in folder.parents for folder in _FAST
    )


def select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier; deselect those outside ``--tier``."""
    tier = config.getoption("tier")
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        found = tier_of(item)
        item.add_marker(found)
        (kept if _in_tier(found, tier) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
