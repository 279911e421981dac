"""The fog of war: what one U.S.N. side may see, in two modes.

``"open"`` is the rulebook's own game: the map and its counters are open to
both players; hidden are transport cargo (NM.TRANS.HIDDEN, NM.TRANS.AIR, H1),
the submarine log (GEN.REC.C, SUB.*, H2), the other side's air mission
allocations and CAP until they are resolved (SEQ.5E, AMAC.A, AMAC.B: they
only reach a report after adjudication resolved them), standing orders, and
sealed plots (never part of a view). Open records stay open: VP (GEN.REC.A)
and fuel and oiler logs (GEN.REC.B).

``"double-blind"`` (a moderator's option, not the rulebook's) also hides
enemy units unless detected now: in or next to a hex holding one of your
units, inside your air zone of control (ZOC.DEF: two hexes around your air
bases and carriers with air units), or in a hex where they attacked you.
Units seen before and not now are shown at their last-known hex, with the
sighting's age in Game-Turns; ``update_sightings`` keeps that log in the
state (``extra["fog"]``), and the ruleset calls it after each round.

``apply`` takes the open view the ruleset built (views.build_view) and
returns what ``side`` may see; ``knowledge`` returns the state as ``side``
knows it, the one its orders are validated and its order form drawn against,
so an answer can tell it nothing its report does not. Pure: stdlib, pbem.core
and the U.S.N. state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from pbem.core.events import Event
from pbem.core.sides import JAPANESE, SIDES
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.state import Air, Base, GameState, Unit, unit_key
from pbem.rulesets.usn.zoc import zoc_hexes

Mode = Literal["open", "double-blind"]
MODES: tuple[Mode, ...] = ("open", "double-blind")

# Event data fields that hold one hex ("0759") or a list of hexes (a path).
HEX_FIELDS = ("at", "to", "hex", "entry", "from")
PATH_FIELDS = ("path",)
# Fields naming a unit or its owner: events with these are about a unit.
UNIT_FIELDS = ("unit", "transport", "ship", "oiler", "defenders", "units", "order")
# NM.TRANS.HIDDEN / H1: cargo is shown only when it unloads (or is lost with its ship).
CARGO_REVEALED = frozenset({"debarked", "destroyed", "landed", "air-destroyed"})
# Kinds the enemy never learns from a report, whatever their witnesses say.
NEVER_TO_ENEMY = frozenset({"standing-orders", "embarked", "sub-log", "sub-moved", "order-failed"})
SUB_TYPES = frozenset({"SUB"})  # GEN.REC.C: subs are kept on paper, never shown


def mode_of(state: GameState) -> Mode:
    """The game's fog option: ``options["fog"] = "double-blind"`` (default: the rulebook's)."""
    v = state.options.get("fog")
    if v == "double-blind" or state.options.get("double_blind") is True:
        return "double-blind"
    return "open"


def detection_hexes(state: GameState, side: str, events: Sequence[Event] = ()) -> frozenset[int]:
    """Hexes where ``side`` sees enemy units in double-blind mode."""
    seen: set[int] = set()
    for u in state.side_units(side):
        if u.hex is not None:
            seen.update(hexgrid.within(u.hex, 1))
    seen.update(zoc_hexes(state, side))
    seen.update(attacked_at(events, side))
    seen.update(struck_at(events, side))
    return frozenset(h for h in seen if hexgrid.on_map(h))


def struck_at(events: Iterable[Event], side: str) -> set[int]:
    """Hexes ``side``'s air strikes attacked this round: its fliers saw what they hit
    (a strike that found nothing has its own event, strike-found-nothing)."""
    out: set[int] = set()
    for e in events:
        if e.kind == "air-strike" and e.data.get("attacker") == side:
            h = _hex(e.data.get("hex"))
            if h is not None:
                out.add(h)
    return out


def sees_unit(state: GameState, side: str, u: Unit | None) -> bool:
    """Whether ``side`` may know of ``u`` (None: no such unit) when judging an order
    that names it: always in the open game; in double-blind only inside its detection
    hexes, so that a name out of sight and a name of nothing get the same answer."""
    if mode_of(state) != "double-blind":
        return True
    return u is not None and u.hex is not None and u.hex in detection_hexes(state, side)


def attacked_at(events: Iterable[Event], side: str) -> set[int]:
    """Hexes where the enemy attacked ``side`` this round: the attackers are seen."""
    out: set[int] = set()
    for e in events:
        attacker = e.data.get("attacker")
        if attacker is not None and attacker != side and e.seen_by(side):
            h = _hex(e.data.get("hex"))
            if h is not None:
                out.add(h)
    return out


def _hex(value: Any) -> int | None:
    s = str(value)
    return hexgrid.hex_of(s) if len(s) == 4 else None


def update_sightings(state: GameState, events: Sequence[Event] = ()) -> dict[str, Any]:
    """The new ``extra["fog"]`` after a round: each side's last sighting of each
    enemy unit it can see now (unit ID -> hex, Game-Turn, round index)."""
    old = state.extra.get("fog", {}).get("sightings", {})
    sightings: dict[str, dict[str, Any]] = {s: dict(old.get(s, {})) for s in SIDES}
    for side in SIDES:
        seen = detection_hexes(state, side, events)
        for u in state.units.values():
            if u.side != side and u.hex is not None and u.hex in seen and not _hidden_type(u.utype):
                sightings[side][u.uid] = {
                    "at": hexgrid.fmt(u.hex),
                    "turn": state.turn,
                    "type": u.utype,
                }
    return {**state.extra.get("fog", {}), "sightings": sightings}


def _hidden_type(utype: str) -> bool:
    return utype in SUB_TYPES


def _enemy_event(e: Mapping[str, Any], side: str) -> bool:
    """Is this event about the other side's doings (or of unknown owner)?"""
    if e.get("witnesses") == [side]:
        return False  # told to you alone: about your own doings
    d: Mapping[str, Any] = e.get("data", {})
    owner = d.get("side", d.get("by", d.get("attacker")))
    return bool(owner != side)


