"""The first Game-Turn of the Coral Sea mini-game, played by mail through the
ruleset API with both sides' orders (MINI.CORAL.*, on the real map and data).

Paths are found on the map with a breadth-first search, so the test follows the
reconstructed map if it is corrected; what it checks is the lifecycle of a turn.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.core.dice import ScriptedDice
from pbem.demo.usn import sea_path  # the ship routes the scripted players use
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import GameState, Unit

J, A = "japanese", "allied"


def unit(s: GameState, side: str, uid: str) -> Unit:
    u = s.unit(side, uid)
    assert u is not None, f"{side} {uid} is not in play"
    return u


def fmt(hexes: list[int]) -> str:
    return " ".join(f"{h:04d}" for h in hexes)


@pytest.fixture(scope="module")
def rs() -> UsnRuleset:
    try:
        return UsnRuleset(load_world(), world_geo())
    except Exception as e:  # pragma: no cover - only while the data is being written
        pytest.fail(f"world data does not load: {e}")


def send(rs: UsnRuleset, state: Any, orders: dict[str, str], rolls: int = 40) -> Any:
    demand = rs.pending(state)
    assert demand is not None
    accepted: dict[str, list[str]] = {}
    for side in demand.sides:
        v = rs.validate(state, side, orders.get(side, ""))
        assert not v.errors, (demand.phase, side, v.errors)
        accepted[side] = list(v.accepted)
    result = rs.adjudicate(state, accepted, ScriptedDice([3] * rolls))
    return result


def test_mini_coral_first_turn_by_mail(rs: UsnRuleset) -> None:
    geo = rs.geo
    state = rs.initial_state("coral-sea", {})
    s = GameState.from_json(state)
    assert (s.turn, s.last_turn) == (1, 2)
    assert unit(s, J, "CV-3").hex == 754 and unit(s, A, "CV-5").hex == 899
    assert unit(s, A, "RGT-1").entrenched  # Port Moresby (659), MINI.CORAL.OB.A

    # setup-J, setup-A (SETUP.JFIRST): nothing placed, the default set-up stands.
    for phase in ("setup-J", "setup-A"):
        d = rs.pending(state)
        assert d is not None and d.phase == phase
        state = send(rs, state, {}).state
    assert GameState.from_json(state).units == s.units

    # J-2: the carriers sail from Truk, the transports load at Rabaul and sail.
    d = rs.pending(state)
    assert d is not None and (d.turn, d.phase, d.sides) == (1, "J-2", (J,))
    assert "MOVE" in rs.order_template(state, J)
    carriers = sea_path(geo, 754, 828, 5)
    convoy = sea_path(geo, 759, 828, 2)
    orders_j2 = "\n".join(
        [
            "# Japanese orders, Game-Turn 1",
            f"MOVE CV-3 CV-4 CA-1 CA-2 {fmt(carriers)}",
            "EMBARK TR-1 RGT-2 SNLF-1",
            "EMBARK TR-2 ENG-1",
            f"CONTINUE TR-1 {fmt(convoy)}",
            "CONTINUE TR-2 0760",
            "STANDING SURFACE FLEE",
        ]
    )
    r = send(rs, state, {J: orders_j2})
    state = r.state
    s = GameState.from_json(state)
    assert unit(s, J, "CV-3").hex == carriers[-1]
    assert unit(s, J, "ENG-1").carried_by == "TR-2"
    cargo_events = [e for e in r.events if e.kind == "embarked"]
    assert cargo_events and all(e.witnesses == (J,) for e in cargo_events)  # NM.TRANS.HIDDEN
    allied_view = rs.view(state, r.events, A)
    assert not any(ev["kind"] == "embarked" for ev in allied_view["events"])
    assert not any(u["id"] == "ENG-1" for u in allied_view["enemy_units"])

    # A-3-4: the Allied carriers come north from Noumea.
    d = rs.pending(state)
    assert d is not None and d.phase == "A-3-4" and d.sides == (A,)
    task_force = sea_path(geo, 899, 828, 4)
    r = send(
        rs,
        state,
        {A: f"MOVE CV-5 CV-2 CA-1 DD-1 {fmt(task_force)}\nSTACK {task_force[-1]:04d} CA-1 DD-1"},
    )
    state = r.state
    assert unit(GameState.from_json(state), A, "CV-5").hex == task_force[-1]

    # air-5: both sides plot at once (sealed).
    d = rs.pending(state)
    assert d is not None and d.phase == "air-5" and set(d.sides) == {J, A}
    r = send(rs, state, {J: "CAP 4 NAC CV-3", A: "CAP 4 NAC CV-5"})
    state = r.state
    # SEQ.5L: with no strike to meet, the CAP lands back on its own carriers.
    assert not any(e.kind == "combat-deferred" for e in r.events)
    assert any(e.kind == "air-returned" and e.data["landed"] == {"CV-3": 4} for e in r.events)

    # A-6 and J-7-8: TR-1 sails on for Guadalcanal; the engineer lands on Bougainville.
    r = send(rs, state, {A: "BASE CA-2"})
    state = r.state
    s = GameState.from_json(state)
    tr1 = unit(s, J, "TR-1")
    assert tr1 is not None and tr1.hex == convoy[-1] and unit(s, J, "TR-2").hex == 760
    onward = sea_path(geo, convoy[-1], 828, 2)
    r = send(rs, state, {J: f"MOVE TR-1 {fmt(onward)}\nDEBARK TR-2 ENG-1"})
    state = r.state
    s = GameState.from_json(state)
    assert unit(s, J, "ENG-1").hex == 760 and unit(s, J, "TR-1").hex == onward[-1]
    debarked = [e for e in r.events if e.kind == "debarked"]
    assert debarked and debarked[0].witnesses is None  # the landing is seen by both

    # air-9, then step 10: the turn ends and Game-Turn 2 begins with the Japanese.
    r = send(rs, state, {J: "", A: ""})
    state = r.state
    assert any(e.kind == "turn-end" and e.rule == "SEQ.10" for e in r.events)
    d = rs.pending(state)
    assert d is not None and (d.turn, d.phase) == (2, "J-2")
    assert rs.outcome(state) is None
    assert GameState.from_json(state).standing[J] == ("STANDING SURFACE FLEE",)


def test_unit_nav_types_unit_tr_types_def_strengths_counters_copied_into_the_state(
    rs: UsnRuleset,
) -> None:
    from pbem.rulesets.usn.loader import load_world
    from pbem.rulesets.usn.state import NAVAL_TYPES

    cat = load_world().catalogue
    s = GameState.from_json(rs.initial_state("campaign-3", {}))
    cv = unit(s, A, "CV-3")
    c: Any = cat.get(A, "CV-3")
    assert (cv.defense, cv.aa, cv.sa, cv.ma, cv.capacity) == (
        c.defense,
        c.anti_aircraft,
        c.surface_attack,
        c.movement,
        c.air_capacity,
    )
    tr = unit(s, J, "TR-1")
    tr_counter: Any = cat.get(J, "TR-1")
    assert tr.capacity == tr_counter.transport_capacity > 0
    div = next(u for u in s.side_units(J) if u.utype == "DIV")
    assert div.tp == 12 and (div.attack, div.defense) == (20, 40)
    assert {u.utype for u in s.units.values() if u.is_naval} <= NAVAL_TYPES


def test_unit_ab_air_base_capacity_from_the_map(rs: UsnRuleset) -> None:
    s = GameState.from_json(rs.initial_state("coral-sea", {}))
    rabaul = s.bases[759]
    assert rabaul.owner == J and rabaul.air_capacity == rs.geo.bases[759].air_capacity > 0


def test_err_map_0692_mountain_for_land_clear_for_air(rs: UsnRuleset) -> None:
    geo = rs.geo
    assert geo.mountain_land(692, 693)
    assert (692, 693) not in geo.mountains_air
    assert geo.air_distance(692, 693) == 1


@pytest.mark.slow  # the reports draw a map picture per side and round
def test_mini_coral_first_turn_through_the_game_lifecycle(sqlite_url: str, tmp_path: Any) -> None:
    """The same turn through pbem.lifecycle: sealed plots, early adjudication, record."""
    import base64
    import os
    from datetime import UTC, datetime

    from pbem.config import Config, SecretsConfig
    from pbem.intake.signatures import generate_keypair
    from pbem.lifecycle.desk import Desk
    from pbem.lifecycle.games import GameMaster
    from pbem.lifecycle.publishing import Publisher
    from pbem.record import journal
    from pbem.record.chain import verify_chain
    from pbem.rulesets import get
    from pbem.storage.db import create_all, make_engine, make_sessionmaker

    engine = make_engine(sqlite_url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    config = Config(
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()),
        base_dir=tmp_path,
    )
    now = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def run(fn: Any) -> Any:
        with sessions.begin() as s:
            return fn(GameMaster(Desk(s, config, config.secrets.key_bytes(), now), Publisher()))

    def setup(gm: GameMaster) -> None:
        gm.acts.create_game("coral", "usn", "coral-sea", settings={"early_adjudication": True})
        for side, mail in ((J, "yamamoto@example.org"), (A, "nimitz@example.org")):
            gm.acts.assign("coral", side, mail, public_key=generate_keypair(side)[1])
        gm.acts.start("coral")

    run(setup)
    rs = get("usn")
    orders = {
        "setup-J": {J: ""},  # SETUP.JFIRST: the default set-up
        "setup-A": {A: ""},
        "J-2": {J: "EMBARK TR-2 ENG-1\nCONTINUE TR-2 0760\nSTANDING SURFACE FLEE"},
        "A-3-4": {A: "BASE CA-2"},
        "air-5": {J: "CAP 4 NAC CV-3", A: "CAP 4 NAC CV-5"},
        "A-6": {A: ""},
        "J-7-8": {J: "DEBARK TR-2 ENG-1"},
        "air-9": {J: "", A: ""},
    }
    for name, by_side in orders.items():
        phase = run(lambda gm: gm.lookups.open_phase("coral"))
        assert (phase.turn, phase.name) == (1, name)
        state = run(lambda gm, p=phase: gm.lookups.state_of(p))
        for side, text in by_side.items():
            v = rs.validate(state, side, text)
            assert not v.errors, v.errors
            run(
                lambda gm, s=side, p=phase, lines=list(v.accepted): gm.phases.submit(
                    "coral", s, p.turn, p.name, lines
                )
            )
        did = run(lambda gm: gm.clock.tick("coral"))
        assert did and "adjudicated" in did[0]
    phase = run(lambda gm: gm.lookups.open_phase("coral"))
    assert (phase.turn, phase.name) == (2, "J-2")
    state = run(lambda gm, p=phase: gm.lookups.state_of(p))
    assert unit(GameState.from_json(state), J, "ENG-1").hex == 760
    entries = run(lambda gm: journal.entries(gm.desk.session, "coral"))
    assert verify_chain(entries) == []
    engine.dispose()
