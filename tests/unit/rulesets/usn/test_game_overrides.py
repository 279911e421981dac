"""A moderator corrects data for one game, without editing the package (issue 4 item 5)."""

from __future__ import annotations

import pytest

from pbem.errors import DataError
from pbem.rulesets import get


def _unit(state, side, uid):  # type: ignore[no-untyped-def]
    return next(u for u in state["units"] if u["side"] == side and u["uid"] == uid)


def test_game_override_changes_only_that_game() -> None:
    usn = get("usn")
    plain = usn.initial_state("coral-sea", {})
    corrected = usn.initial_state(
        "coral-sea", {"overrides": {"units": {"japanese/RGT-1": {"attack": 9}}}}
    )
    assert _unit(plain, "japanese", "RGT-1")["attack"] == 6
    assert _unit(corrected, "japanese", "RGT-1")["attack"] == 9
    assert usn.initial_state("coral-sea", {}) == plain  # the package data is untouched


def test_game_override_of_unknown_unit_refused_with_key() -> None:
    with pytest.raises(DataError, match="BB-99"):
        get("usn").initial_state(
            "coral-sea", {"overrides": {"units": {"japanese/BB-99": {"attack": 1}}}}
        )


def test_game_override_of_map_refused_clearly() -> None:
    with pytest.raises(DataError, match="per-game map corrections"):
        get("usn").initial_state("coral-sea", {"overrides": {"map": {}}})
