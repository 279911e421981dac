"""The U.S.N. fog of war (pbem.rulesets.usn.fog): what each mode shows one side."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.events import Event
from pbem.rulesets.usn import fog, hexgrid
from pbem.rulesets.usn.state import Air, GameState
from pbem.rulesets.usn.views import build_view
from tests.unit.rulesets.usn.builders import H, base, land, make_state, ship

J, A = "japanese", "allied"
HOME = H(20, 10)


def world(enemy_at: int, *, allied_air: int = 0, mode: str = "double-blind") -> GameState:
    units = [
        ship(J, "CA-1", HOME),
        ship(J, "TR-1", HOME),
        land(J, "SNLF-5", None, carried_by="TR-1"),
        ship(A, "CL-7", enemy_at),
    ]
    air = {A: {f"{H(30, 10):04d}": Air(lac=allied_air)}} if allied_air else {}
    bases = [base(H(30, 10), A, air=4)]
    return make_state(units, air=air, bases=bases, options={"fog": mode}, vp={J: 1.5, A: 4})


def seen(state: GameState, side: str, events: list[Event] | None = None) -> dict[str, Any]:
    evs = events or []
    return fog.apply(build_view(state, evs, side), state, evs, side, fog.mode_of(state))


def ids(view: dict[str, Any]) -> set[str]:
    return {u["id"] for u in view["enemy_units"]}


def test_fog_mode_of_reads_the_game_option() -> None:
    assert fog.mode_of(world(H(21, 10))) == "double-blind"
    assert fog.mode_of(world(H(21, 10), mode="open")) == "open"
    assert fog.mode_of(replace(world(H(21, 10)), options={})) == "open"


def test_open_map_shows_every_counter_at_any_range() -> None:
    v = seen(world(H(40, 25), mode="open"), J)
    assert ids(v) == {"CL-7"} and v["fog"]["mode"] == "open"


def test_double_blind_sees_units_in_or_next_to_own_hexes() -> None:
    assert ids(seen(world(H(21, 10)), J)) == {"CL-7"}  # adjacent
    assert hexgrid.distance(HOME, H(22, 10)) == 2
    assert ids(seen(world(H(22, 10)), J)) == set()  # two hexes off


def test_zoc_def_air_zone_of_control_detects_in_double_blind() -> None:
    """ZOC.DEF: two hexes around an air base with air units; the Allies see the
    Japanese cruiser there only while the base holds aircraft."""
    near_base = H(30, 12)
    assert hexgrid.distance(near_base, H(30, 10)) == 2
    s = replace(world(H(40, 25), allied_air=3), units={})
    s = s.with_units([ship(J, "CA-1", near_base), ship(A, "CL-7", H(40, 25))])
    assert ids(seen(s, A)) == {"CA-1"}
    s_empty = replace(s, air={})
    assert ids(seen(s_empty, A)) == set()


def test_double_blind_attackers_are_seen_where_they_attack() -> None:
    attack_hex = H(25, 20)
    s = world(H(40, 25)).with_units([ship(J, "CA-1", attack_hex)])
    # The Japanese cruiser attacked an Allied stack at attack_hex; the Allies have no unit there now.
    ev = Event(
        "combat-deferred",
        {"hex": f"{attack_hex:04d}", "attacker": J, "defenders": ["CL-7"]},
        None,
        "SEQ.2G",
    )
    assert ids(seen(s, A)) == set()
    v = seen(s, A, [ev])
    assert ids(v) == {"CA-1"} and v["events"]


def test_double_blind_move_shows_only_the_hexes_in_sight() -> None:
    s = world(H(21, 10))
    far = [f"{H(30, 20):04d}", f"{H(30, 21):04d}"]
    near = [f"{H(21, 10):04d}"]
    moves = [
        Event("moved", {"unit": "CL-7", "side": A, "path": far + near}, None, "SEQ.2C"),
        Event("moved", {"unit": "CL-9", "side": A, "path": far}, None, "SEQ.2C"),
    ]
    v = seen(s, J, moves)
    (shown,) = v["events"]
    assert shown["data"]["path"] == near and shown["data"]["unit"] == "CL-7"


def test_double_blind_last_known_positions_with_their_age() -> None:
    s = world(H(21, 10))
    s = replace(s, extra={"fog": fog.update_sightings(s)})
    later = replace(s, turn=3).with_units([ship(A, "CL-7", H(40, 25))])
    v = seen(later, J)
    assert ids(v) == set()
    assert v["fog"]["last_known"] == [
        {"id": "CL-7", "type": "CL", "at": f"{H(21, 10):04d}", "seen_turn": 1, "age": 2}
    ]
    # Whether the unit still exists is not told: the same sighting after it is gone.
    gone = replace(later, units={k: u for k, u in later.units.items() if u.side == J})
    assert seen(gone, J)["fog"] == v["fog"]


def test_nm_trans_hidden_cargo_never_in_enemy_view_either_mode() -> None:
    for mode in ("open", "double-blind"):
        s = world(H(21, 10), mode=mode).with_units([ship(A, "CL-7", H(20, 9))])
        embarked = Event(
            "embarked", {"transport": "TR-1", "cargo": ["SNLF-5"]}, (J,), "NM.TRANS.HIDDEN"
        )
        v = seen(s, A, [embarked])
        assert "SNLF-5" not in str(v), mode
        assert "SNLF-5" in str(seen(s, J, [embarked]))


def test_nm_trans_hidden_cargo_dropped_from_public_events_until_unloaded() -> None:
    s = world(H(21, 10), mode="open")
    leaky = Event("sailed", {"transport": "TR-1", "side": J, "cargo": ["SNLF-5"]}, None, "OFF.BOX")
    unloaded = Event(
        "debarked", {"transport": "TR-1", "side": J, "cargo": ["SNLF-5"]}, None, "NM.TRANS.DEBARK"
    )
    v = seen(s, A, [leaky, unloaded])
    assert [e["data"].get("cargo") for e in v["events"]] == [None, ["SNLF-5"]]


def test_gen_rec_c_submarines_are_never_shown() -> None:
    s = world(H(21, 10), mode="open").with_units([ship(J, "SUB-1", H(20, 11))])
    assert "SUB-1" not in ids(seen(s, A))


def test_gen_spirit_standing_orders_stay_with_their_owner() -> None:
    s = replace(world(H(21, 10), mode="open"), standing={J: ("STANDING SURFACE FIGHT",)})
    ev = Event(
        "standing-orders", {"side": J, "orders": ["STANDING SURFACE FIGHT"]}, None, "GEN.SPIRIT"
    )
    assert "FIGHT" not in str(seen(s, A, [ev]))
    assert "FIGHT" in str(seen(s, J, [ev]))


def test_gen_rec_a_victory_points_open_to_both_in_both_modes() -> None:
    for mode in ("open", "double-blind"):
        for side in (J, A, None):
            v = (
                seen(world(H(40, 25), mode=mode), side)
                if side
                else fog.apply(
                    build_view(world(H(40, 25), mode=mode), [], None),
                    world(H(40, 25), mode=mode),
                    [],
                    None,
                    mode,
                )
            )
            assert v["vp"] == {J: 1.5, A: 4}


def test_double_blind_enemy_base_state_unknown_out_of_sight() -> None:
    s = world(H(21, 10))
    (far,) = [b for b in seen(s, J)["bases"] if b["owner"] == A]
    assert far["air_capacity"] is None and far["neutralized"] is None
    (own,) = [b for b in seen(s, A)["bases"] if b["owner"] == A]
    assert own["air_capacity"] == 4
