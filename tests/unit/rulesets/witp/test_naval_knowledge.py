"""Noninterference for the naval rules (16.1.2, 16.1.6): two worlds that differ only
in the other side's TF Display, its mission cards and its moves give this side the
same demand, view, order form, order answers, events and new knowledge."""

from __future__ import annotations

import copy
import json
from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.dice import SeededDice
from pbem.core.sides import SIDES, enemy_of
from pbem.rulesets.witp import searchplay
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import indistinguishable
from pbem.rulesets.witp.taskforces import TaskForce

from .naval import at_plot, blind, tfs

SEA = ["E2324", "E2320", "E2118", "E2016", "E1613", "E2525", "E2127", "E1018", "E2115", "E2222"]
MARKERS = [f"TF{n}" for n in range(1, 13)]
OWN_LINES = st.sampled_from(
    [
        "",
        "PASS",
        "TF3 MOVE E2320 EV 2\nTF3 NIGHT AFTER 1",
        "TF4 MOVE Port_Moresby EV 0\nTF4 PORT",
        "TF2 MOVE E2115 EV 0",
        "TF3 REGP DUMMY TF9\nTF1 FUEL FROM TF1",
        "TF5 MOVE E2222 EV 4\nTF9 REGP DUMMY TF3",
        "TF1 LINK TF2\nTF2 MOVE E2222 EV 0",
    ]
)
ENEMY_LINE = st.builds(
    lambda tf, word, h, ev: f"{tf} {word} {h}" + (f" EV {ev}" if word == "MOVE" else ""),
    st.sampled_from(MARKERS),
    st.sampled_from(["MOVE", "TRAN", "REGP DUMMY", "LINK", "FUEL FROM"]),
    st.sampled_from(SEA + MARKERS),
    st.integers(0, 6),
)
ENEMY_TF = st.fixed_dictionaries(
    {
        "hex": st.sampled_from(SEA),
        "dummy": st.booleans(),
        "fuel": st.none() | st.integers(0, 5),
        "speed_class": st.sampled_from(["", "SC1", "SC2", "SC3"]),
        "keep": st.integers(0, 4),
    }
)


def _world(state: dict[str, Any], side: str, display: dict[str, Any]) -> dict[str, Any]:
    """``state`` with the other side's TF Display replaced: TFs moved, thinned,
    made dummies, refuelled, or new ones added."""
    other = enemy_of(side)
    world = copy.deepcopy(state)
    own_tfs = tfs(world, other)
    ships = sorted(world["private"][other]["ships"])
    for tf, spec in display.items():
        entry = own_tfs.get(tf) or TaskForce(HexId(spec["hex"])).to_json()
        entry.update({k: v for k, v in spec.items() if k != "keep"})
        entry["ships"] = [] if spec["dummy"] else (entry["ships"] or ships)[: spec["keep"] + 1]
        own_tfs[tf] = entry
    return world


@settings(max_examples=40)
@given(
    side=st.sampled_from(SIDES),
    display_a=st.dictionaries(st.sampled_from(MARKERS), ENEMY_TF, max_size=4),
    display_b=st.dictionaries(st.sampled_from(MARKERS), ENEMY_TF, max_size=4),
    enemy_a=st.lists(ENEMY_LINE, max_size=5),
    enemy_b=st.lists(ENEMY_LINE, max_size=5),
    mine=OWN_LINES,
)
def test_16_1_6_noninterference_of_naval_movement(
    witp, side, display_a, display_b, enemy_a, enemy_b, mine
) -> None:  # type: ignore[no-untyped-def]
    # Neither side searches (13.3) nor watches (13.8): what search discloses is the
    # search tests' (test_search_play.py); here a move alone must tell nothing.
    start = blind(at_plot(witp))
    a, b = _world(start, side, display_a), _world(start, side, display_b)
    assert indistinguishable(a, b, side)
    assert witp.pending(a) == witp.pending(b)
    assert witp.order_template(a, side) == witp.order_template(b, side)
    assert witp.validate(a, side, mine) == witp.validate(b, side, mine)
    assert json.dumps(witp.view(a, (), side)) == json.dumps(witp.view(b, (), side))
    d = witp.pending(a)
    assert d is not None
    other = enemy_of(side)
    results = []
    # ... nor is any TF found entering an enemy port or airbase (13.8 first paragraph).
    no_contact = patch.object(searchplay, "_enemy_installation", lambda *_: False)
    for world, enemy in ((a, enemy_a), (b, enemy_b)):
        orders = {
            side: list(witp.validate(world, side, mine).accepted),
            other: list(witp.validate(world, other, "\n".join(enemy)).accepted),
        }
        with no_contact:
            dice = SeededDice(b"x", "g", d.turn, d.phase)
            results.append(witp.adjudicate(world, orders, dice))
    ra, rb = results
    assert indistinguishable(ra.state, rb.state, side)
    assert [e.to_json() for e in ra.events if e.seen_by(side)] == [
        e.to_json() for e in rb.events if e.seen_by(side)
    ]
    assert json.dumps(witp.view(ra.state, ra.events, side)) == json.dumps(
        witp.view(rb.state, rb.events, side)
    )
    assert witp.order_template(ra.state, side) == witp.order_template(rb.state, side)
