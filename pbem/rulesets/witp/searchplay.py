"""Search and contact played through the rounds (13.3-13.8): the hooks play.py calls.

- ``prepare``: once a game, each side's searching land bases (13.0: airfield and
  seaplane base of one hex) from its order of battle, its carriers' air points on
  their ships, and the Allied Coastwatcher Log (13.8.4).
- Standing orders (ruling R50, docs/witp-rulings.md): ``SEARCH``,
  ``DECEPTION`` and ``COASTWATCHERS DELAY`` lines are accepted in a naval Plot
  Segment's mail round (orders.register_line) and kept in the side's private
  ``standing`` until it files others.
- ``before_segment`` / ``after_segment`` around each segment: the round's secret
  stream (draws.take_round_seed), the standing orders filed, the Air Search Segment
  (13.3.1), Located chits at the end of each Air and Naval Phase (13.7.5) and the
  chits' return after an even-numbered Game-Turn (13.5).
- ``moving``: around the naval Execution Segment; each hex a TF enters is searched
  by the enemy (13.3, 13.7.1), may hold an enemy installation (13.8) or a
  coastwatcher (13.8); night movement removes Located chits (13.7.5).

The logic stays in search.py, located.py, coastwatchers.py, dummies.py and
deception.py; this module only calls them at the right times.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pbem.core.dice import Dice
from pbem.core.errors import OrderError, OrderSyntaxError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, SIDES, Side, enemy_of
from pbem.rulesets.witp import (
    chits,
    coastwatchers,
    deception,
    draws,
    dummies,
    located,
    movement,
    orders,
    search,
)
from pbem.rulesets.witp import standingplay as standing_orders
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air.ships import AirBase, air_bases
from pbem.rulesets.witp.clock import Round, Slot
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.missions import Context
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.standing import Standing
from pbem.rulesets.witp.work import Work

WORDS = ("SEARCH", deception.WORD, coastwatchers.WORD)
START_KEY = "scenario/map-start"
CW_FORCE = "coastwatchers"  # the Allied forces item listing the CW islands (13.8.3)


class SearchMap(Protocol):
    """What the search hooks need of the theatre map (map.TheatreMap)."""

    islands: Mapping[str, Collection[str]]

    def hex_at(self, lat: float, lon: float) -> Any: ...
    def has_water(self, h: str) -> bool: ...
    def bases_in(self, h: str) -> tuple[Any, ...]: ...


# -- set-up ----------------------------------------------------------------------


def prepare(work: Work, sea: SearchMap) -> None:
    """Each side's searchers, once (13.0, 13.1.1): a forces item with ``base`` and
    ``air_points`` is a land base where its position falls; an item whose keys are
    the side's ship names gives those carriers their air points; the Allied
    ``coastwatchers`` item is the CW Log (13.8.3, 13.8.4). Set-up writes the side's
    part through the round's work area, as taskforces.setup does."""
    for side in SIDES:
        forces = work.part(side).order_of_battle()
        if work.part(side).air_bases is not ABSENT:
            continue
        bases: dict[str, AirBase] = {}
        for _fid, item in sorted(forces.items()):
            v = item.value
            if not isinstance(v, Mapping):
                continue
            if "air_points" in v and "base" in v:
                h = sea.hex_at(float(v["lat"]), float(v["lon"]))
                if h is not None:  # a base off the theatre map searches nothing here
                    bases[str(v["base"])] = AirBase(str(h), dict(v["air_points"]))
            else:
                _embark(work, side, v)
        part = work.part(side).put(air_bases=bases)
        if part.standing is ABSENT:
            part = part.put(standing=Standing())
        work.put_part(side, part)
        if side == ALLIED and CW_FORCE in forces:
            placed = [str(c) for c in forces[CW_FORCE].value]
            try:
                coastwatchers.keep_log(work, coastwatchers.log(sea, work.pack, placed))
            except (KeyError, ValueError):
                coastwatchers.keep_log(work, {})


def _embark(work: Work, side: Side, item: Mapping[str, Mapping[str, int]]) -> None:
    """A forces ``item`` whose keys are the side's ship names: those carriers' air
    points, where none has its air yet (set-up embarks them, taskforces.embarked; a
    hand-made state may not)."""
    display = tfs.fleet(work, side)
    if not item or not all(name in display.ships for name in item):
        return
    if any(display.ships[name].air is not None for name in item):
        return
    for name, air in item.items():
        aps = {str(t): int(n) for t, n in air.items()}
        tfs.put_ship(work, side, name, replace(display.ships[name], air=aps))


