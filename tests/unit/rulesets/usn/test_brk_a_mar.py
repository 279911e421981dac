"""BRK.A.MAR / ERR.BRK.MARINE with the counter catalogue's reconstructed Marine
regiments: "One 50-60 Marine division = three 10-15 Marine regiments" (errata of the
main text's "three 15-20 regiments"), at any time in the owner's land movement phase,
and rebuilt "if all the component parts are stacked in the same hex" (BRK.REBUILD)."""

from __future__ import annotations

from typing import Any

from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import GameState
from pbem.rulesets.usn.units import Source, UnitType

from .builders import AUS, Game, land, make_state

A = "allied"
A_3_4 = 1  # the Allied land movement round


def test_brk_a_mar_marine_regiment_counters_are_in_the_catalogue() -> None:
    """ERR.BRK.MARINE: three 10-15 Marine regiments per Marine division; the counters
    are reconstructed (no order of battle prints them), two divisions' worth."""
    cat = load_world().catalogue
    mrgt = [c for c in cat.counters.values() if c.type == UnitType.MRGT]
    assert len(mrgt) == 3 * len([c for c in cat.counters.values() if c.type == UnitType.MAR])
    for c in mrgt:
        assert (c.attack, c.defense, c.side) == (10, 15, A)
        assert c.provenance.src == Source.RECONSTRUCTED and c.provenance.why


def _spares() -> dict[str, Any]:
    """The spare counters of Campaign Game 2's counter mix (MAR-2 and the MRGTs)."""
    rs = UsnRuleset(load_world(), world_geo())
    s = GameState.from_json(rs.initial_state("campaign-2", {}))
    return {A: [d for d in s.extra["spares"][A] if d["utype"] == "MRGT"]}


def test_brk_a_mar_err_brk_marine_division_breaks_down_and_rebuilds() -> None:
    """BRK.A.MAR, ERR.BRK.MARINE: BREAK MAR-1 RGT gives three 10-15 Marine regiments in
    its hex (the parts may move at once, BRK.WHEN); COMBINE puts the division back."""
    h = AUS[0]
    mar = land(A, "MAR-1", h, tp=12, attack=50, defense=60)
    game = Game(make_state([mar], round=A_3_4, extra={"spares": _spares()}))
    game.play({A: f"BREAK MAR-1 RGT\nMOVE MRGT-1 {AUS[1]:04d}"})
    assert game.s.unit(A, "MAR-1") is None
    parts = [game.unit(A, f"MRGT-{i}") for i in (1, 2, 3)]
    assert [(p.attack, p.defense, p.utype) for p in parts] == [(10, 15, "MRGT")] * 3
    assert [p.hex for p in parts] == [AUS[1], h, h]
    assert "MAR-1" in [d["uid"] for d in game.s.extra["spares"][A]]
    # Next turn's land phase: all three in one hex, they combine into the division.
    game.state = {**game.state, "turn": 2, "last_turn": 3}
    game.set_round(A_3_4)
    game.play({A: f"MOVE MRGT-1 {h:04d}"})
    game.set_round(A_3_4)
    game.play({A: "COMBINE MRGT-1 MRGT-2 MRGT-3"})
    div = game.unit(A, "MAR-1")
    assert (div.hex, div.attack, div.defense) == (h, 50, 60)
    assert all(game.s.unit(A, f"MRGT-{i}") is None for i in (1, 2, 3))
