"""Strikes and bombardments aimed at covered cargo (NM.TRANS.HIDDEN, H1; docs/usn-fog.md,
*Cargo in port*): while a loaded transport stays in the hex its cargo embarked from,
the enemy sees that cargo ashore. A strike on land units (AM.BOMBLAND, SEQ.5H/5I) or a
naval bombardment (NM.BOMBLAND, SEQ.2F) aimed there is settled on what the enemy may
know: the covered unit counts as the land unit it is shown as, so the striker is told
the same whether the unit stayed ashore or went aboard.

Each test plays two games that differ only in that the Japanese embarked a unit (or
not), then the Allied orders, and compares everything the Allies are sent."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.core.dice import ScriptedDice
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.state import Air, GameState
from pbem.rulesets.usn.supply import update_supply
from tests.unit.rulesets.usn.builders import (
    HOME,
    ISLAND,
    Game,
    H,
    base,
    land,
    make_state,
    ship,
    stub_geo,
)

J, A = "japanese", "allied"
PORT = HOME[0]
NEAR = H(2, 1)  # next to the port: the Allied air base and watcher
FAR = H(20, 20)  # out of every detection radius of the port
AWAY = H(2, 6)  # four hexes from the port: in LBAC range, beyond its air zone (ZOC.DEF)
MODES = ("open", "double-blind")
DX = [6] * 60  # CRT1 at 100-15 (6-1): a 6 is DX, the unit is cut off (AM.BOMBLAND)
NO_EFFECT = [1] * 60


def strike_game(embark: str, mode: str, watcher: int = NEAR, field: int = NEAR) -> Game:
    """A Japanese port (RGT-1 DEF 15, BN-2 DEF 10, TR-1 in port), an Allied air base
    with LBAC at ``field`` (next door), an Allied DD at ``watcher``, played on to the strikes (air-5): the Japanese embark
    ``embark`` in J-2, the Allies stay put in A-3-4."""
    units = [
        ship(J, "TR-1", PORT, ma=3, in_base=True),
        land(J, "RGT-1", PORT),
        land(J, "BN-2", PORT, tp=2, defense=10),
        ship(A, "DD-9", watcher),
    ]
    g = Game(
        make_state(
            units,
            bases=[base(PORT, J), base(field, A, air=10)],
            air={A: {hexgrid.fmt(field): Air(lbac=10)}},
            options={"fog": mode},
            extra={"air_ranges": {"allied/LBAC": [8, 8]}},
        )
    )
    g.play({J: f"EMBARK TR-1 {embark}" if embark else ""})
    g.play({A: ""})
    assert g.rs.pending(g.state).phase == "air-5"
    return g


def allied_mail(g: Game) -> dict[str, Any]:
    """Everything of the round the Allies receive: the view their report and map are
    drawn from, and their order form."""
    return {
        "view": g.rs.view(g.state, g.events, A),
        "form": g.rs.order_template(g.state, A),
    }


def strike(
    probe: str, embark: str, mode: str, dice: list[int], watcher: int = NEAR, field: int = NEAR
) -> Game:
    g = strike_game(embark, mode, watcher, field)
    v = g.validate(A, probe)
    assert v.accepted and not v.errors, v
    g.play({A: probe, J: ""}, dice)
    return g


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dice", [DX, NO_EFFECT], ids=["DX", "no-effect"])
def test_am_bombland_strike_at_covered_cargo_is_told_as_if_ashore(
    mode: str, dice: list[int]
) -> None:
    """STRIKE ... LAND AT RGT-1 while RGT-1 is aboard TR-1 in the port it embarked
    from: the Allies' report is byte for byte the one they get when RGT-1 stayed
    ashore (no "not an enemy land unit" refusal at adjudication, no retargeting)."""
    probe = f"STRIKE 10 LBAC {hexgrid.fmt(NEAR)} {hexgrid.fmt(PORT)} LAND AT RGT-1"
    aboard, ashore = strike(probe, "RGT-1", mode, dice), strike(probe, "", mode, dice)
    assert aboard.unit(J, "RGT-1").carried_by == "TR-1"
    assert allied_mail(aboard) == allied_mail(ashore)
    kinds = [e["kind"] for e in allied_mail(aboard)["view"]["events"]]
    assert "order-failed" not in kinds and "strike-retargeted" not in kinds
    bombed = [e for e in aboard.events if e.kind == "bombardment"]
    assert [e.data["target"] for e in bombed] == ["RGT-1"]
    assert bombed[0].data["hex"] == hexgrid.fmt(PORT) and bombed[0].data["defense"] == 15


def test_am_bombland_dx_on_covered_cargo_cuts_off_the_unit_aboard() -> None:
    """The bombing falls on the troops in the port: a DX leaves the unit aboard out of
    supply for a full Game-Turn (AM.BOMBLAND), as it would ashore; it stays aboard."""
    probe = f"STRIKE 10 LBAC {hexgrid.fmt(NEAR)} {hexgrid.fmt(PORT)} LAND AT RGT-1"
    g = strike(probe, "RGT-1", "open", DX)
    u = g.unit(J, "RGT-1")
    assert u.carried_by == "TR-1" and u.hex is None and not u.supplied
    s = GameState.from_json(g.state)
    assert s.extra["cut_off"][u.key] == s.turn + 1


@pytest.mark.parametrize("mode", MODES)
def test_am_bombland_default_target_counts_covered_cargo(mode: str) -> None:
    """Without AT the unit with the lowest defence is bombed (AM.BOMBLAND): BN-2
    (DEF 10) whether it is ashore or covered aboard, never RGT-1 instead."""
    probe = f"STRIKE 10 LBAC {hexgrid.fmt(NEAR)} {hexgrid.fmt(PORT)} LAND"
    aboard, ashore = strike(probe, "BN-2", mode, DX), strike(probe, "", mode, DX)
    assert allied_mail(aboard) == allied_mail(ashore)
    assert [e.data["target"] for e in aboard.events if e.kind == "bombardment"] == ["BN-2"]


@pytest.mark.parametrize("mode", MODES)
def test_am_bombland_all_units_covered_the_strike_still_finds_them(mode: str) -> None:
    """Every land unit of the hex aboard: the strike does not come back "found no land
    units" or fail; it bombs the weakest, as in the game where they stayed ashore."""
    probe = f"STRIKE 10 LBAC {hexgrid.fmt(NEAR)} {hexgrid.fmt(PORT)} LAND"
    aboard, ashore = (
        strike(probe, "RGT-1 BN-2", mode, NO_EFFECT),
        strike(probe, "", mode, NO_EFFECT),
    )
    assert aboard.unit(J, "BN-2").carried_by == "TR-1"
    assert allied_mail(aboard) == allied_mail(ashore)
    assert "strike-found-nothing" not in [e.kind for e in aboard.events]


