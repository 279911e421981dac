"""Covered cargo on the ground (NM.TRANS.HIDDEN, H1; docs/usn-fog.md, *Land attacks,
supply and capture with cargo in port*): while a loaded transport stays in the hex its
cargo embarked from, the enemy sees that cargo ashore, so it defends against a land
attack (CBT.D), blocks the enemy's supply lines over land (SUP.D) and keeps defending
the bases and coastal defence units of its hex (CBT.G, BASE.I) as it would ashore.

Each test plays (or builds) two games that differ only in that the Japanese embarked
units (or not) and compares everything the Allies are sent, or the Allies' supply."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.hexgrid import neighbours
from pbem.rulesets.usn.supply import supply_map, update_supply
from tests.unit.rulesets.usn.builders import HOME, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
PORT, BESIDE = HOME[0], HOME[1]  # the Japanese port and a land hex next to it
MODES = ("open", "double-blind")


def allied_mail(g: Game) -> dict[str, Any]:
    """What the Allies receive of the round: their view (report, map) and order form."""
    return {"view": g.rs.view(g.state, g.events, A), "form": g.rs.order_template(g.state, A)}


def attack_game(embark: str, mode: str, attack: int) -> Game:
    """Japanese RGT-1 (DEF 15) and BN-2 (DEF 10) beside TR-1 in PORT, an Allied MAR-1
    with them; the Japanese embark ``embark`` in J-2, the Allies stay put in A-3-4."""
    units = [
        ship(J, "TR-1", PORT, ma=3),
        land(J, "RGT-1", PORT),
        land(J, "BN-2", PORT, tp=2, defense=10),
        land(A, "MAR-1", PORT, attack=attack),
    ]
    g = Game(make_state(units, options={"fog": mode}))
    g.play({J: f"EMBARK TR-1 {embark}" if embark else ""})
    g.play({A: ""})
    assert g.rs.pending(g.state).phase == "air-5"
    return g


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("embark", ["RGT-1", "RGT-1 BN-2"])
@pytest.mark.parametrize("attack", [8, 100, 250])  # 1-2, 4-1, 10-1: Ax to DX
@pytest.mark.parametrize("die", range(1, 7))
def test_cbt_d_attack_on_covered_cargo_is_fought_as_if_ashore(
    mode: str, embark: str, attack: int, die: int
) -> None:
    """ATTACK <port> MAR-1 while some or all of the Japanese there are aboard TR-1:
    accepted, and fought against every land unit the Allies see there (CBT.D), at
    the odds and with the results of the game where they stayed ashore: the Allies'
    report and order form are the same, never "no enemy land units to attack"."""
    probe = f"ATTACK {hexgrid.fmt(PORT)} MAR-1"
    games = [attack_game(embark, mode, attack), attack_game("", mode, attack)]
    for g in games:
        v = g.validate(A, probe)
        assert v.accepted and not v.errors, v
        g.play({A: probe, J: ""}, [die] * 60)
    aboard, ashore = games
    assert allied_mail(aboard) == allied_mail(ashore)
    assert "order-failed" not in [e.kind for e in aboard.events]
    (fight,) = [e for e in aboard.events if e.kind == "land-combat"]
    assert fight.data["defenders"] == ["BN-2", "RGT-1"]


def test_crt1_d2_covered_defender_retreats_ashore_off_its_transport() -> None:
    """CRT1.D2 on a Class 2 hex: the defenders retreat. A covered unit leaves its
    transport with them and stands in the retreat hex, as the enemy sees it do."""
    g = attack_game("RGT-1", "open", 150)  # 150 against 25: the 6-1 column, a 5 is D2
    g.play({A: f"ATTACK {hexgrid.fmt(PORT)} MAR-1", J: ""}, [5] * 60)
    assert [e.data["result"] for e in g.events if e.kind == "land-combat"] == ["D2"]
    moved = {e.data["unit"]: e.data["to"] for e in g.events if e.kind == "retreated"}
    u = g.unit(J, "RGT-1")
    assert u.carried_by is None and u.hex is not None and moved["RGT-1"] == hexgrid.fmt(u.hex)
    assert u.hex != PORT and g.unit(J, "TR-1").hex == PORT


def capture_game(embark: str, mode: str, cd: bool) -> Game:
    """A Japanese naval base in PORT (and a CD unit there if ``cd``) defended by RGT-1,
    inverted (CBT.G), beside TR-1; the Japanese embark ``embark`` in J-2, then the
    Allied MAR-1 moves in from next door in A-3 (BASE.I, CBT.F)."""
    units = [
        ship(J, "TR-1", PORT, ma=3),
        land(J, "RGT-1", PORT),
        land(A, "MAR-1", BESIDE),
        ship(A, "DD-9", H(2, 1)),
    ]
    if cd:
        units.append(land(J, "CD-1", PORT, tp=0))
    state = make_state(
        units,
        bases=[base(PORT, J)],
        options={"fog": mode},
        extra={"defending": [f"{J}/RGT-1"]},
    )
    g = Game(state)
    g.play({J: f"EMBARK TR-1 {embark}" if embark else ""})
    g.play({A: f"MOVE MAR-1 {hexgrid.fmt(PORT)}"})
    return g


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cd", [False, True], ids=["base", "base-and-cd"])
def test_base_i_cbt_g_covered_defender_still_defends_base_and_cd(mode: str, cd: bool) -> None:
    """BASE.I / CBT.G / CBT.F: the inverted RGT-1 that went aboard is still shown
    defending its port, and it defends it: the Allied MAR-1 moving in takes neither
    the base nor the CD unit, as in the game where RGT-1 stayed ashore."""
    aboard, ashore = capture_game("RGT-1", mode, cd), capture_game("", mode, cd)
    assert aboard.unit(J, "RGT-1").carried_by == "TR-1"
    assert aboard.s.bases[PORT].owner == J
    assert (aboard.s.unit(J, "CD-1") is not None) == cd
    assert allied_mail(aboard) == allied_mail(ashore)


def ringed_port() -> tuple[Any, int, int, list[int]]:
    """A Japanese RGT-9 inland at U, walled in by land on every side (no sea route
    from U itself); five of its neighbours hold Allied troops, the sixth, P, is a
    port where an Allied transport lies: U's only land line runs through P (SUP.D)."""
    u = H(8, 5)
    ring = sorted(neighbours(u))
    sides = {(min(u, n), max(u, n)): "land" for n in ring}
    geo = stub_geo(land={h: "class2" for h in [u, *ring]}, hexsides=sides)
    return geo, u, ring[0], ring[1:]


