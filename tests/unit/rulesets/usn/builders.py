"""Small hand-built U.S.N. worlds for rule tests (not the real map).

``H(c, r)`` is the hex number of 0-based column ``c``, row ``r``. The stub
map is open sea with a few land hexes: a Japanese home island, an Australian
coast (the Allied supply source) and some islands, placed where each test
needs them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from pbem.core.dice import ScriptedDice
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.geo import AUSTRALIA, CHINA, HOME_ISLANDS, Geo
from pbem.rulesets.usn.loader import load_world
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import Air, Base, GameState, Pending, Unit


def H(c: int, r: int) -> int:
    return int(hexgrid.hex_id(c, r))


HOME = [H(2, 2), H(2, 3), H(3, 2)]  # Japanese Home Islands (class 2)
AUS = [H(10, 20), H(11, 20), H(12, 20), H(10, 21), H(11, 21), H(12, 21)]
ISLAND = [H(6, 10), H(6, 11)]  # a class-2 island of two hexes
ATOLL = H(8, 8)  # class 1
CHINA_HEX = H(1, 2)


def stub_geo(
    land: Mapping[int, str] | None = None,
    mountains: Iterable[tuple[int, int]] = (),
    east: Iterable[int] = (),
    boxes: Mapping[int, int] | None = None,
    hexsides: Mapping[tuple[int, int], str] | None = None,
) -> Geo:
    terrain: dict[int, str] = {h: "class2" for h in HOME + AUS + ISLAND}
    terrain[ATOLL] = "class1"
    terrain[CHINA_HEX] = "class2"
    terrain.update(land or {})
    m = frozenset((min(a, b), max(a, b)) for a, b in mountains)
    return Geo(
        terrain=terrain,
        hexsides=dict(hexsides or {}),
        mountains_land=m,
        mountains_air=m,
        regions={
            HOME_ISLANDS: frozenset(HOME),
            AUSTRALIA: frozenset(AUS),
            CHINA: frozenset({CHINA_HEX}),
        },
        edges={
            "east": frozenset(east),
            "west": frozenset(),
            "north": frozenset(),
            "south": frozenset(),
        },
        east_boxes=dict(boxes or {}),
    )


def ship(side: str, uid: str, at: int | None, ma: int = 5, **kw: Any) -> Unit:
    utype = uid.split("-")[0]
    caps = {"CV": 10, "CVL": 5, "TR": 12, "AT": 12, "DD": 4 if side == "japanese" else 2}
    kw.setdefault("capacity", caps.get(utype, 0))
    return Unit(
        uid=uid, side=side, kind="naval", utype=utype, ma=ma, hex=at, defense=5, aa=5, sa=5, **kw
    )


def land(side: str, uid: str, at: int | None, tp: int = 4, **kw: Any) -> Unit:
    utype = uid.split("-")[0]
    kind = "cd" if utype == "CD" else "land"
    kw.setdefault("attack", 8)
    kw.setdefault("defense", 15)
    return Unit(
        uid=uid, side=side, kind=kind, utype=utype, ma=0 if kind == "cd" else 1, hex=at, tp=tp, **kw
    )


def make_state(
    units: Iterable[Unit],
    air: Mapping[str, Mapping[str, Air]] | None = None,
    bases: Iterable[Base] = (),
    round: int = 0,
    turn: int = 1,
    last_turn: int = 2,
    pending: Iterable[Pending] = (),
    **kw: Any,
) -> GameState:
    return GameState(
        scenario="test",
        turn=turn,
        last_turn=last_turn,
        round=round,
        units={u.key: u for u in units},
        air={s: dict(v) for s, v in (air or {}).items()},
        bases={b.hex: b for b in bases},
        pending=tuple(pending),
        **kw,
    )


def base(h: int, owner: str, air: int = 0, naval: bool = True) -> Base:
    return Base(hex=h, owner=owner, air=air > 0, naval=naval, air_capacity=air)


class Game:
    """Drives a state through the ruleset API with scripted dice."""

    def __init__(self, state: GameState, geo: Geo | None = None) -> None:
        self.rs = UsnRuleset(load_world(), geo or stub_geo())
        self.state: dict[str, Any] = state.to_json()
        self.events: list[Any] = []

    @property
    def s(self) -> GameState:
        return GameState.from_json(self.state)

    def validate(self, side: str, text: str) -> Any:
        return self.rs.validate(self.state, side, text)

    def play(self, orders: Mapping[str, str], dice: Iterable[int] = (6,) * 50) -> Any:
        accepted = {}
        for side, text in orders.items():
            v = self.rs.validate(self.state, side, text)
            assert not v.errors, v.errors
            accepted[side] = list(v.accepted)
        result = self.rs.adjudicate(self.state, accepted, ScriptedDice(list(dice)))
        self.state = dict(result.state)
        self.events = list(result.events)
        return result

    def unit(self, side: str, uid: str) -> Unit:
        u = self.s.unit(side, uid)
        assert u is not None
        return u

    def set_round(self, key_index: int) -> None:
        self.state = replace(self.s, round=key_index).to_json()
