"""A side's report map (report_map.py): drawn from its view alone, so two worlds the
side cannot tell apart give it the same picture, byte for byte."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.reports.mapimage import render_map
from pbem.rulesets.witp import hexgrid
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, disclose
from pbem.rulesets.witp.map import TheatreMap, load_map
from pbem.rulesets.witp.picture import SIDE_COLOURS
from pbem.rulesets.witp.report_map import report_picture
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.sides import SIDES, enemy_of

from .conftest import SCENARIO

PLACES = ("Rabaul", "Truk", "Tulagi", "Port Moresby", "Noumea", "Coral Sea", "E2418", "nowhere")


@pytest.fixture(scope="module")
def m() -> TheatreMap:
    return load_map()


def _world(
    state: dict[str, Any], side: str, where: list[str], secret: int, told: bool
) -> dict[str, Any]:
    """``state`` with the other side's forces moved to ``where`` (and one more force),
    the moderator's part and a disclosure to the other side alone changed."""
    other = enemy_of(side)
    world = copy.deepcopy(state)
    forces = world[PRIVATE][other]["forces"]
    for fid, at in zip(sorted(forces), where, strict=False):
        forces[fid]["value"]["at"] = at
    forces["extra"] = {**forces[sorted(forces)[0]], "value": {"name": "X", "at": where[0]}}
    world[MODERATOR] = {"ledger": secret}
    if told:
        disclose(world, {"kind": "sighting", "at": where[-1]}, [other], "T1/naval1/plot", "13.5")
    return world


@settings(max_examples=12, deadline=None)
@given(
    side=st.sampled_from(SIDES),
    where_a=st.lists(st.sampled_from(PLACES), min_size=1, max_size=4),
    where_b=st.lists(st.sampled_from(PLACES), min_size=1, max_size=4),
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


def test_own_forces_are_marked_where_the_view_puts_them_and_no_one_elses(
    witp: WitpRuleset, m: TheatreMap
) -> None:
    """Japanese: two forces at Rabaul (one stack), the Striking Force at Truk; the
    Allied forces, "at" the Coral Sea (no hex), are not marked for anyone."""
    state = witp.initial_state(SCENARIO, {})
    japanese = report_picture(m, witp.view(state, (), "japanese"))
    rabaul, truk = hexgrid.key(m.place("Rabaul")), hexgrid.key(m.place("Truk"))
    marks = {(k.key, k.count) for k in japanese.markers}
    assert marks == {(rabaul, 2), (truk, 1)}
    assert {k.colour for k in japanese.markers} == {SIDE_COLOURS["japanese"]}
    assert set(japanese.focus) == {rabaul, truk}
    allied = report_picture(m, witp.view(state, (), "allied"))
    assert allied.markers == () and allied.focus == ()
    everyone = report_picture(m, witp.view(state, (), None))
    assert everyone.markers == japanese.markers


def test_the_picture_changes_with_what_the_side_knows(witp: WitpRuleset, m: TheatreMap) -> None:
    """The control: the viewer's own force moved from Rabaul to Tulagi moves its mark."""
    state = witp.initial_state(SCENARIO, {})
    moved = copy.deepcopy(dict(state))
    moved[PRIVATE]["japanese"]["forces"]["mo-main-force"]["value"]["at"] = "Tulagi"
    before = report_picture(m, witp.view(state, (), "japanese"))
    after = report_picture(m, witp.view(moved, (), "japanese"))
    assert before != after
    assert hexgrid.key(m.place("Tulagi")) in {k.key for k in after.markers}
    assert render_map(before, title="t") != render_map(after, title="t")


def test_a_stage_one_hex_wins_over_the_place_name(m: TheatreMap) -> None:
    view = {"forces": [{"side": "allied", "id": "TF17", "at": "Coral Sea", "hex": "E2418"}]}
    (mark,) = report_picture(m, view).markers
    assert mark.key == hexgrid.key("E2418") and mark.label == "TF17"
