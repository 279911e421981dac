"""The working state of one mail round.

Every rule module judges an order against ``Work`` and either applies it or
raises ``IllegalOrderError`` (pbem.core.errors) with the rule broken. The same
``Work`` serves validation (one side's orders on a copy) and adjudication, so what
a player is told at validation is what happens. This module sits below every rule
module: it imports the state, the map and the supply trace, and nothing that
imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, Side, enemy_of
from pbem.rulesets.usn import fog, hexgrid
from pbem.rulesets.usn.geo import Geo, distance_field
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.state import Air, Base, GameState, Pending, Unit, unit_key
from pbem.rulesets.usn.supply import Immune, SupplyMap, never, supply_map, update_supply

MOV_N_RADIUS = 5  # MOV.N: enemy bases, engineers and ships
MOV_N_LBAC_RADIUS = 6  # MOV.N: Allied LBAC, against Japanese ships


@dataclass(slots=True)
class Work:
    """A mutable working copy of the state for one round's adjudication."""

    geo: Geo
    state: GameState
    side: Side = JAPANESE
    step: int = 0
    events: list[Event] = field(default_factory=list)
    units: dict[str, Unit] = field(default_factory=dict)
    air: dict[str, dict[str, Air]] = field(default_factory=dict)
    bases: dict[int, Base] = field(default_factory=dict)
    spent: dict[str, int] = field(default_factory=dict)  # MP used this phase
    doubled_ok: dict[str, bool] = field(default_factory=dict)  # MOV.N still possible
    moved: set[str] = field(default_factory=set)
    carried: set[str] = field(default_factory=set)  # MOV.K: land units moved by a vehicle
    engaged_at: dict[str, int] = field(default_factory=dict)  # SEQ.2G: unit -> hex
    escaped: set[str] = field(default_factory=set)
    air_ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    _danger: dict[int, int] | None = None
    _known_danger: dict[int, int] | None = None
    _start: GameState | None = None  # the round's opening state: what each side knew
    _enemy_idx: dict[int, list[Unit]] | None = None
    immune: Immune = never  # a scenario's hold on isolated units (the ruleset's hook)

    @classmethod
    def start(cls, geo: Geo, state: GameState) -> Work:
        w = cls(geo=geo, state=state)
        w.units = dict(state.units)
        w.air = {s: dict(v) for s, v in state.air.items()}
        w.bases = dict(state.bases)
        w.escaped = set(state.escaped)
        ranges = state.extra.get("air_ranges", {})
        w.air_ranges = {k: (int(v[0]), int(v[1])) for k, v in ranges.items()}
        w._start = state
        return w

    def set_side(self, side: Side) -> None:
        """The side whose orders are being carried out (the enemy index follows it)."""
        if side != self.side:
            self.side = side
            self._enemy_idx = None
            self._danger = None
            self._known_danger = None

    def begin_phase(self, side: Side, step: int) -> None:
        if "repair_watch" not in self.state.extra:
            # REP.RATE (A16): where the ships stood at the start of the game, the
            # start of its first turn (later Step 10s renew it: bases.repair_ships).
            watch = {u.key: u.where() for u in self.units.values() if u.is_naval}
            self.state = replace(self.state, extra={**self.state.extra, "repair_watch": watch})
        self.side, self.step = side, step
        self.spent.clear()
        self.doubled_ok.clear()
        self.moved.clear()
        self.carried.clear()
        self.engaged_at.clear()
        self.escaped.clear()
        self._danger = None
        self._known_danger = None
        self._enemy_idx = None
        self.refresh_supply()

    def snapshot(self) -> GameState:
        return replace(
            self.state,
            units=dict(self.units),
            air={s: dict(v) for s, v in self.air.items()},
            bases=dict(self.bases),
            escaped=tuple(sorted(self.escaped)),
        )

    # --- lookups -------------------------------------------------------
    def own(self, uid: str) -> Unit:
        u = self.units.get(unit_key(self.side, uid))
        if u is None:
            raise IllegalOrderError(f"{uid} is not one of your units", rule="UNIT.SELECT")
        return u

    def put(self, u: Unit) -> None:
        self.units[u.key] = u
        if u.side != self.side:
            self._enemy_idx = None

    def remove(self, u: Unit) -> None:
        self.units.pop(u.key, None)
        if u.side != self.side:
            self._enemy_idx = None

    def air_at(self, side: Side, loc: Location) -> Air:
        return self.air.get(side, {}).get(loc, Air())

    def set_air(self, side: Side, loc: Location, a: Air) -> None:
        mine = self.air.setdefault(side, {})
        if a.total == 0 and a.nac_new == 0:
            mine.pop(loc, None)
        else:
            mine[loc] = a

    def enemy_units_at(self, h: int) -> list[Unit]:
        if self._enemy_idx is None:
            enemy = enemy_of(self.side)
            idx: dict[int, list[Unit]] = {}
            for u in self.units.values():
                if u.side == enemy and u.hex is not None:
                    idx.setdefault(u.hex, []).append(u)
            self._enemy_idx = idx
        return list(self._enemy_idx.get(h, ()))

    def enemy_ships_at_sea(self, h: int) -> list[Unit]:
        """Enemy ships that a ship entering ``h`` must engage (STK.D, BASE.L)."""
        return [
            u
            for u in self.enemy_units_at(h)
            if u.is_naval and not u.in_base and u.key not in self.escaped
        ]

    def own_base(self, h: int) -> Base | None:
        b = self.bases.get(h)
        return b if b is not None and b.owner == self.side else None

    def supply(self, side: Side) -> SupplyMap:
        """The side's supply lines as the state stands now (ZOC.INSTANT); traced again
        only when what blocks them has changed (supply.traced)."""
        return supply_map(self.geo, self.snapshot(), side)

    def refresh_supply(self, *, turn_over: bool = False) -> None:
        """ZOC.INSTANT, SUP.E: every land unit's and base's supply as the state
        stands (supply.update_supply); ``turn_over`` at step 10."""
        snap = self.snapshot()
        new = update_supply(self.geo, snap, turn_over=turn_over, immune=self.immune)
        for key, u in new.units.items():
            if u is not snap.units[key]:
                self.put(u)
        self.bases.update((h, b) for h, b in new.bases.items() if b is not snap.bases[h])
        if new.extra is not snap.extra:  # step 10 ends the set-up's supply (SETUP.SUPPLY)
            self.state = replace(self.state, extra=new.extra)

    def event(
        self, kind: str, rule: str, witnesses: tuple[str, ...] | None = None, **data: Any
    ) -> None:
        self.events.append(Event(kind, data, witnesses, rule))

    # --- MOV.N ---------------------------------------------------------
    def danger(self) -> dict[int, int]:
        """Hexes where the moving side may not use double speed (value unused)."""
        if self._danger is None:
            self._danger = _danger(self.side, self.units, self.bases, self.air)
        return self._danger

    def known_danger(self) -> dict[int, int]:
        """``danger`` as the moving side knew it when the round opened (fog.knowledge):
        the part its orders were validated against. Without fog it is ``danger``."""
        if self._start is None or fog.mode_of(self._start) != "double-blind":
            return self.danger()
        if self._known_danger is None:
            k = fog.knowledge(self._start, self.side)
            self._known_danger = _danger(self.side, k.units, k.bases, k.air)
        return self._known_danger

    def out_of_sight(self, h: int) -> bool:
        """Double-blind: ``h`` was outside the moving side's sight when the round
        opened, so its orders could not be judged on what is there (fog.py)."""
        if self._start is None or fog.mode_of(self._start) != "double-blind":
            return False
        return h not in fog.detection_hexes(self._start, self.side)


