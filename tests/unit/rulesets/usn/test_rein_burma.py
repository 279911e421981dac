"""The Burma arrivals of the Reinforcement Chart on the real map and data: the
optional Allied rows (REIN.BURMA, OPT.BURMA.ENTER) and the Japanese divisions of the
Campaign Game 2 special rule, used again by Campaign Game 3 (CG2.BURMA, CG3.RULES)."""

from __future__ import annotations

import pytest

from pbem.rulesets.usn.geo import BURMA, CHINA
from pbem.rulesets.usn.hexgrid import neighbours
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.scenario import AREA
from pbem.rulesets.usn.state import GameState, Pending

from .builders import Game, land, make_state

J, A = "japanese", "allied"
BURMA_ENTRY = "burma;adjacent:china;free:japanese"


@pytest.fixture(scope="module")
def rs() -> UsnRuleset:
    return UsnRuleset(load_world(), world_geo())


def _pending(rs: UsnRuleset, scenario: str, options: dict[str, bool]) -> dict[str, Pending]:
    s = GameState.from_json(rs.initial_state(scenario, options))
    return {p.unit.uid: p for p in s.pending if p.unit is not None and p.side == A} | {
        f"J:{p.unit.uid}": p for p in s.pending if p.unit is not None and p.side == J
    }


@pytest.mark.parametrize("scenario", ["campaign-1", "campaign-3"])
def test_rein_burma_allied_arrivals_enter_in_burma(rs: UsnRuleset, scenario: str) -> None:
    """REIN.BURMA: "30-40 Army - Any hex in Burma, adjacent to China, and unoccupied by
    the Japanese" (Game-Turn 8; 10, 17, 19 likewise): the rows carry their entry area,
    not the U.S. West Coast default; without the option they are not on the chart."""
    pending = _pending(rs, scenario, {"burma": True})
    for uid, turn in (("ARMY-1", 8), ("ARMY-2", 10), ("RGT-22", 10), ("RGT-23", 17)):
        assert pending[uid].place == AREA + BURMA_ENTRY and pending[uid].turn == turn
    assert "ARMY-1" not in _pending(rs, scenario, {})


def test_rein_burma_arrival_placed_in_burma_next_to_china() -> None:
    """REIN.BURMA: the arrival enters at step 1 on a Burma hex next to China free of
    Japanese units (never the West Coast); in his first round the Allied player may
    PLACE it on another such hex, not on one the Japanese hold (REIN.ENTRYHEX)."""
    geo = world_geo()
    entry = [h for h in sorted(geo.regions[BURMA]) if set(neighbours(h)) & geo.regions[CHINA]]
    assert len(entry) >= 2
    held, free = entry[0], entry[1:]
    army = land(A, "ARMY-1", None)
    s = make_state(
        [land(J, "DIV-1", held)],
        pending=[Pending(1, A, army, place=AREA + BURMA_ENTRY)],
        last_turn=3,
        options={"burma": True},
    )
    game = Game(s, geo)
    game.play({J: ""})  # J-2: step 1 brings the arrivals in
    u = game.unit(A, "ARMY-1")
    assert u.box is None and u.hex in free
    assert game.validate(A, f"PLACE ARMY-1 {held:04d}").errors[0].rule == "REIN.ENTRYHEX"
    if len(free) > 1:
        other = next(h for h in free if h != u.hex)
        game.play({A: f"PLACE ARMY-1 {other:04d}"})
        assert game.unit(A, "ARMY-1").hex == other


@pytest.mark.parametrize("scenario", ["campaign-2", "campaign-3"])
def test_cg2_burma_japanese_divisions_arrive_with_default_options(
    rs: UsnRuleset, scenario: str
) -> None:
    """CG2.BURMA / CG3.RULES: "The Japanese Player receives two 20-40 infantry Divisions
    on any hex adjacent to Burma on Game-Turn 26" - a special rule of the game, so the
    row marked requires = "burma_reinforcement" is in force without any option."""
    pending = _pending(rs, scenario, {})
    first = load_world().scenario(scenario).first_turn
    for uid in ("DIV-17", "DIV-18"):
        p = pending[f"J:{uid}"]
        assert p.turn + first - 1 == 26 and p.place == AREA + "adjacent:burma"
    assert "J:DIV-17" not in _pending(rs, "campaign-1", {})  # not a Game 1 rule


def test_cg2_burma_divisions_enter_next_to_burma() -> None:
    """CG2.BURMA: the divisions enter on a land hex adjacent to Burma (outside it, and
    never in China or India, MOV.M)."""
    geo = world_geo()
    s = make_state(
        [],
        pending=[Pending(1, J, land(J, "DIV-17", None), place=AREA + "adjacent:burma")],
        last_turn=3,
    )
    game = Game(s, geo)
    game.play({J: ""})
    h = game.unit(J, "DIV-17").hex
    assert h is not None and geo.is_land(h) and h not in geo.regions[BURMA]
    assert set(neighbours(h)) & geo.regions[BURMA]
    assert h not in geo.regions[CHINA] and h not in geo.regions.get("india", frozenset())
