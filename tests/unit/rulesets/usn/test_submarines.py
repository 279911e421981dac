"""Optional Japanese submarines and their secret log (SUB.*, GEN.REC.C)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.errors import IllegalOrderError
from pbem.rulesets.usn import hexgrid, submarines
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.orders import SubMove, parse_line
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import Air, GameState, Unit
from pbem.rulesets.usn.state import decode as decode_state
from pbem.rulesets.usn.work import Work

from .builders import Game, H, base, make_state, ship, stub_geo

J, A = "japanese", "allied"
X = H(20, 10)  # open sea all round
RING = [int(n) for n in hexgrid.neighbours(X)]
FAR = H(30, 16)


def sub_state(
    units: list[Unit],
    subs: dict[str, dict[str, Any]],
    round: int = 0,
    **kw: Any,
) -> GameState:
    st_ = make_state(units, round=round, options={"subs": True}, **kw)
    return replace(st_, extra={**st_.extra, "subs": subs, "sub_log": []})


def jwork(s: GameState, step: int = 2) -> Work:
    w = Work.start(stub_geo(), s)
    w.begin_phase(J, step)
    return w


def on(h: int, station: bool = False, phases: int = 0) -> dict[str, Any]:
    return {"hex": h, "station": station, "phases": phases}


# --- grammar and set-up ------------------------------------------------------------


def test_sub_proc_orders_parse() -> None:
    assert parse_line("sub sub1 0759 0760") == SubMove("SUB-1", ("0759", "0760"))
    assert parse_line("STATION Sub-2").canonical() == "STATION SUB-2"


def _setup(scenario: str, subs: bool) -> GameState:
    return decode_state(
        UsnRuleset(load_world(), world_geo()).initial_state(
            scenario, {"subs": True} if subs else {}
        )
    )


def test_mini_coral_sub_sub_gen_sub1_only_with_the_option_and_never_a_counter() -> None:
    without, with_subs = _setup("coral-sea", False), _setup("coral-sea", True)
    assert "subs" not in without.extra
    assert set(with_subs.extra["subs"]) == {"SUB-1"}
    assert not any(u.utype == "SUB" for u in with_subs.units.values())
    assert with_subs.extra["subs"]["SUB-1"]["station"] is False  # need not be on station


def test_cg1_ob_j_opt_four_subs_with_the_option() -> None:
    assert set(_setup("campaign-1", True).extra["subs"]) == {f"SUB-{n}" for n in range(1, 5)}
    assert "subs" not in _setup("campaign-1", False).extra


def test_cg2_ob_j_opt_four_subs_with_the_option() -> None:
    assert set(_setup("campaign-2", True).extra["subs"]) == {f"SUB-{n}" for n in range(1, 5)}


# --- SUB.A, SUB.E, SUB.F, SUB.G, SUB.I, SUB.J: station -----------------------------------


def test_sub_a_sub_j_on_station_is_fixed_for_eight_japanese_naval_phases() -> None:
    w = jwork(sub_state([], {"SUB-1": on(X)}))
    submarines.do_station(w, "SUB-1")
    submarines.end_phase(w)  # A25: the phase it took station counts
    for _n in range(2, submarines.STATION_PHASES + 1):
        w.begin_phase(J, 2)
        try:
            submarines.do_sub_move(w, "SUB-1", (f"{RING[0]:04d}",))
            raise AssertionError("a sub on station moved")
        except IllegalOrderError as e:
            assert e.rule == "SUB.A"
        submarines.end_phase(w)
    w.begin_phase(J, 8)
    submarines.do_sub_move(w, "SUB-1", (f"{RING[0]:04d}",))  # SUB.J: free after eight
    assert submarines.subs_of(w.state)["SUB-1"] == on(RING[0])


def test_sub_a_no_station_after_moving_in_the_same_phase() -> None:
    w = jwork(sub_state([], {"SUB-1": on(X)}))
    submarines.do_sub_move(w, "SUB-1", (f"{RING[0]:04d}",))
    try:
        submarines.do_station(w, "SUB-1")
        raise AssertionError("station taken after moving")
    except IllegalOrderError as e:
        assert e.rule == "SUB.A"


def test_sub_gen_ma_two_doubled_only_far_from_the_enemy() -> None:
    path = [X, RING[0]]
    far = hexgrid.neighbours(RING[0])
    nxt = next(int(n) for n in far if int(n) not in path)
    nxt2 = next(int(n) for n in hexgrid.neighbours(nxt) if int(n) not in (*path, nxt))
    hexes = tuple(f"{h:04d}" for h in (RING[0], nxt, nxt2))
    w = jwork(sub_state([], {"SUB-1": on(X)}))
    submarines.do_sub_move(w, "SUB-1", hexes)  # MOV.N: no enemy near, 3 of 4
    enemy = ship(A, "CA-1", H(21, 13))  # within five hexes: MA 2 only
    w = jwork(sub_state([enemy], {"SUB-1": on(X)}))
    try:
        submarines.do_sub_move(w, "SUB-1", hexes)
        raise AssertionError("moved three hexes near the enemy")
    except IllegalOrderError as e:
        assert e.rule == "MOV.N"


def test_sub_f_never_on_station_in_an_allied_naval_base_hex() -> None:
    w = jwork(sub_state([], {"SUB-1": on(X)}, bases=[base(X, A)]))
    try:
        submarines.do_station(w, "SUB-1")
        raise AssertionError("station in an Allied naval base")
    except IllegalOrderError as e:
        assert e.rule == "SUB.F"


def test_sub_e_not_near_allied_air_base_with_aircraft_unless_near_own() -> None:
    ab = RING[1]
    air = {A: {f"{ab:04d}": Air(lbac=2)}}
    w = jwork(sub_state([], {"SUB-1": on(X)}, bases=[base(ab, A, air=5, naval=False)], air=air))
    assert w.bases and submarines.station_refusal(w, X) is not None
    own = RING[4]
    air2 = {**air, J: {f"{own:04d}": Air(lac=1)}}
    bases = [base(ab, A, air=5, naval=False), base(own, J, air=5, naval=False)]
    w = jwork(sub_state([], {"SUB-1": on(X)}, bases=bases, air=air2))
    assert submarines.station_refusal(w, X) is None
    empty = jwork(sub_state([], {"SUB-1": on(X)}, bases=[base(ab, A, air=5, naval=False)]))
    assert submarines.station_refusal(empty, X) is None  # no aircraft there


def test_sub_g_station_made_illegal_is_abandoned_and_sub_i_may_leave_early() -> None:
    ab = RING[1]
    air = {A: {f"{ab:04d}": Air(lbac=2)}}
    s = sub_state([], {"SUB-1": on(X, True, 3)}, bases=[base(ab, A, air=5, naval=False)], air=air)
    w = jwork(s)
    assert submarines.free_to_leave(w, submarines.subs_of(w.state)["SUB-1"])  # SUB.I
    submarines.begin_phase(w)  # SUB.G
    assert submarines.subs_of(w.state)["SUB-1"]["station"] is False
    assert [e.kind for e in w.events] == ["sub-station-lost"]
    assert w.events[0].witnesses == (J,)


# --- SUB.C, SUB.D, SUB.H: attacks --------------------------------------------------------


def test_sub_d_reductions_two_per_dd_one_per_bb_and_carriers() -> None:
    stack = [ship(A, u, X) for u in ("DD-1", "DD-2", "BB-1", "CV-1", "CA-1", "TR-1")]
    assert submarines.reductions(stack) == 2 + 2 + 1 + 1


def test_sub_h_allied_reductions_spread_or_first() -> None:
    subs = ["SUB-1", "SUB-2", "SUB-3"]
    assert submarines.spread(5, subs, "SPREAD") == {"SUB-1": 2, "SUB-2": 2, "SUB-3": 1}
    assert submarines.spread(8, subs, "FIRST") == {"SUB-1": 6, "SUB-2": 2, "SUB-3": 0}
    assert sum(submarines.spread(30, subs, "SPREAD").values()) == 18  # never below zero


def test_sub_h_default_target_priority_carrier_first() -> None:
    ships = [ship(A, "DD-1", X), ship(A, "CA-1", X), ship(A, "CV-2", X)]
    assert submarines.choose_target(ships, ("CV", "BB", "CA")).uid == "CV-2"
    assert submarines.choose_target(ships, ("DD",)).uid == "DD-1"


def _allied_game(subs: dict[str, dict[str, Any]], units: list[Unit]) -> Game:
    s = sub_state(units, subs, round=1)  # A-3-4: Allied naval movement
    return Game(s)


def test_sub_c_ship_entering_a_sub_hex_is_attacked_at_once() -> None:
    start = RING[0]
    g = _allied_game({"SUB-1": on(X, True, 2)}, [ship(A, "CA-1", start)])
    g.play({A: f"MOVE CA-1 {X:04d}"}, dice=[6] * 20)
    kinds = [e.kind for e in g.events]
    assert "submarine-attack" in kinds and "sub-attack" in kinds
    sub_ev = next(e for e in g.events if e.kind == "sub-attack")
    assert sub_ev.witnesses == (J,) and sub_ev.data["hex"] == f"{X:04d}"
    allied_ev = next(e for e in g.events if e.kind == "submarine-attack")
    assert allied_ev.witnesses == (A,)
    assert "hex" not in allied_ev.data and "SUB-1" not in str(allied_ev.data)
    assert allied_ev.data["fire"]["attack"] == submarines.SUB_SA
    result = allied_ev.data["fire"]["result"]
    ca = g.s.unit(A, "CA-1")
    assert (ca is None) or (ca.damage > 0) == (result not in ("-", "0", "None"))


def test_sub_c_ships_passing_through_are_attacked_and_escorts_reduce() -> None:
    beyond = next(int(n) for n in hexgrid.neighbours(X) if int(n) != RING[0])
    units = [ship(A, "CV-1", RING[0]), ship(A, "DD-1", RING[0])]
    g = _allied_game({"SUB-1": on(X, True, 2), "SUB-2": on(X, True, 2)}, units)
    g.play({A: f"MOVE CV-1 DD-1 {X:04d} {beyond:04d}"}, dice=[6] * 20)
    ev = next(e for e in g.events if e.kind == "sub-attack")
    assert ev.data["reductions"] == {"SUB-1": 2, "SUB-2": 1}  # DD 2 + CV 1, spread
    allied = next(e for e in g.events if e.kind == "submarine-attack")
    assert allied.data["ship"] == "CV-1"  # DEFAULT_SUBTARGET: carriers first
    assert allied.data["fire"]["attack"] == 2 * submarines.SUB_SA - 3


def test_sub_c_subs_not_on_station_do_not_attack() -> None:
    g = _allied_game({"SUB-1": on(X)}, [ship(A, "CA-1", RING[0])])
    g.play({A: f"MOVE CA-1 {X:04d}"})
    assert not [e for e in g.events if "sub" in e.kind]


def test_sub_c_allied_validation_does_not_reveal_subs() -> None:
    text = f"MOVE CA-1 {X:04d}"
    seen = [
        _allied_game(subs, [ship(A, "CA-1", RING[0])]).validate(A, text)
        for subs in ({}, {"SUB-1": on(X, True, 2)})
    ]
    assert seen[0] == seen[1]


# --- GEN.REC.C: the secret log ------------------------------------------------------------


def test_gen_rec_c_one_log_entry_per_sub_per_turn() -> None:
    g = Game(sub_state([], {"SUB-1": on(X), "SUB-2": on(FAR)}))
    g.play({J: f"SUB SUB-1 {RING[0]:04d}\nSTATION SUB-2"})
    log = g.s.extra["sub_log"]
    assert log == [
        {"turn": 1, "sub": "SUB-1", "hex": f"{RING[0]:04d}", "on_station": False},
        {"turn": 1, "sub": "SUB-2", "hex": f"{FAR:04d}", "on_station": True},
    ]
    g.set_round(4)  # J-7-8: the turn's second Japanese naval phase replaces the entry
    g.play({J: f"SUB SUB-1 {X:04d}"})
    assert [e["hex"] for e in g.s.extra["sub_log"] if e["sub"] == "SUB-1"] == [f"{X:04d}"]


def test_sub_gen_allies_have_no_submarines() -> None:
    g = _allied_game({"SUB-1": on(X)}, [ship(A, "CA-1", RING[0])])
    v = g.validate(A, "STATION SUB-1")
    assert v.errors and v.errors[0].rule == "SUB.GEN"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    col=st.integers(min_value=12, max_value=30),
    row=st.integers(min_value=5, max_value=16),
    station=st.booleans(),
    round_=st.integers(min_value=0, max_value=5),
)
def test_gen_rec_c_allied_view_identical_with_or_without_subs(
    col: int, row: int, station: bool, round_: int
) -> None:
    """HID: during play nothing of a sub (not its hex, nor the log) reaches the Allies."""
    h = H(col, row)
    units = [ship(A, "CA-1", RING[0]), ship(J, "CA-2", FAR)]
    plain = make_state(units, round=round_, options={"subs": True})
    secret = replace(
        plain,
        extra={
            "subs": {"SUB-1": on(h, station, 3)},
            "sub_log": [{"turn": 1, "sub": "SUB-1", "hex": f"{h:04d}", "on_station": station}],
        },
    )
    rs = UsnRuleset(load_world(), stub_geo())
    views = [rs.view(s.to_json(), [], A) for s in (plain, secret)]
    assert views[0] == views[1]
    assert rs.order_template(secret.to_json(), A) == rs.order_template(plain.to_json(), A)
    over = replace(secret, round=-1)
    assert rs.view(over.to_json(), [], A)["sub_log"] == secret.extra["sub_log"]  # reveal
    assert rs.view(secret.to_json(), [], J)["subs"][0]["at"] == f"{h:04d}"


def test_sub_b_subs_are_never_attacked_or_engaged() -> None:
    """SUB.B: a sub is no counter, so an Allied ship ending in its hex fights nothing."""
    g = _allied_game({"SUB-1": on(X)}, [ship(A, "CA-1", RING[0])])
    g.play({A: f"MOVE CA-1 {X:04d}"}, dice=[6] * 5)
    assert not [e for e in g.events if e.kind == "surface-engagement"]
    assert g.s.extra["subs"]["SUB-1"]["hex"] == X


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    station=st.booleans(),
    through=st.booleans(),
    die=st.integers(min_value=1, max_value=6),
)
def test_sub_c_gen_rec_c_allied_report_after_an_attack_names_no_sub_nor_its_hex(
    station: bool, through: bool, die: int
) -> None:
    """HID: after adjudication the Allied view never names a sub or the sub's hex
    (unless the Allied ship itself stands there), and carries no sub-* event."""
    beyond = next(int(n) for n in hexgrid.neighbours(X) if int(n) != RING[0])
    g = _allied_game({"SUB-1": on(X, station, 2)}, [ship(A, "CA-1", RING[0])])
    path = f"{X:04d} {beyond:04d}" if through else f"{X:04d}"
    result = g.play({A: f"MOVE CA-1 {path}"}, dice=[die] * 20)
    view = g.rs.view(result.state, result.events, A)
    text = repr(view)
    assert "SUB-1" not in text and "sub_log" not in text and "'subs'" not in text
    assert not [e for e in view["events"] if str(e["kind"]).startswith("sub-")]
    if through:
        assert f"{X:04d}" not in repr(
            [e for e in view["events"] if e["kind"] != "moved"]
        )  # only the Allied ship's own path shows the hex
    attacked = [e for e in view["events"] if e["kind"] == "submarine-attack"]
    assert len(attacked) == (1 if station else 0)
