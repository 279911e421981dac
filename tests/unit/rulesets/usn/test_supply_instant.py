"""Supply as the state stands (ZOC.INSTANT, SUP.E), played through the rounds.

Zones of Control: "The effect of Zone of Control on supply is instantaneous."
Supply (E): "Units regain their abilities immediately upon being placed in supply
again." A Japanese regiment holds the stub map's two-hex island; an Allied carrier
with aircraft next to both hexes (``NEXT``) puts the island and every hex around it
in its undisputed zone, so no line reaches the regiment (SUP.D.ZOC).
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

from pbem.rulesets.usn.geo import Geo
from pbem.rulesets.usn.hexgrid import distance
from pbem.rulesets.usn.land_combat import defense_strength
from pbem.rulesets.usn.naval_combat import as_number
from pbem.rulesets.usn.state import Air, Unit

from .builders import HOME, ISLAND, Game, H, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
HELD, OTHER = ISLAND
NEXT = H(7, 10)  # a sea hex next to both island hexes
BESIDE = H(5, 10)  # another one
A_6, J_7_8 = 3, 4  # the rounds of steps 6 and 7-8 (sequence.ROUNDS)
CARRIER_AIR = Air(nac=3)


def sea_path(geo: Geo, start: int, goal: int) -> list[int]:
    """The hexes of a shortest all-sea path from ``start`` to ``goal`` (start excluded)."""
    came: dict[int, int] = {start: start}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        if h == goal:
            break
        for n in sorted(geo.naval_nbrs[h]):
            if n not in came and not geo.is_land(n):
                came[n] = h
                todo.append(n)
    out = [goal]
    while came[out[-1]] != start:
        out.append(came[out[-1]])
    return out[::-1]


def five_out(geo: Geo, goal: int) -> tuple[int, str]:
    """A sea hex five sea hexes from ``goal``, and the path from it to ``goal``."""
    far = [h for h in geo.naval_nbrs if not geo.is_land(h) and distance(h, HELD) >= 6]
    start = min(far, key=lambda h: (abs(len(sea_path(geo, h, goal)) - 5), h))
    hexes = sea_path(geo, start, goal)
    assert len(hexes) == 5
    return start, " ".join(f"{h:04d}" for h in hexes)


def game(*units: Unit, air: dict[str, dict[str, Air]], round: int) -> Game:
    return Game(make_state(list(units), air=air, round=round, last_turn=3), stub_geo())


def test_zoc_instant_ent_proc_mov_g_cut_off_in_step_6_may_not_entrench_or_move_in_step_7() -> None:
    """ZOC.INSTANT, ENT.PROC, MOV.G: cut off in Allied step 6, the regiment may neither
    entrench nor move in Japanese step 7, and the refusal names its own supply (MOV.G),
    not its destination's (MOV.F)."""
    start, path = five_out(stub_geo(), NEXT)
    g = game(
        land(J, "RGT-1", HELD), ship(A, "CV-5", start), air={A: {"CV-5": CARRIER_AIR}}, round=A_6
    )
    assert not g.validate(J, "").errors and g.unit(J, "RGT-1").supplied
    g.play({A: f"MOVE CV-5 {path}"})
    assert g.unit(A, "CV-5").hex == NEXT
    assert not g.unit(J, "RGT-1").supplied
    (e,) = g.validate(J, "ENTRENCH RGT-1").errors
    assert e.rule == "ENT.PROC"
    (e,) = g.validate(J, f"MOVE RGT-1 {OTHER:04d}").errors
    assert e.rule == "MOV.G" and "RGT-1 is out of supply" in e.message


def test_zoc_instant_sup_e_cut_off_in_step_6_may_not_attack_in_step_9_and_defends_halved() -> None:
    """ZOC.INSTANT, SUP.E: "unsupplied land units ... may not move or attack and have
    their Defense Strength halved" from the moment the zone closes, not from step 10."""
    start, path = five_out(stub_geo(), NEXT)
    g = game(
        land(J, "RGT-1", HELD),
        land(A, "RGT-9", HELD),
        ship(A, "CV-5", start),
        air={A: {"CV-5": CARRIER_AIR}},
        round=A_6,
    )
    full = defense_strength(g.s, g.unit(J, "RGT-1"))
    g.play({A: f"MOVE CV-5 {path}"})
    g.play({})  # J-7-8: nothing moves
    (e,) = g.validate(J, f"ATTACK {HELD:04d} RGT-1").errors
    assert e.rule == "SUP.E"
    assert defense_strength(g.s, g.unit(J, "RGT-1")) == full / 2 == Fraction(15, 2)


