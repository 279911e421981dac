"""Answers that reveal nothing (issue 13): validation reads the side's knowledge.

Each probe is validated twice, once in a world with a hidden enemy and once in
the same world without it: the answers must be equal (an answer that differed
would tell the player what his report hides). Where the hidden fact matters,
the order is accepted as plotted and the side learns the outcome at
adjudication, in an event addressed to it alone. Open-mode controls show the
checks still refuse what the open map shows.
"""

from __future__ import annotations

from typing import Any

from pbem.rulesets.usn import fog
from pbem.rulesets.usn.state import Air, GameState, Unit
from tests.unit.rulesets.usn.builders import Game, H, base, land, make_state, ship

J, A = "japanese", "allied"
BLIND = {"fog": "double-blind"}
AIR5 = 2  # round air-5 (sequence.ROUNDS)
START = H(20, 5)
FAR = H(20, 7)  # two hexes from START: out of Japanese sight in double-blind


def answers(make: Any, side: str, text: str) -> list[Any]:
    """The validation of ``text`` in the world with and without the hidden part."""
    return [Game(make(hidden)).validate(side, text) for hidden in (True, False)]


def _move_world(options: dict[str, str], enemy_at: int) -> Any:
    def make(hidden: bool) -> GameState:
        units = [ship(J, "DD-1", START, ma=5)]
        if hidden:
            units.append(ship(A, "CA-9", enemy_at))
        return make_state(units, options=dict(options))

    return make


def test_nm_surf_1_move_into_unseen_enemy_ships_accepted_and_told_at_adjudication() -> None:
    make = _move_world(BLIND, FAR)
    path = f"MOVE DD-1 {H(20, 6):04d} {FAR:04d} {H(20, 8):04d}"
    with_enemy, without = answers(make, J, path)
    assert with_enemy == without and not with_enemy.errors
    g = Game(make(True))
    g.play({J: path})
    (told,) = [e for e in g.events if e.kind == "move-stopped"]
    assert told.witnesses == (J,) and told.rule == "NM.SURF.1"  # the mover only
    assert told.data["message"] == f"DD-1 stopped at {FAR:04d}: met enemy ships at sea in {FAR:04d}"
    assert not [e for e in g.events if e.kind == "order-failed"]
    moved = [e for e in g.events if e.kind == "moved" and e.data["unit"] == "DD-1"]
    assert moved[0].data["path"] == [f"{H(20, 6):04d}", f"{FAR:04d}"]  # ends on meeting them
    g = Game(make(False))
    g.play({J: path})
    assert g.unit(J, "DD-1").hex == H(20, 8)  # no enemy: as plotted


def test_nm_surf_1_open_map_still_refuses_a_move_through_enemy_ships() -> None:
    make = _move_world({}, FAR)
    path = f"MOVE DD-1 {H(20, 6):04d} {FAR:04d} {H(20, 8):04d}"
    with_enemy, without = answers(make, J, path)
    assert not without.errors
    (e,) = with_enemy.errors
    assert e.rule == "NM.SURF.1"


def test_mov_n_double_speed_near_an_unseen_enemy_is_not_refused() -> None:
    """MOV.N: the refusal names a hex "too near the enemy"; out of sight it may not."""
    path = " ".join(f"{H(20, r):04d}" for r in range(6, 14))  # 8 hexes: double speed
    make = _move_world(BLIND, H(24, 16))  # 3 hexes from the path's end, far from DD-1
    with_enemy, without = answers(make, J, f"MOVE DD-1 {path}")
    assert with_enemy == without and not with_enemy.errors
    (e,) = answers(_move_world({}, H(24, 16)), J, f"MOVE DD-1 {path}")[0].errors
    assert e.rule == "MOV.N" and "too near the enemy" in e.message  # open: on the map
    g = Game(make(True))
    g.play({J: f"MOVE DD-1 {path}"})
    (told,) = [e for e in g.events if e.kind == "move-stopped"]
    assert told.witnesses == (J,) and told.rule == "MOV.N"
    assert g.unit(J, "DD-1").hex == H(20, 10)  # its normal allowance (MA 5), no further
    g = Game(make(False))
    g.play({J: f"MOVE DD-1 {path}"})
    assert g.unit(J, "DD-1").hex == H(20, 13)  # no enemy near: double speed


def test_nm_surf_5_fire_at_an_unseen_ship_same_answer_as_at_no_ship() -> None:
    make = _move_world(BLIND, FAR)
    text = f"MOVE DD-1 {H(20, 6):04d}\nFIRE DD-1 AT CA-9"
    with_enemy, without = answers(make, J, text)
    assert with_enemy == without
    assert not with_enemy.errors  # counts only if the ship is engaged (NM.SURF.5)
    (e,) = answers(_move_world({}, FAR), J, "FIRE DD-1 AT CA-9")[1].errors
    assert e.rule == "NM.SURF.5"  # open map: no such ship


def _strike_world(options: dict[str, str], ships: list[Unit]) -> Any:
    isl = H(8, 8)

    def make(hidden: bool) -> GameState:
        return make_state(
            ships if hidden else [],
            air={A: {f"{isl:04d}": Air(lac=10)}},
            bases=[base(isl, A, air=30)],
            round=AIR5,
            options=dict(options),
        )

    return make