def _open_event(e: Mapping[str, Any], side: str) -> Mapping[str, Any] | None:
    """Both modes: drop or trim what the rules hide from the enemy."""
    if not _enemy_event(e, side):
        return e
    kind = e.get("kind", "")
    d = e.get("data", {})
    if kind in NEVER_TO_ENEMY or str(d.get("type", "")) in SUB_TYPES:
        return None
    if "cargo" in d and kind not in CARGO_REVEALED:
        d = {k: v for k, v in d.items() if k != "cargo"}
        return {**e, "data": d}
    return e


def _blind_event(
    e: Mapping[str, Any], side: str, seen: frozenset[int], visible_ids: set[str]
) -> Mapping[str, Any] | None:
    """Double-blind: an enemy event shows only its hexes inside ``seen``."""
    if not _enemy_event(e, side):
        return e
    d = dict(e.get("data", {}))
    if d.get("attacker") not in (None, side) and _hex(d.get("hex")) in seen:
        return e  # they attacked you: you saw them
    shown = False
    hexy = False
    for k in HEX_FIELDS:
        if k in d and _hex(d[k]) is not None:
            hexy = True
            if _hex(d[k]) in seen:
                shown = True
            else:
                d[k] = "out of sight"
    for k in PATH_FIELDS:
        if isinstance(d.get(k), list):
            hexy = True
            kept = [p for p in d[k] if _hex(p) in seen]
            shown = shown or bool(kept)
            d[k] = kept
    about_unit = any(k in d for k in UNIT_FIELDS) or "points" in d
    if hexy:
        return {**e, "data": d} if shown else None
    if about_unit:
        # No hex to judge by: shown only when it names a unit you see now.
        return e if str(d.get("unit")) in visible_ids else None
    return e  # e.g. "turn-end": nothing about any unit


