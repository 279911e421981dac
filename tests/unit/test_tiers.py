"""The tiers hold what the README says (tests/tiers.py decides)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tiers import tier_of

TESTS = Path(__file__).parents[1]


def test_each_test_of_this_run_is_marked_with_its_tier_and_no_fast_one_needs_a_server(
    request: pytest.FixtureRequest,
) -> None:
    items = request.session.items
    assert items
    for item in items:
        tier = tier_of(item)
        assert item.get_closest_marker(tier), item.nodeid
        path = Path(str(item.path))
        assert (tier == "e2e") == (TESTS / "e2e" in path.parents), item.nodeid
        if tier == "fast":
            assert "postgresql" not in item.nodeid, item.nodeid
            assert "mail_lab" not in getattr(item, "fixturenames", ()), item.nodeid
            assert not item.get_closest_marker("slow"), item.nodeid


def test_the_rules_are_fast_and_this_test_is_not(request: pytest.FixtureRequest) -> None:
    rules = [i for i in request.session.items if "/rulesets/" in i.nodeid.replace("::", "/")]
    quick = [i for i in rules if not i.get_closest_marker("slow") and "postgresql" not in i.nodeid]
    assert all(tier_of(item) == "fast" for item in quick)
    assert tier_of(request.node) == "unit"  # tests/unit, outside the pure packages
