"""Campaign Game 1 special rules and the Burma option's retreat, on the stub map:
CG1.PHILFORT.MANILA (Manila's naval base barred to the Japanese while the
fortifications hold) and OPT.BURMA.RETREAT (Allied retreat into China or India)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pbem.core.dice import ScriptedDice
from pbem.rulesets.usn import land_combat as lc
from pbem.rulesets.usn import movement, scenario_rules, victory
from pbem.rulesets.usn.movement import Refused, Work
from pbem.rulesets.usn.supply import SupplyMap, can_refuel_in_base
from pbem.rulesets.usn.tables import LandResult

from .builders import CHINA_HEX, HOME, ISLAND, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
FORT, MANILA = ISLAND  # stand-ins for hexes 348 and 381
SPECIAL = {
    "philippine_fortifications": {
        "rule": "CG1.PHILFORT",
        "hex": FORT,
        "japanese_naval_base_barred": MANILA,
    }
}


def manila_state(*units: Any, **extra: Any) -> Any:
    return make_state(
        [ship(J, "DD-1", MANILA, in_base=True), ship(A, "DD-5", MANILA, in_base=True), *units],
        bases=[base(MANILA, J)],
        extra={"special": SPECIAL, **extra},
    )


# --- CG1.PHILFORT.MANILA ----------------------------------------------------------------


def test_cg1_philfort_manila_barred_while_allies_hold_the_fortifications() -> None:
    s = manila_state(land(A, "RGT-1", FORT), land(J, "DIV-1", FORT))
    assert scenario_rules.naval_base_barred(s, J, MANILA)
    assert not can_refuel_in_base(s, s.units["japanese/DD-1"])
    assert not scenario_rules.naval_base_barred(s, A, MANILA)  # a bar on the Japanese only
    assert not scenario_rules.naval_base_barred(s, J, HOME[0])


def test_cg1_philfort_manila_barred_until_the_japanese_occupy_the_hex() -> None:
    empty = manila_state()  # nobody on 348: not yet occupied
    assert scenario_rules.naval_base_barred(empty, J, MANILA)
    taken = manila_state(land(J, "DIV-1", FORT))
    assert not scenario_rules.naval_base_barred(taken, J, MANILA)
    assert can_refuel_in_base(taken, taken.units["japanese/DD-1"])


def test_cg1_philfort_manila_port_declaration_refused() -> None:
    s = replace(manila_state(land(A, "RGT-1", FORT)), units={})
    s = s.with_units([ship(J, "DD-1", MANILA), land(A, "RGT-1", FORT)])
    w = Work.start(stub_geo(), s)
    w.begin_phase(J, 2)
    with pytest.raises(Refused) as e:
        movement.do_port(w, "DD-1", True)
    assert e.value.rule == "CG1.PHILFORT.MANILA"
    movement.do_port(w, "DD-1", False)  # at sea is always allowed


def test_cg1_philfort_manila_bar_lifted_for_good_once_the_fort_falls() -> None:
    before = manila_state(land(A, "RGT-1", FORT))
    fallen = manila_state(land(J, "DIV-1", FORT))
    after = scenario_rules.after_round(stub_geo(), before, fallen)
    assert after.extra["philfort_cleared"] is True
    # The Allies land on 348 again later: Manila stays open to the Japanese.
    back = replace(after, units=manila_state(land(A, "RGT-2", FORT)).units)
    assert not scenario_rules.naval_base_barred(back, J, MANILA)


# --- OPT.BURMA.RETREAT ------------------------------------------------------------------


def _d2_on_allied_unit(options: dict[str, bool], standing: tuple[str, ...] = ()) -> Work:
    """A Japanese 9-1 attack (die 1: D2) on an Allied regiment next to China."""
    at = HOME[0]  # next to the stub's China hex
    s = make_state(
        [
            replace(land(J, "DIV-1", at), attack=280),
            replace(land(A, "RGT-1", at), defense=30),
        ],
        options=options,
        standing={A: standing} if standing else {},
    )
    w = Work.start(stub_geo(), s)
    w.side = J
    nothing = frozenset[int]()
    w._supply[A] = SupplyMap(A, nothing, nothing, nothing)  # cut off: no on-map retreat
    attackers = (w.units["japanese/DIV-1"],)
    assert lc.resolve_attack(w, lc.Attack(at, attackers), ScriptedDice([1])) is LandResult.D2
    return w


def test_opt_burma_retreat_allied_unit_leaves_the_game_into_china_no_vp() -> None:
    w = _d2_on_allied_unit({"burma": True})
    assert "allied/RGT-1" not in w.units
    assert not w.state.destroyed  # not destroyed: no replacement, no VP
    (ev,) = [e for e in w.events if e.kind == "left-game"]
    assert ev.rule == "OPT.BURMA.RETREAT" and ev.data["to"] == f"{CHINA_HEX:04d}"
    before = make_state([land(A, "RGT-1", HOME[0])])
    assert victory.account(before, w.snapshot()).extra["vp_log"] == []


def test_opt_burma_retreat_without_the_option_china_stays_closed() -> None:
    """MOV.M / CRT1.D2: without the Burma option the unit has nowhere to go."""
    w = _d2_on_allied_unit({})
    assert "allied/RGT-1" not in w.units
    assert [d[0] for d in w.state.destroyed] == ["allied/RGT-1"]


def test_opt_burma_retreat_japanese_never_retreat_into_china() -> None:
    u = land(J, "RGT-1", HOME[0])
    w = Work.start(stub_geo(), make_state([u], options={"burma": True}))
    assert lc.exile_hexes(w, u) == []
    a = land(A, "RGT-1", HOME[0])
    assert lc.exile_hexes(w, a) == [CHINA_HEX]


def test_opt_burma_retreat_prefers_staying_in_the_game_unless_named() -> None:
    at = HOME[0]
    u = land(A, "RGT-1", at)
    w = Work.start(stub_geo(), make_state([u], options={"burma": True}))
    everywhere = frozenset(range(1, 2000))
    w._supply[A] = SupplyMap(A, everywhere, everywhere, frozenset())  # all hexes supplied
    on_map = lc.retreat_hex(w, u)
    assert on_map is not None and on_map != CHINA_HEX
    assert lc.retreat_hex(w, u, (CHINA_HEX,)) == CHINA_HEX  # STANDING RETREAT names it