@pytest.mark.parametrize("aboard", [False, True])
def test_sup_d_covered_cargo_blocks_supply_through_its_hex(aboard: bool) -> None:
    """SUP.D: "the presence of Enemy land units blocks supply lines traced on land".
    The Allied MAR-1 covered aboard TR-1 in P is shown ashore there, and blocks the
    Japanese line through P as it would ashore: RGT-9 is out of supply in both games,
    and gets its supply back once the cover ends (the transport sails)."""
    geo, u, p, others = ringed_port()
    walls = [land(A, f"BN-{i}", h, tp=2) for i, h in enumerate(others, 1)]
    cover = {f"{A}/MAR-1": {"at": hexgrid.fmt(p), "entrenched": False, "transport": "TR-1"}}
    mar = land(A, "MAR-1", None if aboard else p, carried_by="TR-1" if aboard else None)
    units = [ship(A, "TR-1", p, ma=3), mar, land(J, "RGT-9", u), *walls]
    state = make_state(units, extra={"fog": {"cargo_cover": cover}} if aboard else {})
    assert not supply_map(geo, state, J).supplied(u)
    rgt = update_supply(geo, state).unit(J, "RGT-9")
    assert rgt is not None and not rgt.supplied
    sailed = state.with_units([ship(A, "TR-1", H(20, 20), ma=3)])
    assert supply_map(geo, sailed, J).supplied(u) == aboard


@pytest.mark.parametrize("aboard", [False, True])
def test_crt1_d1_covered_unit_is_shown_losing_its_entrenchment(aboard: bool) -> None:
    """CRT1.D1 on a Class 2 hex: the defenders keep their hex and lose entrenchment.
    RGT-1, shown entrenched ashore though it went aboard (it embarked in the phase it
    gave up its entrenchment), is shown no longer entrenched, as it would be ashore;
    the cover lasts into the next round with it."""
    cover = {f"{J}/RGT-1": {"at": hexgrid.fmt(PORT), "entrenched": True, "transport": "TR-1"}}
    rgt = land(J, "RGT-1", None, carried_by="TR-1") if aboard else land(J, "RGT-1", PORT)
    units = [ship(J, "TR-1", PORT, ma=3), replace(rgt, entrenched=not aboard)]
    units.append(land(A, "MAR-1", PORT, attack=50))  # 50 against 45: the 1-1 column
    extra = {"fog": {"cargo_cover": cover}} if aboard else {}
    g = Game(make_state(units, round=2, extra=extra))
    g.play({A: f"ATTACK {hexgrid.fmt(PORT)} MAR-1", J: ""}, [5] * 60)
    assert [e.data["result"] for e in g.events if e.kind == "land-combat"] == ["D1"]
    (shown,) = [u for u in g.rs.view(g.state, g.events, A)["enemy_units"] if u["id"] == "RGT-1"]
    assert shown["at"] == hexgrid.fmt(PORT) and shown["entrenched"] is False
    assert (g.unit(J, "RGT-1").carried_by == "TR-1") == aboard
