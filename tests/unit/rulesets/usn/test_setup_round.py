"""The set-up rounds by mail (SETUP.JFIRST, SETUP.AREA, SETUP.FREE, SETUP.AIRANY,
SETUP.CAPACITY, SETUP.TERRAIN): every scenario whose data leaves the players a choice
opens with a Japanese then an Allied set-up round, played on the real map and data."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from pbem.rulesets.usn import opening, world
from pbem.rulesets.usn.geo import HOME_ISLANDS, Geo
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.sequence import current_round, rounds_for
from pbem.rulesets.usn.state import GameState

from .builders import Game

J, A = "japanese", "allied"


@cache
def _geo() -> Geo:
    return world_geo()


@cache
def _start(scenario: str) -> dict[str, Any]:
    return UsnRuleset(load_world(), _geo()).initial_state(scenario, {})


def _game(scenario: str, allied_round: bool = False) -> Game:
    g = Game(GameState.from_json(_start(scenario)), geo=_geo())
    if allied_round:
        g.play({J: ""})
    return g


def _errors(g: Game, side: str, text: str) -> list[tuple[int, str]]:
    return [(e.line, e.rule) for e in g.validate(side, text).errors]


def _nac(g: Game, side: str) -> int:
    return sum(a.nac for a in g.s.air.get(side, {}).values())


def test_setup_jfirst_every_scenario_with_free_choices_opens_with_set_up_rounds() -> None:
    """SETUP.JFIRST: "The Japanese Player always deploys his forces first and moves
    first." Each scenario's data has free choices (at least its free air points), so
    each opens with setup-J, then setup-A (the Allies set up seeing the Japanese, ruling
    H12), then its first turn (CG1's and CG3's pre-game turn comes after the set-up)."""
    for name in load_world().scenarios:
        s = GameState.from_json(_start(name))
        keys = [r.key for r in rounds_for(s)]
        assert keys[:2] == ["setup-J", "setup-A"], name
        assert [r.sides for r in rounds_for(s)[:2]] == [(J,), (A,)]
        assert keys[2] == ("pre-J-2" if name in ("campaign-1", "campaign-3") else "J-2")
        assert s.extra["setup"][J] and s.extra["setup"][A]


def test_setup_free_a_side_that_sends_nothing_keeps_the_default_set_up() -> None:
    """SETUP.FREE: a side that writes no set-up orders keeps the default placement (the
    area's reference hex or the first fitting base; air dealt within capacity)."""
    g = _game("coral-sea")
    before = g.s
    g.play({J: ""})
    assert current_round(g.s).key == "setup-A"
    g.play({A: ""})
    assert current_round(g.s).key == "J-2"
    assert g.s.units == before.units and g.s.air == before.air


def test_setup_area_unit_placed_anywhere_in_its_area() -> None:
    """SETUP.AREA: "The second type gives a general geographic area within which the
    units may be place anywhere, such as Indo-China or Formosa"; SETUP.HEXSPEC: a
    printed pair of hexes is a choice between them."""
    g = _game("campaign-1")
    geo = _geo()
    indo = sorted(h for h in geo.regions["indo-china"] if geo.is_land(h) and h != 179)[0]
    text = f"PLACE DIV-1 {indo:04d}\nPLACE DIV-5 0411"
    assert _errors(g, J, text) == []
    g.play({J: text})
    assert g.unit(J, "DIV-1").hex == indo and g.unit(J, "DIV-5").hex == 411
    assert any(e.kind == "placed" and e.rule == "SETUP.FREE" for e in g.events)


def test_setup_area_outside_the_area_is_refused_naming_line_reason_and_rule() -> None:
    """SETUP.AREA / SETUP.HEXSPEC: a unit placed outside its set-up area is refused;
    a unit with an exact printed hex has no choice to make."""
    g = _game("campaign-1")
    v = g.validate(J, "PLACE DIV-1 0676\nPLACE DIV-5 0381\nPLACE CD-754 0759")
    assert [(e.line, e.rule) for e in v.errors] == [
        (1, "SETUP.AREA"),
        (2, "SETUP.HEXSPEC"),
        (3, "SETUP.HEXSPEC"),
    ]
    assert "0676 is not in indo-china" in v.errors[0].message
    assert "one of 0378 or 0411" in v.errors[1].message


def test_setup_terrain_ships_in_naval_bases_land_units_on_land() -> None:
    """SETUP.TERRAIN: "land units may only be deployed on land hexes, naval units in
    naval bases and air units on air bases"."""
    g = _game("campaign-1")
    geo = _geo()
    home = geo.regions[HOME_ISLANDS]
    no_port = min(h for h in home if geo.is_land(h) and (h not in g.s.bases))
    sea = min(h for h in range(1, 1600) if geo.is_sea(h))
    assert geo.is_sea(sea)
    text = f"PLACE CV-1 {no_port:04d}\nPLACE SNLF-1 {sea:04d}\nPLACE CV-2 0609"
    assert _errors(g, J, text) == [(1, "SETUP.TERRAIN"), (2, "SETUP.TERRAIN")]
    g.play({J: "PLACE CV-2 0609"})
    assert g.unit(J, "CV-2").hex == 609 and g.unit(J, "CV-2").in_base


def test_setup_free_only_on_the_owners_side_of_the_start_line() -> None:
    """SETUP.FREE: "All units, in an O.B., without specific starting positions or
    areas, must be deployed on the appropriate side of the Game-Start Lines wherever
    the Player desires."""
    g = _game("campaign-1")
    geo = _geo()
    usn_map = world.current().map
    assert usn_map is not None
    line = usn_map.start_lines["game1"]  # type: ignore[attr-defined]
    mine = 177  # Haiphong, where the default puts them
    assert mine in line.japanese
    theirs = min(h for h in geo.land_set if h not in line.japanese)
    v = g.validate(J, f"PLACE SNLF-1 {theirs:04d}\nPLACE SNLF-2 {mine:04d}")
    assert [(e.line, e.rule) for e in v.errors] == [(1, "SETUP.FREE")]
    assert "allied side of the start line" in v.errors[0].message


def test_setup_airany_free_air_to_any_fitting_carrier_or_base() -> None:
    """SETUP.AIRANY: "Air units may always be deployed at any air base or carrier
    appropriate to the air unit, except for garrisons." NAC here start on carriers
    (Coral Sea: "any carrier"), LAC on bases; the points not placed go back to their
    default places within capacity, so no point is lost."""
    g = _game("coral-sea")
    total = _nac(g, J)
    text = "PLACE 3 NAC CVL-2\nPLACE 10 LAC 0759\nPLACE 5 LAC 0754"
    assert _errors(g, J, text) == []
    g.play({J: text})
    air = g.s.air[J]
    assert air["CVL-2"].nac == 3 and _nac(g, J) == total == 15
    assert air["0759"].lac == 10 and air["0754"].lac == 5
    assert sum(a.lac for a in air.values()) == 15


def test_setup_airany_refuses_the_wrong_kind_of_place() -> None:
    """SETUP.AIRANY: "appropriate to the air unit": LAC never on a carrier; NAC of an
    "any carrier" allotment not on a base; no enemy base; no more than the free pool."""
    g = _game("coral-sea")
    v = g.validate(J, "PLACE 5 LAC CV-3\nPLACE 4 NAC 0759\nPLACE 5 LAC 0659\nPLACE 16 NAC CV-3")
    assert [(e.line, e.rule) for e in v.errors] == [
        (1, "SETUP.AIRANY"),
        (2, "SETUP.AIRANY"),
        (3, "SETUP.AIRANY"),
        (4, "SETUP.AIRANY"),
    ]
    assert "only NAC fly from carriers" in v.errors[0].message


def test_setup_capacity_placed_air_may_not_exceed_a_base_or_carrier() -> None:
    """SETUP.CAPACITY: "Air-base capacities may never be violated when deploying air
    forces." Lae (0692) holds 5 air points, CV-3 8."""
    g = _game("coral-sea")
    v = g.validate(J, "PLACE 6 LAC 0692\nPLACE 9 NAC CV-3\nPLACE 5 LAC 0692")
    assert [(e.line, e.rule) for e in v.errors] == [(1, "SETUP.CAPACITY"), (2, "SETUP.CAPACITY")]
    assert "capacity 5" in v.errors[0].message


def test_setup_free_allied_round_after_the_japanese() -> None:
    """SETUP.JFIRST: the Allies set up in their own round, after the Japanese; their
    PLACE lines are refused in the Japanese round."""
    g = _game("coral-sea")
    assert _errors(g, A, "PLACE 9 NAC CV-5") == [(1, "SEQ.STRICT")]
    g = _game("coral-sea", allied_round=True)
    assert current_round(g.s).key == "setup-A"
    g.play({A: "PLACE 9 NAC CV-5\nPLACE 10 LAC 0698"})
    assert g.s.air[A]["CV-5"].nac == 9 and g.s.air[A]["0698"].lac == 10
    assert sum(a.nac for a in g.s.air[A].values()) == 14


def test_setup_area_order_form_lists_each_free_choice_and_its_area() -> None:
    """The order form of a set-up round lists each free choice with its area and the
    free air points with their default places."""
    g = _game("campaign-1")
    form = g.rs.order_template(g.state, J)
    assert "DIV-1 DIV-2 DIV-3 DIV-4: anywhere in indo-china (near 0179)" in form
    assert "DIV-5 DIV-6: one of 0378 or 0411" in form
    assert "68 NAC: any carrier or base of yours" in form
    assert "only PLACE" not in form and "PLACE <unit> <hex>" in form
    assert opening.describe_area({"any": "friendly-land"}).endswith("side of the start line")


def test_mini_coral_sub_set_up_anywhere_at_sea_off_station() -> None:
    """MINI.CORAL.SUB: "Sub-1-May deploy anywhere on the map within the Submarine
    rules; the Sub need not be on station." The sub is placed in the Japanese set-up
    round, secretly (GEN.REC.C), at any sea hex; a land hex is refused."""
    s = GameState.from_json(
        UsnRuleset(load_world(), _geo()).initial_state("coral-sea", {"subs": True})
    )
    g = Game(s, geo=_geo())
    assert "SUB-1: any sea hex" in g.rs.order_template(g.state, J)
    assert _errors(g, J, "PLACE SUB-1 0759") == [(1, "SETUP.FREE")]
    g.play({J: "PLACE SUB-1 0800"})
    assert g.s.extra["subs"]["SUB-1"] == {"hex": 800, "station": False, "phases": 0}
    (moved,) = [e for e in g.events if e.kind == "sub-moved"]
    assert moved.witnesses == (J,)


def test_setup_terrain_nothing_sets_up_out_of_supply_or_on_the_enemy() -> None:
    """SETUP.TERRAIN: "no units may be deployed out of supply unless specifically stated
    so"; and no unit sets up in a hex the enemy holds (SETUP.FREE: each side on its own
    side; STK.A: opposing land units never share a Class 1 hex)."""
    g = _game("campaign-1")
    geo = _geo()
    indo = sorted(
        h for h in geo.regions["indo-china"] if geo.terrain.get(h) == "class1" and h != 179
    )
    enemy = replace(g.unit(J, "DIV-2"), side=A, uid="RGT-99", hex=indo[0])
    g.state = replace(g.s, units={**g.s.units, "allied/RGT-99": enemy}).to_json()
    v = g.validate(J, f"PLACE DIV-1 {indo[0]:04d}\nPLACE SNLF-1 0001")
    assert [(e.line, e.rule) for e in v.errors] == [(1, "STK.A"), (2, "SETUP.TERRAIN")]
    assert "may never share the Class 1 hex" in v.errors[0].message
    assert "out of supply" in v.errors[1].message