# -- standing orders -------------------------------------------------------------


def _tf_words(args: Sequence[str]) -> list[str]:
    """DECEPTION TF 3 / TF3 -> DECEPTION TF TF3 (the TF Display's key)."""
    w = list(args)
    if w and w[0].upper() == "TF" and len(w) > 1 and tfs.tf_id("TF" + w[1]):
        return ["TF", str(tfs.tf_id("TF" + w[1])), *w[2:]]
    if w and tfs.tf_id(w[0]) and w[0].upper() != "TF":
        return ["TF", str(tfs.tf_id(w[0])), *w[1:]]
    return w


def canonical(ctx: Context, line: str) -> str:
    """A standing-order line as kept; OrderError naming the rule if refused."""
    words = line.split()
    head = words[0].upper()
    if head == "SEARCH":
        if [w.upper() for w in words[1:]] == ["NONE"]:
            return "SEARCH NONE"
        w = words[:]
        if len(w) > 1 and tfs.tf_id(w[1]) and w[1].upper() != "TF":
            w = ["SEARCH", "TF", w[1][2:].strip(), *w[2:]]
        return search.parse_search_line(ctx.knowledge, w)
    if head == deception.WORD:
        text, _ = deception.parse_line(
            [deception.WORD, *_tf_words(words[1:])], tfs.task_forces(ctx.knowledge, ctx.side)
        )
        return text.replace(f"{deception.WORD} TF TF", f"{deception.WORD} TF")
    return coastwatchers.parse_delay_line(ctx.side, words)[0]


def _judge(word: str) -> orders.LineJudge:
    def judge(ctx: Context, plot: orders.Plot, args: Sequence[str]) -> None:
        if not args:
            rule = {"SEARCH": "13.3.1", deception.WORD: "13.5.7"}.get(word, "13.8")
            raise OrderSyntaxError(f"{word} needs more: see the order form", rule=rule)
        canonical(ctx, " ".join([word, *args]))

    return judge


for _word in WORDS:
    orders.register_line(_word, _judge(_word))


def file_standing(work: Work, side: Side, lines: Sequence[str], ctx: Context) -> None:
    """The side's standing orders after this Plot Segment (ruling R50): SEARCH lines
    replace the last ones filed (SEARCH NONE: none); a DECEPTION line replaces the
    policy for its TF (or ALL); COASTWATCHERS DELAY replaces the delay."""
    orders = standing_orders.standing(work, side)
    searches: list[str] | None = None
    for line in lines:
        if not line.strip() or line.split()[0].upper() not in WORDS:
            continue
        try:
            text = canonical(ctx, line)
        except OrderError:
            continue  # refused when the mail was answered
        head = text.split()[0]
        if head == "SEARCH":
            searches = searches if searches is not None else []
            if text != "SEARCH NONE":
                searches.append(text)
        elif head == deception.WORD:
            words = [deception.WORD, *_tf_words(text.split()[1:])]
            _, policy = deception.parse_line(words, tfs.task_forces(ctx.knowledge, ctx.side))
            policies = {**orders.policies(), policy.tf: replace(policy, line=text)}
            orders = orders.put(deception=policies)
        else:
            delay = coastwatchers.parse_delay_line(side, text.split())[1]
            orders = orders.put(coastwatcher_delay=delay)
    if searches is not None:
        orders = orders.put(search=tuple(searches))
    standing_orders.put(work, side, orders)


# -- the segments ----------------------------------------------------------------


def _phase(slot: Slot) -> str:
    """ "T1/naval1": the Air or Naval Phase a slot belongs to."""
    return slot.time.rsplit("/", 1)[0]


def _ends_phase(slot: Slot) -> bool:
    key = slot.phase.key
    return (key.startswith("air") or key.startswith("naval")) and (
        slot.segment is slot.phase.segments[-1]
    )


def before_segment(
    work: Work,
    slot: Slot,
    rnd: Round,
    dice: Dice,
    contexts: Mapping[str, Context],
    sea: SearchMap,
) -> list[Event]:
    """Before play.py resolves ``slot``: set-up, the round's secret seed, the Air
    Search Segment (the standing orders are filed with the plot: ``file_standing``)."""
    events: list[Event] = []
    if slot is rnd.slots[0]:
        prepare(work, sea)
        if rnd.sides:  # every plot round (the opening has no search orders yet)
            draws.take_round_seed(work, dice, rnd.name)  # always 12 open dice
    if slot.phase.key.startswith("air") and slot.segment.key == "search":
        events += air_search_segment(work, slot, dice, contexts)
    return events