def _danger(
    side: Side,
    units: Mapping[str, Unit],
    bases: Mapping[int, Base],
    air: Mapping[str, Mapping[str, Air]],
) -> dict[int, int]:
    """MOV.N: hexes within reach of enemy bases, engineers, ships (and, against the
    Japanese, Allied LBAC)."""
    enemy = enemy_of(side)
    near: set[int] = set()
    for h, b in bases.items():
        if b.owner == enemy and (b.has_air or b.has_naval):
            near.add(h)
    for u in units.values():
        if u.side == enemy and u.hex is not None and (u.is_naval or u.utype == "ENG"):
            near.add(u.hex)
    field5 = distance_field(near, MOV_N_RADIUS)
    if side == JAPANESE:
        lbac = [
            lbac_hex
            for loc, a in air.get(ALLIED, {}).items()
            if (lbac_hex := hexgrid.hex_of(loc)) is not None and a.lbac > 0
        ]
        field5.update(distance_field(lbac, MOV_N_LBAC_RADIUS))
    return field5


REPLACED = {"ENG": 5, "AT": 10, "TR": 4}  # RPL.ENG, RPL.AT, RPL.TR


def destroy(w: Work, u: Unit, cause: str, rule: str) -> None:
    """Remove a unit (and what it carries); schedule its replacement (RPL.*)."""
    for c in [x for x in w.units.values() if x.side == u.side and x.carried_by == u.uid]:
        destroy(w, c, f"lost with {u.uid}", rule)
    aboard = w.air_at(u.side, u.uid)
    if aboard.total:
        w.set_air(u.side, u.uid, Air())
        w.event("air-destroyed", rule, None, side=u.side, at=u.uid, points=aboard.total)
    w.remove(u)
    turn = w.state.turn
    pending = w.state.pending
    if u.utype in REPLACED:
        fresh = replace(
            u,
            hex=None,
            box=None,
            carried_by=None,
            damage=0,
            fuel=0,
            refuelled_step=0,
            oiler_full=True,
            in_base=False,
            entrenched=False,
            supplied=True,
            wait=0,
            training=0,
        )
        pending = (*pending, Pending(turn + REPLACED[u.utype], u.side, fresh))
    w.state = replace(
        w.state, destroyed=(*w.state.destroyed, (u.key, turn, cause)), pending=pending
    )
    w.event("destroyed", rule, None, unit=u.uid, side=u.side, cause=cause)