def test_am_bombland_double_blind_strike_plotted_out_of_sight() -> None:
    """Double-blind, the port out of the Allies' sight: the strike is accepted unseen
    and meets what is there (SEQ.5H). A covered unit is there as shown: no
    "strike-retargeted ... RGT-1 is not in" for the unit aboard."""
    probe = f"STRIKE 10 LBAC {hexgrid.fmt(AWAY)} {hexgrid.fmt(PORT)} LAND AT RGT-1"
    for dice in (DX, NO_EFFECT):
        aboard = strike(probe, "RGT-1", "double-blind", dice, FAR, AWAY)
        ashore = strike(probe, "", "double-blind", dice, FAR, AWAY)
        assert "RGT-1" not in str(strike_game("", "double-blind", FAR, AWAY).validate(A, ""))
        assert allied_mail(aboard) == allied_mail(ashore)
        assert "strike-retargeted" not in [e.kind for e in aboard.events]


def bombard_game(embark: str, mode: str) -> Game:
    """The port game played to A-3-4, with an Allied CA next to the port."""
    units = [
        ship(J, "TR-1", PORT, ma=3, in_base=True),
        land(J, "RGT-1", PORT),
        land(J, "BN-2", PORT, tp=2, defense=10),
        ship(A, "CA-1", NEAR),
    ]
    g = Game(make_state(units, bases=[base(PORT, J)], options={"fog": mode}))
    g.play({J: f"EMBARK TR-1 {embark}" if embark else ""})
    assert g.rs.pending(g.state).phase == "A-3-4"
    return g


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("at", [" AT RGT-1", ""])
def test_nm_bombland_bombard_at_covered_cargo_answered_as_if_ashore(mode: str, at: str) -> None:
    """BOMBARD <port> LAND ... AT RGT-1: the covered unit's transport lies in the hex,
    and no land unit is bombarded in a hex with enemy ships (SEQ.2F), so the order is
    refused in both games alike, with the same reason, in the answer and after the
    round; the Allies' report is the same."""
    orders = f"MOVE CA-1 {hexgrid.fmt(PORT)}\nBOMBARD {hexgrid.fmt(PORT)} LAND CA-1{at}"
    games = [bombard_game("RGT-1", mode), bombard_game("", mode)]
    answers = [g.validate(A, orders) for g in games]
    assert answers[0] == answers[1]
    assert [e.rule for e in answers[0].errors] == ["SEQ.2F"]
    for g, v in zip(games, answers, strict=True):
        result = g.rs.adjudicate(g.state, {A: list(v.accepted)}, ScriptedDice(DX))
        g.state, g.events = dict(result.state), list(result.events)
    assert allied_mail(games[0]) == allied_mail(games[1])


@pytest.mark.parametrize("at", [PORT, ISLAND[0]], ids=["home-port", "cut-off-island"])
@pytest.mark.parametrize("was", [True, False])
def test_sup_e_covered_cargo_keeps_the_supply_it_would_have_ashore(at: int, was: bool) -> None:
    """A covered unit is bombed at the defence it shows (SUP.E halves it out of supply),
    so its supply is traced at each step 10 as if it stood on the quay: the same flag
    as the unit that stayed ashore, turn after turn, though it is aboard."""
    geo = stub_geo()
    cover = {"at": hexgrid.fmt(at), "entrenched": False, "transport": "TR-1"}
    # An Allied carrier's air zone cuts the island off (SUP.D.ZOC), not the home port.
    units = [ship(J, "TR-1", at, ma=3), ship(A, "CV-5", ISLAND[1])]
    air = {A: {"CV-5": Air(nac=3)}}
    ashore = make_state([*units, land(J, "RGT-1", at, supplied=was)], air=air)
    aboard = make_state(
        [*units, land(J, "RGT-1", None, supplied=was, carried_by="TR-1")],
        air=air,
        extra={"fog": {"cargo_cover": {f"{J}/RGT-1": cover}}},
    )
    a, b = (update_supply(geo, s).unit(J, "RGT-1") for s in (aboard, ashore))
    assert a is not None and b is not None
    assert a.carried_by == "TR-1" and a.hex is None
    assert a.supplied == b.supplied == (at == PORT)
