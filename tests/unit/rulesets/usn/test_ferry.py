"""OPT.FERRY: the Japanese ferry carriers (CVE-1..3, ruling C19) launch or receive one
air point per movement or combat phase."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

import pytest

from pbem.core.dice import ScriptedDice
from pbem.core.errors import IllegalOrderError
from pbem.rulesets.usn import air_combat, air_return, ferry, movement
from pbem.rulesets.usn.air_combat import Flight
from pbem.rulesets.usn.orders import AirCargo, Mission, Transfer
from pbem.rulesets.usn.state import Air
from pbem.rulesets.usn.work import Work

from .builders import HOME, Game, H, base, make_state, ship, stub_geo

J, A = "japanese", "allied"
SEA = H(4, 3)  # open sea next to the Home Islands
RULES = {"ferry_carriers": {"units": ["CVE-1", "CVE-2", "CVE-3"], "air_points_per_phase": 1}}


def state(on: bool = True, **kw: Any) -> Any:
    units = [ship(J, "CVE-1", SEA, capacity=5), ship(J, "CV-1", SEA, capacity=10)]
    return make_state(
        units,
        air={J: {"CVE-1": Air(nac=3), "CV-1": Air(nac=2), f"{HOME[0]:04d}": Air(nac=4)}},
        bases=[base(HOME[0], J, air=20)],
        options={"ferry_carriers": on},
        extra={"optional_rules": RULES},
        **kw,
    )


def work(on: bool = True) -> Work:
    w = Work.start(stub_geo(), state(on))
    w.begin_phase(J, 2)
    return w


def transfer(w: Work, n: int, src: str, dst: str) -> None:
    movement.do_transfer(w, Transfer(AirCargo(n, "NAC"), src, dst))


def test_opt_ferry_one_point_launched_per_phase() -> None:
    w = work()
    transfer(w, 1, "CVE-1", f"{HOME[0]:04d}")
    with pytest.raises(IllegalOrderError) as e:
        transfer(w, 1, "CVE-1", f"{HOME[0]:04d}")
    assert e.value.rule == "OPT.FERRY" and "0 more" in e.value.message
    assert w.air_at(J, "CVE-1").nac == 2


def test_opt_ferry_two_points_at_once_refused_but_fleet_carriers_unlimited() -> None:
    w = work()
    with pytest.raises(IllegalOrderError) as e:
        transfer(w, 2, f"{HOME[0]:04d}", "CVE-1")
    assert e.value.rule == "OPT.FERRY"
    transfer(w, 2, "CV-1", f"{HOME[0]:04d}")  # not a ferry carrier
    assert w.air_at(J, f"{HOME[0]:04d}").nac == 6


def test_opt_ferry_launch_and_receive_counted_apart_and_reset_next_phase() -> None:
    w = work()
    transfer(w, 1, "CVE-1", "CV-1")
    transfer(w, 1, "CV-1", "CVE-1")  # one received as well (the reading in ferry.py)
    with pytest.raises(IllegalOrderError):
        transfer(w, 1, f"{HOME[0]:04d}", "CVE-1")
    w.begin_phase(J, 7)  # the next Japanese movement phase
    transfer(w, 1, f"{HOME[0]:04d}", "CVE-1")
    assert w.air_at(J, "CVE-1").nac == 4


def test_opt_ferry_rule_off_no_limit() -> None:
    w = work(on=False)
    transfer(w, 3, "CVE-1", f"{HOME[0]:04d}")
    assert w.air_at(J, "CVE-1").nac == 0
    assert ferry.room(w, J, "CVE-1", ferry.LAUNCH) is None


def test_opt_ferry_one_point_per_strike_phase_mission_check() -> None:
    w = work()
    w.begin_phase(J, 5)
    cap = Mission("CAP", AirCargo(2, "NAC"), "CVE-1")
    with pytest.raises(IllegalOrderError) as e:
        air_combat.check_mission_target(w, cap, J)
    assert e.value.rule == "OPT.FERRY"
    air_combat.check_mission_target(w, replace(cap, air=AirCargo(1, "NAC")), J)
    with pytest.raises(IllegalOrderError):
        air_combat.check_mission_target(w, replace(cap, air=AirCargo(1, "NAC")), J)


def test_opt_ferry_one_point_received_on_return_the_rest_elsewhere() -> None:
    """SEQ.5L with OPT.FERRY: the ferry carrier takes one point back; the others look
    for another carrier or base in range."""
    w = work()
    w.begin_phase(J, 5)
    w.set_air(J, "CVE-1", Air())
    w.state = replace(
        w.state,
        extra={
            **w.state.extra,
            "aloft": [asdict(Flight(J, "NAC", 3, "CVE-1", SEA, "STRIKE", SEA, "SHIPS"))],
        },
    )
    air_return.hook_return(w, None, {}, ScriptedDice([]))  # type: ignore[arg-type]
    assert w.air_at(J, "CVE-1").nac == 1
    assert w.air_at(J, "CV-1").nac + w.air_at(J, f"{HOME[0]:04d}").nac == 2 + 4 + 2


def test_opt_ferry_by_mail_second_transfer_refused() -> None:
    g = Game(state(round=0))
    v = g.validate(J, f"TRANSFER 1 NAC CVE-1 TO {HOME[0]:04d}\nTRANSFER 1 NAC CVE-1 TO CV-1")
    (e,) = v.errors
    assert e.rule == "OPT.FERRY"
