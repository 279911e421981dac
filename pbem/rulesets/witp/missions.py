"""Mission cards (16.3, 17.x): one card a TF a Naval Phase, its missions in order.

Each order line names a TF and one thing on its card (docs/witp-orders.md)::

    TF3 SPEED 2                          16.0, 17.13.1: speed class at sortie or after fuelling
    TF3 MOVE E2318 [VIA E2016 E2117] EV 4   17.13, 17.16.5: to a hex (or a place), shortest sea route
    TF3 NIGHT AFTER 2                    16.6: night from the 2nd hex entered (0: on leaving)
    TF3 FUEL FROM TF4                    17.9: from TF4's oilers, where TF3 then is
    TF3 REGP TF6 SHIPS Sims, Neosho      17.11: ships to TF6 (a free marker forms a new TF)
    TF3 REGP DUMMY TF9                   17.11, 13.6: a dummy marker where TF3 then is
    TF3 LINK TF2                         17.10: TF3 moves with TF2, as one TF
    TF3 TRAN E2318                       17.8: to a friendly hex and transport (no ground units yet)
    TF3 PORT                             18.4.1: end in the port where its move ends, to deactivate

Lines are judged from the side's knowledge alone (its TF Display and the public
charts and map): nothing an answer says depends on the enemy. A card is kept in
its TF's ``mission`` (taskforces.py; its values: missioncards.py) and carried out by
movement.py.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.rulesets.witp import dummies, fuel
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.hexgrid import HexId, parse_hex
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.missioncards import (
    Fuelling,
    MissionCard,
    MissionCode,
    Move,
    Regroup,
)

EV_TABLE = "tables/mission-engagement-values"
LIMITS = "tables/mission-limits"
CHIT_CLASSES = "tables/search-chit-reporting"
TRANSPORTS = frozenset({"APA", "APB", "MSU", "APD", "DET", "AV", "CVS"})  # 17.8
OILER = "AO"  # 17.9: ships at sea take fuel from AOs only
START_KEY = "scenario/map-start"


class SeaMap(Protocol):
    """What mission cards need of the theatre map (map.TheatreMap)."""

    def on_map(self, h: str) -> bool: ...
    def has_water(self, h: str) -> bool: ...
    def place(self, name: str) -> HexId: ...
    def neighbours(self, h: str) -> tuple[HexId, ...]: ...
    def can_sail(self, a: str, b: str) -> bool: ...
    def naval_cost(self, h: str) -> int: ...
    def bases_in(self, h: str) -> tuple[Any, ...]: ...


def sea_route(m: SeaMap, a: str, b: str, limit: int = 60) -> list[str] | None:
    """The hexes entered on the shortest sea route from ``a`` to ``b`` (fewest hexes;
    ties broken by the map's neighbour order, so a plot reads the same every time)."""
    if a == b:
        return []
    back: dict[str, str] = {a: a}
    todo: deque[tuple[str, int]] = deque([(a, 0)])
    while todo:
        h, d = todo.popleft()
        if d >= limit:
            continue
        for n in m.neighbours(h):
            if n not in back and m.can_sail(h, n):
                back[n] = h
                if n == b:
                    out = [str(n)]
                    while back[out[-1]] != a:
                        out.append(back[out[-1]])
                    return out[::-1]
                todo.append((n, d + 1))
    return None


@dataclass(frozen=True)
class Context:
    """What a side's lines are judged against: its knowledge (its own part and the
    public charts) and the map."""

    knowledge: Knowledge
    sea: SeaMap
    phase: str = ""  # the pending round's phase key: "naval1", ...
    # The order form spells out the order words (syntax) only on Game-Turn 1's forms,
    # a side's first of each kind; later forms point to them and to the player's docs.
    words: bool = True

    @property
    def side(self) -> str:
        return str(self.knowledge.side)

    @property
    def pack(self) -> tfs.Pack:
        return self.knowledge.pack

    @property
    def fleet(self) -> tfs.Fleet:
        """The side's TF Display and ships."""
        return tfs.fleet(self.knowledge, self.side)

    def chart(self, key: str) -> Any:
        return tfs.value(self.pack, key)

    def tf(self, word: str) -> str:
        tf = tfs.tf_id(word)
        limit = int(self.chart(tfs.MARKERS))
        if tf is None or tfs.marker_number(tf) > limit:
            raise OrderSyntaxError(f"{word!r} is not a TF marker (TF1-TF{limit})", rule="16.1.1")
        return tf

    def own_tf(self, word: str, rule: str = "16.2") -> str:
        tf = self.tf(word)
        if tf not in tfs.task_forces(self.knowledge, self.side):
            raise IllegalOrderError(f"{tf} is not one of your task forces", rule=rule)
        return tf

    def hex(self, word: str) -> str:
        try:
            h = str(parse_hex(word))
        except ValueError:
            try:
                h = str(self.sea.place(word.replace("_", " ")))
            except KeyError:
                raise OrderSyntaxError(
                    f"{word!r} is neither a hex (E2318) nor a place on the map", rule="2.1.1"
                ) from None
        if not self.sea.on_map(h) or not self.sea.has_water(h):
            raise IllegalOrderError(f"{h} is not a hex a TF may enter", rule="17.13.7")
        return h

    def task_force(self, tf: str) -> tfs.TaskForce:
        return tfs.task_force(self.knowledge, self.side, tf)

    def ship(self, name: str) -> tfs.Ship:
        return tfs.ship(self.knowledge, self.side, name)

    def ev_bounds(self) -> tuple[int, int]:
        move = self.chart(EV_TABLE)["MOVE"]
        return int(move["ev_min"]), int(move["ev_max"])

    def noncombatants(self) -> frozenset[str]:
        """16.4.7: carriers, merchant shipping and transports (and oilers)."""
        classes = self.chart(CHIT_CLASSES)["classes"]
        return frozenset(classes["carrier"]) | frozenset(classes["transport"]) | {OILER}

    def owner_of_port(self, h: str) -> str | None:
        item = self.pack.get(START_KEY)
        start = "may1942" if item is None else str(item.value)
        for base in self.sea.bases_in(h):
            if base.port is not None:
                return base.owner_at(start)  # type: ignore[no-any-return]
        return None

    def port_name(self, h: str) -> str | None:
        for base in self.sea.bases_in(h):
            if base.port is not None:
                return str(base.name)
        return None


def _ev(words: Sequence[str], ctx: Context) -> int:
    if len(words) != 2 or words[0].upper() != "EV" or not words[1].isdigit():
        raise OrderSyntaxError("MOVE ends with EV and a number, e.g. EV 4", rule="17.16.5")
    low, high = ctx.ev_bounds()
    ev = int(words[1])
    if not low <= ev <= high:
        raise IllegalOrderError(f"a MOVE mission's EV is {low}-{high}, not {ev}", rule="17.16.5")
    return ev


def _leg(ctx: Context, card: MissionCard, goal: str, via: Sequence[str]) -> list[HexId]:
    route: list[HexId] = []
    here = card.at
    for h in [*via, goal]:
        part = sea_route(ctx.sea, here, h)
        if part is None:
            raise IllegalOrderError(f"no sea route from {here} to {h}", rule="17.13.7")
        route += [HexId(x) for x in part]
        here = HexId(h)
    return route


def _spend(ctx: Context, card: MissionCard, mp: int, what: str) -> int:
    """The card's MP once ``mp`` more are spent; refused past its allowance."""
    limit = tfs.allowance(ctx.pack, card.speed)
    if card.mp + mp > limit:
        raise IllegalOrderError(
            f"{what} needs {mp} MP but {card.tf} has {limit - card.mp} of its {limit} left "
            f"at {card.speed}",
            rule="17.13.4",
        )
    return card.mp + mp


def add_move(
    ctx: Context, card: MissionCard, args: Sequence[str], *, mission: str = "MOVE"
) -> MissionCard:
    """17.13: MOVE <hex> [VIA <hex> ...] EV <n>; TRAN <hex> (EV 1, 17.8)."""
    if not args:
        raise OrderSyntaxError(f"{mission} needs a destination hex", rule="17.13")
    if mission == "MOVE":
        if "EV" not in [a.upper() for a in args]:
            raise OrderSyntaxError("MOVE ends with EV and a number, e.g. EV 4", rule="17.16.5")
        cut = [a.upper() for a in args].index("EV")
        ev = _ev(args[cut:], ctx)
        args = args[:cut]
    else:
        ev = int(ctx.chart(EV_TABLE)[mission]["ev"])
    goal, rest = ctx.hex(args[0]), list(args[1:])
    via: list[str] = []
    if rest:
        if rest[0].upper() != "VIA" or len(rest) == 1:
            raise OrderSyntaxError("after the destination: VIA and the hexes to pass", rule="17.13")
        via = [ctx.hex(w) for w in rest[1:]]
    tf = ctx.task_force(card.tf)
    types = tfs.types_of(ctx.fleet, tf)
    cap = int(ctx.chart(LIMITS)["noncombatant_max_ev"])
    if ev > cap and ctx.noncombatants() & set(types):
        raise IllegalOrderError(
            f"{card.tf} holds non-combatants ({', '.join(sorted(ctx.noncombatants() & set(types)))}): "
            f"its EV may not exceed {cap}",
            rule="16.4.7",
        )
    if tf.unsupplied and ev > 0:
        raise IllegalOrderError(f"{card.tf} is unsupplied: no combat mission (EV 0)", rule="18.3")
    route = _leg(ctx, card, goal, via)
    costs = tuple(ctx.sea.naval_cost(h) for h in route)  # 17.13.3
    mp = _spend(ctx, card, sum(costs), f"the move to {goal}")
    move = Move(MissionCode(mission), HexId(goal), tuple(route), costs, ev)
    return card.adding(move, mp=mp, path=(*card.path, *route))


def add_fuel(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    """17.9: FUEL [<hex>] FROM TFn, where the TF is at that point of its card."""
    words = list(args)
    if words and words[0].upper() != "FROM":
        h = ctx.hex(words.pop(0))
        if h != card.at:
            raise IllegalOrderError(
                f"{card.tf} is plotted to be in {card.at}, not {h}, when it fuels", rule="17.9.1"
            )
    if len(words) != 2 or words[0].upper() != "FROM":
        raise OrderSyntaxError("FUEL FROM and the oilers' TF, e.g. FUEL FROM TF4", rule="17.9.1")
    source = ctx.own_tf(words[1], rule="17.9")
    if OILER not in tfs.types_of(ctx.fleet, ctx.task_force(source)):
        raise IllegalOrderError(
            f"{source} has no oiler (AO): ships fuel at sea from AOs only", rule="17.9"
        )
    if ctx.task_force(card.tf).dummy:
        raise IllegalOrderError(f"{card.tf} is a dummy: it needs no fuel", rule="13.6.1")
    mp, points = fuel.cost(ctx.pack, [ctx.ship(s) for s in ctx.task_force(card.tf).ships], ctx.side)
    spent = _spend(ctx, card, mp, f"fuelling {points:g} activation points")
    return card.adding(Fuelling(card.at, source, mp), mp=spent)


def add_regp(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    """17.11: REGP TFn SHIPS a, b ...; REGP DUMMY TFn."""
    words = list(args)
    if len(words) == 2 and words[0].upper() == "DUMMY":
        dummy = ctx.tf(words[1])
        if dummy in tfs.task_forces(ctx.knowledge, ctx.side):
            raise IllegalOrderError(
                f"{dummy} is in use: a dummy takes a free marker", rule="16.1.1"
            )
        allot = dummies.allotment(ctx.knowledge, ctx.side)
        if allot is not None and allot.left <= 0:
            raise IllegalOrderError(
                "no dummy sortie is left in this cycle's allotment", rule="13.6"
            )
        return card.adding(Regroup(card.at, dummy=dummy))
    if len(words) < 3 or words[1].upper() != "SHIPS":
        raise OrderSyntaxError(
            "REGP TFn SHIPS <names, comma separated>, or REGP DUMMY TFn", rule="17.11"
        )
    to = ctx.tf(words[0])
    if to == card.tf:
        raise IllegalOrderError(f"{card.tf} cannot regroup into itself", rule="17.11")
    names = [n.strip() for n in " ".join(words[2:]).split(",") if n.strip()]
    mine = {s.lower(): s for s in ctx.task_force(card.tf).ships}
    moved = []
    for n in names:
        if n.lower() not in mine:
            raise IllegalOrderError(f"{n} is not in {card.tf}", rule="17.11")
        moved.append(mine[n.lower()])
    return card.adding(Regroup(card.at, to=to, ships=tuple(moved)))


def add_tran(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    """17.8: TRAN <hex>: move there (EV 1) and transport into a friendly hex."""
    types = set(tfs.types_of(ctx.fleet, ctx.task_force(card.tf)))
    if not types & TRANSPORTS:
        raise IllegalOrderError(
            f"{card.tf} has no transport ship ({', '.join(sorted(TRANSPORTS))})", rule="17.8"
        )
    if len(args) != 1:
        raise OrderSyntaxError("TRAN and the hex to transport to, e.g. TRAN E2318", rule="17.8")
    goal = ctx.hex(args[0])
    owner = ctx.owner_of_port(goal)
    if owner is not None and owner != ctx.side:
        raise IllegalOrderError(
            f"{goal} is enemy-held: landing there is an amphibious assault (AMPH)", rule="17.8"
        )
    return add_move(ctx, card, [goal], mission="TRAN")


def add_night(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    """16.6: NIGHT AFTER <n>: night from the n-th hex entered (0: on leaving)."""
    if len(args) != 2 or args[0].upper() != "AFTER" or not args[1].isdigit():
        raise OrderSyntaxError("NIGHT AFTER and a number of hexes, e.g. NIGHT AFTER 3", rule="16.6")
    if card.night_after is not None:
        raise IllegalOrderError("night is declared once a TF a Naval Phase", rule="16.6.5")
    return replace(card, night_after=int(args[1]))


def finish(ctx: Context, card: MissionCard) -> None:
    """Checks a card can only pass once it is whole."""
    if card.night_after is not None and card.night_after > len(card.path):
        raise IllegalOrderError(
            f"{card.tf} enters {len(card.path)} hexes: night cannot start after {card.night_after}",
            rule="16.6",
        )
    if card.port:
        owner = ctx.owner_of_port(card.at)
        if owner != ctx.side:
            raise IllegalOrderError(f"{card.at} holds no port of yours", rule="18.4.1")