class SearchNotFlown(Fact, kind="search-not-flown"):
    """13.3.1: a standing SEARCH line that no longer holds, and why (its side only)."""

    line: str
    why: str
    rule: str | None


def air_search_segment(
    work: Work, slot: Slot, dice: Dice, contexts: Mapping[str, Context]
) -> list[Event]:
    """13.3.1: each side's standing SEARCH lines, judged again where its bases and TFs
    now are; a line that no longer holds is not flown, and its side is told why."""
    events: list[Event] = []
    lines: dict[Side, list[str]] = {}
    for side in SIDES:
        ctx = contexts[side]
        for line in standing_orders.standing(work, side).searches():
            try:
                lines.setdefault(side, []).append(canonical(ctx, line))
            except OrderError as e:
                told = SearchNotFlown(line, str(e), e.rule)
                events.append(work.disclose(told, [side], slot.time, e.rule or "13.3"))
    if not lines:
        return events
    secret = draws.round_secret(work, slot.time)
    return events + search.resolve_air_searches(work, lines, dice, secret, slot)


def after_segment(work: Work, slot: Slot) -> list[Event]:
    """After play.py resolved ``slot``: Located chits at the end of an Air or Naval
    Phase (13.7.5, a TF that did not move keeping its chit in a Naval Phase) and the
    chits' return at the end of an even-numbered Game-Turn (13.5, 13.6.5)."""
    events: list[Event] = []
    if _ends_phase(slot):
        # The TFs that moved in this Naval Phase, or (an Air Phase) in the last one.
        moved = _moved(work)
        stationary = [k for k in located.marked(work) if k not in moved]
        events += located.end_of_phase(work, slot, stationary)
    if slot.segment.key == "advance" and not slot.strategic:
        chits.end_of_game_turn(work, slot.turn)
    if slot.phase.key.startswith("naval") and slot.segment.key == "execution":
        for side in SIDES:  # 13.6.5: a deactivated TF's chits go back to the cups
            for tf, rec in tfs.task_forces(work, side).items():
                if rec.deactivated:
                    chits.return_chits(work, side, tf)
    return events


# -- the naval Execution Segment --------------------------------------------------


def _moved(work: Work) -> set[str]:
    """The "<owner>:<tf>" keys of the TFs that moved in the last Naval Phase."""
    phases = work.moderator().moved
    return set() if phases is ABSENT else {k for keys in phases.values() for k in keys}


def _record_moved(work: Work, phase: str, keys: Collection[str]) -> None:
    moved = {phase: tuple(sorted(set(keys)))}
    work.put_moderator(work.moderator().put(moved=moved))


@dataclass
class _Moving:
    work: Work
    slot: Slot
    dice: Dice
    secret: Dice
    sea: SearchMap
    moved: list[str] = field(default_factory=list)


_MOVING: ContextVar[_Moving | None] = ContextVar("witp_moving", default=None)


@contextmanager
def moving(work: Work, slot: Slot, dice: Dice, sea: SearchMap) -> Iterator[list[Event]]:
    """Around movement.execute: the searches of each hex entered are made by the hook
    below; on leaving, held coastwatcher contacts are announced (13.8, R23) and the
    dummies revealed meanwhile leave the display. The yielded list receives those
    closing events."""
    secret = draws.round_secret(work, slot.time)
    ctx = _Moving(work, slot, dice, secret, sea)
    token = _MOVING.set(ctx)
    dummies.defer_removal(work, True)
    closing: list[Event] = []
    try:
        yield closing
    finally:
        _MOVING.reset(token)
    flushed = draws.round_secret(work, f"{slot.time}/flush")
    closing += coastwatchers.flush(work, slot, flushed)
    dummies.defer_removal(work, False)
    dummies.remove_revealed(work)
    _record_moved(work, _phase(slot), ctx.moved)


def _enemy_installation(work: Work, side: Side, h: HexId, sea: SearchMap) -> bool:
    """13.8: an enemy port or airbase in ``h`` (ground units come with stage 6)."""
    enemy = enemy_of(side)
    item = work.pack.get(START_KEY)
    start = str(item.value) if item is not None else "may1942"
    if any(b.owner_at(start) == enemy for b in sea.bases_in(h)):
        return True
    return any(b.hex == h for b in air_bases(work, enemy).values())


