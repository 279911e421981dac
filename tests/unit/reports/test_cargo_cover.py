"""H1 in the report (NM.TRANS.HIDDEN): an embarked land unit goes face-down under its
transport, so the enemy cannot tell what it carries. pbem's reading (docs/usn-fog.md):
while the transport stays in the hex its cargo embarked from, the enemy's report still
shows the cargo ashore there, exactly as before; once the transport has sailed, the
cargo is off the map like any face-down counter. Played through the ruleset itself."""

from __future__ import annotations

from typing import Any

from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.state import Air, GameState
from tests.unit.rulesets.usn.builders import HOME, Game, H, base, land, make_state, ship

J, A = "japanese", "allied"
PORT = HOME[0]


def port_game(mode: str = "open", watcher_at: int = H(20, 20)) -> Game:
    units = [
        ship(J, "TR-1", PORT, ma=3),
        land(J, "RGT-1", PORT),
        land(J, "BN-2", PORT, tp=2),
        ship(A, "DD-9", watcher_at),
    ]
    return Game(make_state(units, bases=[base(PORT, J)], options={"fog": mode}))


def allied_sees(g: Game) -> list[dict[str, Any]]:
    return list(g.rs.view(g.state, g.events, A)["enemy_units"])


def played(orders: str, mode: str = "open", watcher_at: int = H(20, 20)) -> Game:
    g = port_game(mode, watcher_at)
    g.play({J: orders} if orders else {J: ""})
    return g


def test_nm_trans_hidden_embarked_cargo_shown_ashore_while_transport_stays() -> None:
    loaded, idle = played("EMBARK TR-1 RGT-1"), played("")
    assert loaded.unit(J, "RGT-1").carried_by == "TR-1"
    assert idle.unit(J, "RGT-1").hex == PORT
    # The Allied report cannot tell the two games apart: same counters, same places.
    assert allied_sees(loaded) == allied_sees(idle)
    assert {"id": "RGT-1", "at": hexgrid.fmt(PORT)}.items() <= next(
        u for u in allied_sees(loaded) if u["id"] == "RGT-1"
    ).items()
    # The owner sees the truth: aboard.
    own = loaded.rs.view(loaded.state, loaded.events, J)["own_units"]
    assert next(u for u in own if u["id"] == "RGT-1")["aboard"] == "TR-1"


def test_nm_trans_hidden_cover_holds_through_later_rounds_in_port() -> None:
    g = played("EMBARK TR-1 RGT-1")
    g.play({A: ""})  # the Allied naval phase: the transport still in port
    assert g.unit(J, "RGT-1").carried_by == "TR-1"
    assert "RGT-1" in {u["id"] for u in allied_sees(g)}


def test_nm_trans_hidden_cover_ends_when_the_transport_sails() -> None:
    g = played(f"EMBARK TR-1 RGT-1\nCONTINUE TR-1 {hexgrid.fmt(H(2, 1))}")
    shown = {u["id"]: u["at"] for u in allied_sees(g)}
    assert "RGT-1" not in shown and shown["BN-2"] == hexgrid.fmt(PORT)
    assert shown["TR-1"] == hexgrid.fmt(H(2, 1))
    s = GameState.from_json(g.state)
    assert not s.extra.get("fog", {}).get("cargo_cover")


def test_nm_trans_hidden_cover_follows_detection_in_double_blind() -> None:
    near, far = H(2, 1), H(20, 20)
    assert hexgrid.distance(near, PORT) == 1
    for watcher, expected in ((near, {"TR-1", "RGT-1", "BN-2"}), (far, set())):
        loaded = played("EMBARK TR-1 RGT-1", "double-blind", watcher)
        idle = played("", "double-blind", watcher)
        assert {u["id"] for u in allied_sees(loaded)} == expected
        assert allied_sees(loaded) == allied_sees(idle)
        # Its last sighting ages with its shipmates' (double-blind's "last known").
        assert sightings(loaded) == sightings(idle)
        if watcher == near:
            loaded.play({A: ""})
            idle.play({A: ""})
            assert sightings(loaded) == sightings(idle)


def sightings(g: Game) -> Any:
    return GameState.from_json(g.state).extra.get("fog", {}).get("sightings", {}).get(A)


def strike_game(orders: str, mode: str) -> Game:
    """The port game with an Allied air base next door, played on to the strikes (air-5)."""
    near = H(2, 1)
    units = [
        ship(J, "TR-1", PORT, ma=3),
        land(J, "RGT-1", PORT),
        land(J, "BN-2", PORT, tp=2),
        ship(A, "DD-9", near),
    ]
    g = Game(
        make_state(
            units,
            bases=[base(PORT, J), base(near, A, air=10)],
            air={A: {hexgrid.fmt(near): Air(lbac=10)}},
            options={"fog": mode},
            extra={"air_ranges": {"allied/LBAC": [8, 8]}},
        )
    )
    g.play({J: orders})
    g.play({A: ""})
    return g


def test_nm_trans_hidden_covered_cargo_known_ashore_to_the_enemy_validator() -> None:
    """The enemy's orders are judged on what his report shows (issue 13): covered
    cargo stands ashore in the validator's knowledge too, so no answer or order
    form tells him whether it went aboard."""
    probe = f"STRIKE 1 LBAC {hexgrid.fmt(H(2, 1))} {hexgrid.fmt(PORT)} LAND AT RGT-1"
    for mode in ("open", "double-blind"):
        loaded, idle = strike_game("EMBARK TR-1 RGT-1", mode), strike_game("", mode)
        assert loaded.unit(J, "RGT-1").carried_by == "TR-1"
        assert loaded.rs.pending(loaded.state).phase == "air-5"
        a, b = loaded.rs.validate(loaded.state, A, probe), idle.rs.validate(idle.state, A, probe)
        assert a == b and a.accepted, (mode, a)
        assert loaded.rs.order_template(loaded.state, A) == idle.rs.order_template(idle.state, A)