def test_amac_b_ship_group_probe_at_an_unseen_hex_reveals_no_count() -> None:
    """AMAC.B: "<hex> has 1 enemy ship group(s); group 9 does not exist" told the
    prober what was there; out of sight the strike is plotted and finds out."""
    sea = H(8, 12)  # four hexes from the base: outside its air zone of control
    make = _strike_world(BLIND, [ship(J, "CA-1", sea), ship(J, "CA-2", sea)])
    text = f"STRIKE 5 LAC {H(8, 8):04d} {sea:04d} SHIPS 9"
    with_enemy, without = answers(make, A, text)
    assert with_enemy == without and not with_enemy.errors
    g = Game(make(False))
    g.play({A: text}, dice=[6] * 20)
    (e,) = [e for e in g.events if e.kind == "strike-found-nothing"]
    assert e.witnesses == (A,) and e.rule == "SEQ.5H"
    assert e.data["message"] == f"your strike found no ship group 9 at {sea:04d}"
    assert not [x for x in g.events if x.kind == "air-strike"]  # nothing was attacked


def test_cbt_b_airbase_strike_at_an_unseen_base_does_not_reveal_its_capacity() -> None:
    """CBT.B: an enemy air base with capacity 0 is no air base; the capacity of a
    base out of sight is hidden (fog.apply), so the answer may not depend on it."""
    far = H(8, 12)  # in strike range, out of the base's air zone of control

    def make(hidden: bool) -> GameState:
        b = base(far, J, air=0 if hidden else 4)
        b = type(b)(hex=far, owner=J, air=True, naval=False, air_capacity=b.air_capacity)
        return make_state(
            [],
            air={A: {f"{H(8, 8):04d}": Air(lac=10)}},
            bases=[base(H(8, 8), A, air=30), b],
            round=AIR5,
            options=BLIND,
        )

    text = f"STRIKE 5 LAC {H(8, 8):04d} {far:04d} AIRBASE"
    with_zero, with_four = answers(make, A, text)
    assert with_zero == with_four and not with_zero.errors


def test_nm_trans_hidden_cargo_and_carrier_air_are_not_in_the_knowledge() -> None:
    """NM.TRANS.HIDDEN, NM.TRANS.AIR, ruling A13, GEN.SPIRIT: what validation reads."""
    tr = ship(J, "TR-1", H(20, 6))
    cv = ship(J, "CV-1", H(20, 6))
    cargo = land(J, "SNLF-5", None, carried_by="TR-1")
    s = make_state(
        [ship(A, "CA-1", START), tr, cv, cargo],
        air={J: {"TR-1": Air(lac=2), "CV-1": Air(nac=7)}},
        standing={J: ("STANDING SURFACE STAY",)},
        options={},
    )
    k = fog.knowledge(s, A)
    assert k.unit(J, "SNLF-5") is None and k.unit(J, "TR-1") is not None
    assert "TR-1" not in k.air[J]
    assert k.air[J]["CV-1"] == Air(nac=1)  # has aircraft (ZOC.DEF), not how many
    assert k.standing == {}
    assert fog.knowledge(s, J).units == s.units  # one's own side: all of it


def test_gen_rec_c_the_allies_know_nothing_of_the_submarines() -> None:
    s = make_state([], extra={"subs": {"SUB-1": {"hex": 1234}}, "sub_log": [{"turn": 1}]})
    assert "subs" not in fog.knowledge(s, A).extra
    assert fog.knowledge(s, J).extra["subs"] == {"SUB-1": {"hex": 1234}}


def test_order_template_is_drawn_from_the_side_knowledge() -> None:
    """The order form is computed from the knowledge too (identical either way)."""
    make = _move_world(BLIND, FAR)
    forms = [Game(make(h)).rs.order_template(make(h).to_json(), J) for h in (True, False)]
    assert forms[0] == forms[1]


def test_amac_b_ships_a_strike_found_out_of_sight_are_then_known() -> None:
    """A strike at an unseen hex names the ships it hit: the striker's report then
    shows them among the enemy it knows, and its sightings log keeps them."""
    sea = H(8, 12)
    make = _strike_world(BLIND, [ship(J, "CA-1", sea), ship(J, "CA-2", sea, stack=1)])
    g = Game(make(True))
    assert sea not in fog.detection_hexes(g.s, A)  # out of sight before the strike
    g.play({A: f"STRIKE 5 LAC {H(8, 8):04d} {sea:04d} SHIPS 1"}, dice=[1] * 40)
    (strike,) = [e for e in g.events if e.kind == "air-strike"]
    assert strike.data["ships"] == ["CA-1", "CA-2"]
    view = g.rs.view(g.state, g.events, A)
    shown = {u["id"] for u in view["enemy_units"]}
    assert {"CA-1", "CA-2"} <= shown
    assert {"CA-1", "CA-2"} <= set(g.s.extra["fog"]["sightings"][A])
    assert not {u["id"] for u in g.rs.view(g.state, [], A)["enemy_units"]} & {"CA-1"}