def _blind_base(b: Mapping[str, Any], side: str, seen: frozenset[int]) -> dict[str, Any]:
    """An enemy base out of sight: its place and owner are on the map, its state is not."""
    if b.get("owner") == side or _hex(b.get("hex")) in seen:
        return dict(b)
    return {**b, "air_capacity": None, "neutralized": None}


def apply(
    view: Mapping[str, Any],
    state: GameState,
    events: Sequence[Event],
    side: str | None,
    mode: Mode = "open",
) -> dict[str, Any]:
    """What ``side`` may see of ``view`` (the ruleset's open view); None: everything."""
    out = dict(view)
    out["vp"] = {s: state.vp.get(s, 0) for s in SIDES}  # GEN.REC.A: open
    if side is None:
        out["fog"] = {"mode": mode, "last_known": []}
        return out
    enemy = [
        u
        for u in view.get("enemy_units", [])
        if not _hidden_type(str(u.get("type"))) and not u.get("aboard")
    ]
    if _covered_cargo(state, side):  # NM.TRANS.HIDDEN: still shown ashore (docs/usn-fog.md)
        enemy = sorted(enemy + _covered_cargo(state, side), key=lambda u: (u["side"], u["id"]))
    evs = [x for x in (_open_event(e, side) for e in view.get("events", [])) if x is not None]
    air = {s: dict(locs) for s, locs in view.get("air", {}).items()}
    last_known: list[dict[str, Any]] = []
    if mode == "double-blind":
        seen = detection_hexes(state, side, events)
        enemy = [u for u in enemy if _hex(u.get("at")) in seen]
        visible = {str(u.get("id")) for u in enemy}
        evs = [x for x in (_blind_event(e, side, seen, visible) for e in evs) if x is not None]
        for s in air:
            if s != side:
                air[s] = {
                    loc: pts
                    for loc, pts in air[s].items()
                    if hexgrid.hex_of(loc) in seen or loc in visible
                }
        sightings = state.extra.get("fog", {}).get("sightings", {}).get(side, {})
        for uid, sighting in sorted(sightings.items()):
            if uid in visible:
                continue
            last_known.append(
                {
                    "id": uid,
                    "type": sighting.get("type", "?"),
                    "at": sighting["at"],
                    "seen_turn": sighting["turn"],
                    "age": state.turn - int(sighting["turn"]),
                }
            )
        out["bases"] = [_blind_base(b, side, seen) for b in view.get("bases", [])]
    out["enemy_units"] = enemy
    out["events"] = evs
    out["air"] = air
    out["fog"] = {"mode": mode, "last_known": last_known}
    return out


# State extras about the Japanese submarines (GEN.REC.C): the Allies never know them.
SUB_EXTRAS = ("subs", "sub_log", "subs_moved")
# State extras holding both sides' flights and plans mid-phase: the other side's
# allocations are hidden until resolved (SEQ.5E, AMAC.A).
SIDED_EXTRAS = ("aloft",)
UNSEEN_BASE_CAPACITY = 1  # double-blind: an enemy air base out of sight is assumed usable


def knowledge(state: GameState, side: str) -> GameState:
    """The game as ``side`` knows it: every enemy unit, air point, base state and
    plan that its view does not show is taken out or set to a value that depends
    on nothing hidden. Orders are validated against this state, so a refusal or
    an order form can never tell a side what the rules hide; what a
    hidden fact does to an accepted order is learnt at adjudication."""
    mode = mode_of(state)
    seen = detection_hexes(state, side) if mode == "double-blind" else None
    units = {
        k: u if u.side == side else _known_unit(u)
        for k, u in state.units.items()
        if _knows_unit(u, side, seen)
    }
    units.update(_covered_ashore(state, side, seen))
    air = {
        s: {
            loc: a if s == side else _known_air(state, s, loc, a)
            for loc, a in locs.items()
            if s == side or _knows_air(state, s, loc, units, seen)
        }
        for s, locs in state.air.items()
    }
    bases = {h: _known_base(b, side, seen) for h, b in state.bases.items()}
    extra = {k: v for k, v in state.extra.items() if k != "fog"}
    if side != JAPANESE:
        extra = {k: v for k, v in extra.items() if k not in SUB_EXTRAS}
    for k in SIDED_EXTRAS:
        if isinstance(extra.get(k), list):
            extra[k] = [f for f in extra[k] if isinstance(f, Mapping) and f.get("side") == side]
    return replace(
        state,
        units=units,
        air=air,
        bases=bases,
        standing={side: state.standing[side]} if side in state.standing else {},
        pending=tuple(p for p in state.pending if p.side == side),
        extra=extra,
    )