def entered(work: Work, side: str, tf: str, step: tfs.MoveStep) -> list[Event]:
    """movement.ON_ENTER: ``side``'s TF ``tf`` has entered ``step.hex``, played on
    the work area ``moving`` holds."""
    ctx = _MOVING.get()
    if ctx is None:
        return []
    work, owner = ctx.work, Side(side)
    rec = tfs.task_forces(work, owner).get(tf)
    if rec is None or rec.revealed:
        return []  # a revealed dummy's marker is off the map (13.6.3)
    h, night, slot = step.hex, step.night, ctx.slot
    ctx.moved.append(f"{owner}:{tf}")
    events: list[Event] = []
    if night:
        events += located.night_movement(work, owner, tf, slot)
    else:
        events += located.moved(work, owner, tf, h, slot)
    events += search.moving_tf_entered(work, owner, tf, h, slot, ctx.dice, ctx.secret, night=night)
    if _enemy_installation(work, owner, h, ctx.sea):
        events += search.entered_enemy_installation(work, owner, tf, slot, ctx.secret, night=night)
    events += coastwatchers.entered(work, owner, tf, h, slot, ctx.secret, night=night)
    return events


movement.ON_ENTER.append(entered)


# -- the order form ----------------------------------------------------------------


def _bands(pack: tfs.Pack, air: Mapping[str, int], carrier: bool, side: Side) -> str:
    key = search.CARRIER_BANDS if carrier else search.LAND_BANDS
    table = pack[key].value
    ext = 0 if carrier else search.reach(pack, air, side)
    parts = []
    for band in search.BAND_ORDER[::-1]:
        if band not in table:
            continue
        lo, hi = table[band]
        hi = min(hi, ext) if band == "extended" else hi
        value = search.value_at(pack, air, band)
        if value and lo <= hi:
            letter = "X" if band == "extended" else band[0].upper()  # X: not a hex's E
            parts.append(f"{letter}{lo}-{hi}:{value}")
    return " ".join(parts) or "no search value"


def form_lines(ctx: Context) -> list[str]:
    """The order form's search section: the words, then each searching base and
    carrier TF with its bands and values (13.1, 13.3), the standing orders in force."""
    pack, side = ctx.pack, Side(ctx.side)
    words = [
        "  SEARCH <base|TFn> <hex> [<hex> ...] [INTENSIVE] (13.3.1, 13.5.4) | SEARCH NONE |"
        " SEARCH TFn <hex> BLUFF <value> (13.3.3: carrier Short or Medium range only)",
        "  DECEPTION TFn|ALL UNDERSTATE|OVERSTATE CARRIERS|CAPITALS|ESCORTS|TRANSPORTS|TOTAL |"
        " DECEPTION TFn|ALL TRUE|RANDOM | DECEPTION TFn IF <chit> REPORT <n> <type> ... TOTAL <n>"
        + (" | COASTWATCHERS DELAY <hexes>|END (13.8)" if ctx.side == ALLIED else ""),
    ]
    out = [
        "Standing orders, kept until you file others (in full: the player's docs, witp-orders"
        + ("):" if ctx.words else orders.WORDS_ON_TURN_1),
        *(words if ctx.words else []),
        "Your searching bases and carrier TFs (13.1.3; bands S, M, L, X: short, medium,"
        " long, extended, as hexes:value):",
    ]
    land = [
        f"{name.replace(' ', '_')} at {b.hex}: {_bands(pack, b.air_points, False, side)}"
        for name, b in sorted(air_bases(ctx.knowledge, side).items())
    ]
    carriers: list[str] = []
    display = tfs.task_forces(ctx.knowledge, side)
    for tf in sorted(display, key=tfs.marker_number):
        at = display[tf].hex
        if not at:
            continue
        try:
            air = search.searcher(ctx.knowledge, side, tf, pack=pack).air
        except KeyError:
            continue
        if air:
            carriers.append(f"{tf} at {at}: {_bands(pack, air, True, side)}")
    # A line for the land bases, one for the carriers: the form stays short.
    out += [f"  {'; '.join(x)}" for x in (land, carriers) if x]
    standing = ctx.knowledge.standing(side)
    kept = [*standing.searches()]
    kept += [p.line or "" for p in deception.policies(ctx.knowledge, side).values()]
    if standing.coastwatcher_delay is not ABSENT:
        d = standing.coastwatcher_delay
        kept.append(f"COASTWATCHERS DELAY {'END' if d is None else d}")
    out.append("In force: " + (" | ".join(k for k in kept if k) or "none"))
    return out


orders.register_form(form_lines)
