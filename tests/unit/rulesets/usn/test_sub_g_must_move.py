"""SUB.G on the stub map: "If a Sub is On Station, and an Air or Naval base is built
that would prohibit the sub from being on station in that hex, it must move on its
next movement phase (involuntary abandonment of station).\""""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.state import Air, GameState

from .builders import Game, H, base, make_state

J, A = "japanese", "allied"
X = H(20, 10)  # open sea all round
RING = sorted(int(n) for n in hexgrid.neighbours(X))
AIRBASE = RING[1]  # an Allied air base with aircraft, built next to the station


def _game(subs: dict[str, dict[str, Any]]) -> Game:
    s = make_state(
        [],
        bases=[base(AIRBASE, A, air=5, naval=False)],
        air={A: {f"{AIRBASE:04d}": Air(lbac=2)}},
        options={"subs": True},
    )
    s = replace(s, extra={**s.extra, "subs": subs, "sub_log": []})
    return Game(s)


def _subs(s: GameState) -> dict[str, Any]:
    return dict(s.extra["subs"])


def test_sub_g_must_move_the_engine_moves_a_sub_left_standing() -> None:
    """SUB.G: the station is lost at the start of the next Japanese movement phase and
    the sub "must move" in it: given no SUB order, it is moved one hex (to the lowest
    sea neighbour), with an event for the Japanese only."""
    game = _game({"SUB-1": {"hex": X, "station": True, "phases": 3}})
    game.play({J: ""})  # J-2
    sub = _subs(game.s)["SUB-1"]
    assert sub["hex"] == min(RING) and sub["station"] is False and "must_move" not in sub
    forced = [e for e in game.events if e.kind == "sub-moved"]
    assert forced and forced[0].rule == "SUB.G" and forced[0].witnesses == (J,)


def test_sub_g_must_move_own_move_kept() -> None:
    """SUB.G: a sub the Japanese move themselves goes where they say; no extra move."""
    game = _game({"SUB-1": {"hex": X, "station": True, "phases": 3}})
    to = RING[-1]
    game.play({J: f"SUB SUB-1 {to:04d}"})
    assert _subs(game.s)["SUB-1"]["hex"] == to
    assert [e.rule for e in game.events if e.kind == "sub-moved"] == ["SUB.PROC"]


def test_sub_g_must_move_not_for_a_sub_whose_station_stays_legal() -> None:
    """SUB.G: only the abandonment forces a move; a sub on a legal station stays."""
    far = H(30, 16)
    game = _game({"SUB-1": {"hex": far, "station": True, "phases": 3}})
    game.play({J: ""})
    assert _subs(game.s)["SUB-1"]["hex"] == far and _subs(game.s)["SUB-1"]["station"]
