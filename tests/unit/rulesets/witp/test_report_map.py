"""A side's report map (report_map.py): drawn from its view alone, so two worlds the
side cannot tell apart give it the same picture, byte for byte."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.mapview import SIDE_COLOURS
from pbem.core.sides import SIDES, enemy_of
from pbem.reports.mapimage import render_map
from pbem.rulesets.witp import hexgrid
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, Fact, disclose
from pbem.rulesets.witp.map import TheatreMap, load_map
from pbem.rulesets.witp.report_map import report_picture
from pbem.rulesets.witp.ruleset import WitpRuleset

from .conftest import SCENARIO
from .journal import Told

HEXES = ("E2418", "E2317", "E2114", "E1613", "E2016", "E1916")


@pytest.fixture(scope="module")
def m() -> TheatreMap:
    return load_map()


def _world(
    state: dict[str, Any], side: str, where: list[str], secret: int, told: bool
) -> dict[str, Any]:
    """``state`` with the other side's task forces moved to ``where`` (and one more
    TF), the moderator's part and a disclosure to the other side alone changed."""
    other = enemy_of(side)
    world = copy.deepcopy(state)
    tfs = world[PRIVATE][other]["tfs"]
    for tf, at in zip(sorted(tfs), where, strict=False):
        tfs[tf]["hex"] = at
    tfs["TF60"] = {**copy.deepcopy(tfs[sorted(tfs)[0]]), "hex": where[0]}
    world[MODERATOR] = {"contacts": secret}  # a count no side is told
    if told:
        sighting = Fact.from_json({"kind": "sighting", "at": where[-1]})
        disclose(Told(world), sighting, [other], "T1/naval1/plot", "13.5")
    return world


@settings(max_examples=12, deadline=None)
@given(
    side=st.sampled_from(SIDES),
    where_a=st.lists(st.sampled_from(HEXES), min_size=1, max_size=4),
    where_b=st.lists(st.sampled_from(HEXES), min_size=1, max_size=4),
    secrets=st.tuples(st.integers(), st.integers()),
    told=st.tuples(st.booleans(), st.booleans()),
)
def test_the_picture_of_two_indistinguishable_worlds_is_byte_identical(
    witp: WitpRuleset,
    m: TheatreMap,
    side: str,
    where_a: list[str],
    where_b: list[str],
    secrets: tuple[int, int],
    told: tuple[bool, bool],
) -> None:
    state = dict(witp.initial_state(SCENARIO, {}))
    a = _world(state, side, where_a, secrets[0], told[0])
    b = _world(state, side, where_b, secrets[1], told[1])
    pa, pb = (report_picture(m, witp.view(w, (), side)) for w in (a, b))
    assert pa == pb
    assert render_map(pa, title="t") == render_map(pb, title="t")


def test_own_task_forces_are_marked_at_their_hexes_and_no_one_elses(
    witp: WitpRuleset, m: TheatreMap
) -> None:
    """Each side's map marks its own TFs at their hexes, in its colour; the
    omniscient picture marks both sides'."""
    state = witp.initial_state(SCENARIO, {})
    for side in SIDES:
        own = {tf["hex"] for tf in state[PRIVATE][side]["tfs"].values()}
        picture = report_picture(m, witp.view(state, (), side))
        assert {k.key for k in picture.markers} == {hexgrid.key(h) for h in own}
        assert {k.colour for k in picture.markers} == {SIDE_COLOURS[side]}
        assert set(picture.focus) == {hexgrid.key(h) for h in own}
    everyone = report_picture(m, witp.view(state, (), None))
    assert len(everyone.markers) == sum(
        len({tf["hex"] for tf in state[PRIVATE][s]["tfs"].values()}) for s in SIDES
    )


def test_the_picture_changes_with_what_the_side_knows(witp: WitpRuleset, m: TheatreMap) -> None:
    """The control: the viewer's own TF moved to another hex moves its mark."""
    state = witp.initial_state(SCENARIO, {})
    moved = copy.deepcopy(dict(state))
    moved[PRIVATE]["japanese"]["tfs"]["TF1"]["hex"] = "E2418"
    before = report_picture(m, witp.view(state, (), "japanese"))
    after = report_picture(m, witp.view(moved, (), "japanese"))
    assert before != after
    assert hexgrid.key("E2418") in {k.key for k in after.markers}
    assert render_map(before, title="t") != render_map(after, title="t")


def test_a_stage_one_hex_wins_over_the_place_name(m: TheatreMap) -> None:
    view = {"forces": [{"side": "allied", "id": "TF17", "at": "Coral Sea", "hex": "E2418"}]}
    (mark,) = report_picture(m, view).markers
    assert mark.key == hexgrid.key("E2418") and mark.label == "TF17"