def _covered_ashore(state: GameState, side: str, seen: frozenset[int] | None) -> dict[str, Unit]:
    """Covered cargo (H1) is known where the report shows it: still ashore in the
    hex it embarked from, so an order aimed at it is judged at adjudication."""
    return {
        key: _known_unit(u)
        for key, u in covered_ashore(state.extra, state.units).items()
        if u.side != side and (seen is None or u.hex in seen)
    }


def covered_ashore(extra: Mapping[str, Any], units: Mapping[str, Unit]) -> dict[str, Unit]:
    """NM.TRANS.HIDDEN / H1: each covered unit as the enemy sees it, still ashore in
    the hex it embarked from (entrenched as it was), while its transport is there.

    ``extra`` is the state's, ``units`` the units as they stand now (a round's
    work in progress too: a transport that has sailed uncovers nothing, its cargo
    is simply gone from the quay)."""
    out = {}
    for key, c in extra.get("fog", {}).get("cargo_cover", {}).items():
        u = units.get(key)
        at = _hex(c["at"])
        if u is None or at is None or u.carried_by is None or u.carried_by != c.get("transport"):
            continue
        ship = units.get(unit_key(u.side, u.carried_by))
        if ship is not None and ship.hex == at:
            out[key] = replace(u, hex=at, carried_by=None, entrenched=bool(c["entrenched"]))
    return out


