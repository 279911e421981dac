"""A moderator corrects data for one game, without editing the package (issue 4 item 5)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pbem.core.errors import DataError
from pbem.rulesets import get
from pbem.rulesets.usn import world
from pbem.rulesets.usn.loader import default_directory, load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import decode


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


def test_game_override_of_map_plays_on_the_corrected_map() -> None:
    """Map corrections are kept in the game's state and used in every later phase."""
    usn = get("usn")
    reef = {"terrain": [{"hex": 1050, "terrain": "class1", "src": "reconstructed", "why": "reef"}]}
    state = usn.initial_state("coral-sea", {"overrides": {"map": reef}})
    assert state["options"]["map_overrides"] == reef
    geo = usn._geo_of(decode(state))  # type: ignore[attr-defined]
    assert geo is not usn.geo  # type: ignore[attr-defined]
    assert geo.terrain[1050] != usn.geo.terrain[1050]  # type: ignore[attr-defined]
    plain = usn.initial_state("coral-sea", {})
    assert usn._geo_of(decode(plain)) is usn.geo  # type: ignore[attr-defined]


def test_game_overrides_need_no_file_once_the_world_is_loaded(tmp_path: Path) -> None:
    """The ruleset is pure: the loader reads the data once, and a game's corrections
    (counters and map) are built from what it read, even with the folder gone."""
    folder = tmp_path / "usn"
    shutil.copytree(Path(str(default_directory())), folder)
    world = load_world(folder)
    shutil.rmtree(folder)
    usn = UsnRuleset(world, world_geo())
    reef = {"terrain": [{"hex": 1050, "terrain": "class1", "src": "reconstructed", "why": "reef"}]}
    units = {"japanese/RGT-1": {"attack": 9}}
    state = usn.initial_state("coral-sea", {"overrides": {"units": units, "map": reef}})
    assert _unit(state, "japanese", "RGT-1")["attack"] == 9
    assert usn._geo_of(decode(state)).terrain[1050] != usn.geo.terrain[1050]  # type: ignore[attr-defined]


def test_each_ruleset_plays_on_its_own_world_data() -> None:
    """The rules consult the world of the ruleset being asked, whichever was built last."""
    plain = load_world()
    corrected = load_world(overrides={"units": {"japanese/RGT-1": {"attack": 9}}})
    first, second = UsnRuleset(plain, world_geo()), UsnRuleset(corrected, world_geo())
    state = first.initial_state("coral-sea", {})
    second.pending(state)
    assert world.current() is corrected
    first.pending(state)
    assert world.current() is plain


def _play_out(usn: UsnRuleset, state: dict) -> dict:  # type: ignore[type-arg]
    """Every round with each side's default orders, to the end of the game."""
    from pbem.core.dice import SeededDice

    while (demand := usn.pending(state)) is not None:
        orders = {side: usn.default_orders(state, side) for side in demand.sides}
        dice = SeededDice(b"s" * 32, "g1", demand.turn, demand.phase)
        state = dict(usn.adjudicate(state, orders, dice).state)
    return state


def test_vp_levels_table_override_is_kept_and_decides_the_verdict() -> None:
    """A per-game table correction given at CREATE stays in the game's state and is the
    table the rules consult in play: VP.LEVELS read from the game's own table."""
    usn = get("usn")
    levels = {"tables": {"victory_levels": {"3": {"level": "Overwhelming"}}}}
    corrected = usn.initial_state("coral-sea", {"overrides": levels})
    assert corrected["options"]["overrides"] == levels
    plain_end = _play_out(usn, usn.initial_state("coral-sea", {}))  # type: ignore[arg-type]
    corrected_end = _play_out(usn, corrected)  # type: ignore[arg-type]
    plain, verdict = usn.outcome(plain_end), usn.outcome(corrected_end)
    assert plain is not None and verdict is not None
    assert (plain.winner, plain.level) == ("allied", "Decisive")
    assert (verdict.winner, verdict.level) == ("allied", "Overwhelming")