def test_zoc_instant_sup_e_bombardment_in_the_step_the_zone_closes_meets_half_defence() -> None:
    """ZOC.INSTANT, SUP.E, SEQ.2F: the carrier's zone closes in movement (SEQ.2C) and
    the cruiser bombarding the regiment in the same phase meets its halved Defense."""
    start, path = five_out(stub_geo(), NEXT)
    g = game(
        land(J, "RGT-1", HELD),
        ship(A, "CV-5", start),
        ship(A, "CA-1", BESIDE),
        air={A: {"CV-5": CARRIER_AIR}},
        round=A_6,
    )
    orders = f"MOVE CV-5 {path}\nMOVE CA-1 {HELD:04d}\nBOMBARD {HELD:04d} LAND CA-1"
    g.play({A: orders}, dice=[1] * 10)
    (ev,) = [e for e in g.events if e.kind == "bombardment"]
    assert ev.data["target"] == "RGT-1" and ev.data["defense"] == as_number(Fraction(15, 2))


def test_sup_e_mov_g_regained_supply_moves_in_step_7_after_the_carrier_left_in_step_6() -> None:
    """SUP.E: "Units regain their abilities immediately upon being placed in supply
    again": the carrier that cut the regiment off sails away in step 6, and in step 7
    the regiment moves (MOV.G no longer applies)."""
    start, path = five_out(stub_geo(), NEXT)
    back = " ".join([*path.split()[-2::-1], f"{start:04d}"])
    g = game(
        land(J, "RGT-1", HELD, supplied=False),
        ship(A, "CV-5", NEXT),
        air={A: {"CV-5": CARRIER_AIR}},
        round=A_6,
    )
    g.play({A: f"MOVE CV-5 {back}"})
    assert g.unit(A, "CV-5").hex == start and g.unit(J, "RGT-1").supplied
    g.play({J: f"MOVE RGT-1 {OTHER:04d}"})
    assert g.unit(J, "RGT-1").hex == OTHER


def test_zoc_cancel_zoc_instant_a_carrier_disputing_the_zone_in_step_8_lets_step_9_attack() -> None:
    """ZOC.CANCEL, ZOC.INSTANT: in step 7 the cut-off regiment may not move (MOV.G);
    a Japanese carrier with aircraft next to the island in step 8 disputes the Allied
    zone, and in step 9 the regiment attacks (SUP.E)."""
    geo = stub_geo()
    start, path = five_out(geo, BESIDE)
    g = game(
        land(J, "RGT-1", HELD, supplied=False),
        land(A, "RGT-9", HELD),
        ship(A, "CV-5", NEXT),
        ship(J, "CV-3", start),
        air={A: {"CV-5": CARRIER_AIR}, J: {"CV-3": CARRIER_AIR}},
        round=J_7_8,
    )
    (e,) = g.validate(J, f"MOVE RGT-1 {OTHER:04d}\nMOVE CV-3 {path}").errors
    assert e.rule == "MOV.G"
    g.play({J: f"MOVE CV-3 {path}"})
    assert g.unit(J, "RGT-1").supplied
    assert not g.validate(J, f"ATTACK {HELD:04d} RGT-1").errors


def test_zoc_instant_work_traces_again_only_when_the_blocks_change() -> None:
    """ZOC.INSTANT without waste: the working state keeps a side's trace while nothing
    that blocks its lines (SUP.D) has moved, and traces again once something has."""
    from pbem.rulesets.usn.work import Work

    w = Work.start(stub_geo(), make_state([land(J, "RGT-1", HOME[0])]))
    first = w.supply(J)
    assert w.supply(J) is first
    w.put(ship(A, "DD-1", NEXT))
    assert w.supply(J) is not first