def cover_disentrenched(extra: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``extra`` with the covered unit ``key`` shown no longer entrenched (a land combat
    result took its entrenchment, ENT.D, CRT1.D1): the enemy sees what would befall
    the unit ashore. Unchanged if ``key`` is not covered."""
    memory = extra.get("fog", {})
    cover = memory.get("cargo_cover", {})
    if key not in cover:
        return dict(extra)
    cover = {**cover, key: {**cover[key], "entrenched": False}}
    return {**extra, "fog": {**memory, "cargo_cover": cover}}


def shown_in(extra: Mapping[str, Any], units: Mapping[str, Unit], side: str, h: int) -> list[Unit]:
    """``side``'s units in hex ``h`` as its enemy knows them, covered cargo ashore: what
    an enemy strike or bombardment aimed at ``h`` finds there (docs/usn-fog.md,
    *Strikes and bombardments at cargo in port*)."""
    shown = {**units, **covered_ashore(extra, units)}
    return [u for u in shown.values() if u.side == side and u.hex == h]


def _knows_unit(u: Unit, side: str, seen: frozenset[int] | None) -> bool:
    if u.side == side:
        return True
    if u.carried_by is not None or _hidden_type(u.utype):
        return False  # NM.TRANS.HIDDEN, H1; GEN.REC.C
    if seen is None:
        return True  # the open map: every counter, off-map boxes too
    return u.hex is not None and u.hex in seen


def _known_unit(u: Unit) -> Unit:
    """An enemy counter shows whether it is damaged, not how badly (views._unit_view)."""
    return replace(u, damage=min(u.damage, 1)) if u.damage > 1 else u


def _knows_air(
    state: GameState, s: str, loc: str, units: Mapping[str, Unit], seen: frozenset[int] | None
) -> bool:
    h = hexgrid.hex_of(loc)
    if h is None:  # aboard a ship: only a carrier in sight shows it has air (ZOC.DEF)
        ship = state.unit(s, loc)
        return ship is not None and ship.is_carrier and ship.key in units
    return seen is None or h in seen


def _known_air(state: GameState, s: str, loc: str, a: Air) -> Air:
    """Ruling A13: the air level of an enemy carrier is hidden until combat; that it
    carries aircraft is not (its air zone of control, ZOC.DEF, is on the map)."""
    if hexgrid.hex_of(loc) is None:
        return Air(nac=1) if a.total > 0 else Air()
    return a


def _known_base(b: Base, side: str, seen: frozenset[int] | None) -> Base:
    if seen is None or b.owner == side or b.hex in seen:
        return b
    # Place, owner, kind and naval base are on the map; capacity and neutralisation are not.
    return replace(b, air_capacity=UNSEEN_BASE_CAPACITY if b.air else 0, neutralized_until=0)


def update_cargo_cover(before: GameState, after: GameState) -> dict[str, dict[str, Any]]:
    """NM.TRANS.HIDDEN / H1: land units that went aboard and whose transport is still
    in the hex they embarked from, each as the enemy last saw it ashore there.

    The counter goes face-down under its transport, so while the transport stays
    the enemy cannot tell which units went aboard: they are shown still ashore.
    The cover ends when the transport is elsewhere at a round's end (the cargo is
    then off the map, as face-down cargo is) or the unit leaves the transport."""
    # As the round left it: a land combat may have taken a covered unit's entrenchment.
    old = after.extra.get("fog", before.extra.get("fog", {})).get("cargo_cover", {})
    cover: dict[str, dict[str, Any]] = {}
    for u in after.units.values():
        ship = after.unit(u.side, u.carried_by) if u.carried_by else None
        if u.kind != "land" or ship is None or ship.hex is None:
            continue
        was = before.units.get(u.key)
        if u.key in old and old[u.key].get("transport") == ship.uid:
            entry = old[u.key]  # still covered: as first seen ashore
        elif was is not None and was.carried_by is None and was.hex is not None:
            entry = {
                "at": hexgrid.fmt(was.hex),
                "entrenched": was.entrenched,
                "transport": ship.uid,
            }
        else:
            continue
        if hexgrid.hex_of(str(entry["at"])) == ship.hex:
            cover[u.key] = entry
    return cover


def sight_cover(
    state: GameState,
    events: Sequence[Event],
    memory: Mapping[str, Any],
    cover: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """Double-blind sightings of covered cargo, as if it were still ashore: its last
    sighting ages no faster than its shipmates' on the quay."""
    sightings = {s: dict(v) for s, v in memory.get("sightings", {}).items()}
    for side in SIDES:
        seen = detection_hexes(state, side, events)
        for key, c in cover.items():
            u = state.units.get(key)
            if u is not None and u.side != side and _hex(c["at"]) in seen:
                sightings.setdefault(side, {})[u.uid] = {
                    "at": c["at"],
                    "turn": state.turn,
                    "type": u.utype,
                }
    return {**memory, "sightings": sightings}


def _covered_cargo(state: GameState, side: str) -> list[dict[str, Any]]:
    """The enemy's covered cargo as its counters looked ashore (views._unit_view)."""
    return [
        {"id": u.uid, "side": u.side, "type": u.utype, "at": u.where(), "entrenched": u.entrenched}
        for u in covered_ashore(state.extra, state.units).values()
        if u.side != side
    ]


__all__ = [
    "MODES",
    "Mode",
    "apply",
    "attacked_at",
    "cover_disentrenched",
    "covered_ashore",
    "detection_hexes",
    "knowledge",
    "mode_of",
    "sees_unit",
    "shown_in",
    "sight_cover",
    "struck_at",
    "update_cargo_cover",
    "update_sightings",
]
