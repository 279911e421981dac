"""13.3 Air search in the Air and Naval Phases, 13.8 contacts by enemy installations
and coastwatchers, and the contact that follows a success (13.5, 13.7).

Searching bases (13.0): each side's land bases, ``private[side]["air_bases"]``
(name -> {"hex", "air_points": {type: n}}), and its carrier TFs (ships with an
``air`` group). A base's search value at a band is the sum of its air points'
values (13.1.1, ``units/ap-<type>``); Extended reaches as far as its longest-
reaching type allows (13.1.2). Distances are hexes (13.1.3).

Air Phase (13.3.1): a side's search orders name a base (or ``TF n``) and one or
more hexes; several hexes share the value evenly, fractions dropped. Every TF in
a searched hex is rolled for, openly (2D10, "00" = 100). Naval Phase (13.3,
13.7.1): ``moving_tf_entered`` is called for each hex a moving TF enters; each
enemy base searches it once per band as it enters that band; a moving carrier
TF searches one enemy TF a phase and not at the end of its move (13.3.2).

A success places a public Located chit; the owner draws a chit on the secret
stream (told to the owner only) and the report the owner's policy composes is
told to the searcher (13.5.7). Bluff searches (13.3.3) and intensive searches
(13.5.4) are search orders too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side, enemy_of
from pbem.rulesets.witp import chits, deception, draws, located
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air.ships import air_bases, lose
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.datapack import ApSearch, Pack, class_values
from pbem.rulesets.witp.hexgrid import HexId, distance, parse_hex
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.markers import PendingStrike
from pbem.rulesets.witp.moderatorrecords import NavalSearches
from pbem.rulesets.witp.records import ABSENT, OPTIONAL, Wire
from pbem.rulesets.witp.searchfacts import OfOwnersTf, OfTf, SearchReport
from pbem.rulesets.witp.taskforces import Ship
from pbem.rulesets.witp.work import Work

LAND_BANDS, CARRIER_BANDS = "tables/land-search-bands", "tables/carrier-search-bands"
LAND_TABLE, CARRIER_TABLE = "tables/land-air-search", "tables/carrier-air-search"
INTENSIVE_LOSS = "tables/intensive-search-loss"
CW_TABLE = "tables/coastwatcher-search"
BAND_ORDER = ("extended", "long", "medium", "short")
BLUFF_BANDS = ("short", "medium")  # 13.3.3: never Long


# The charts below are read from the data pack (``pack``: a round's, or the one a
# side's knowledge holds, datapack.public_pack).


def ap_search(pack: Pack, ap_type: str) -> ApSearch:
    """The type's search values (``units/ap-<type>``; none if the pack has no item)."""
    item = pack.get(f"units/ap-{ap_type}")
    return ApSearch() if item is None else ApSearch.from_json(item.value)


def reach(pack: Pack, air: Mapping[str, int], side: Side) -> int:
    """13.1.2: the farthest hex the base's Extended search reaches (0: none)."""
    cap = int(pack[LAND_BANDS].value["extended_max"][side])
    reaches = [
        ap_search(pack, t).extended_reach
        for t, n in air.items()
        if n > 0 and ap_search(pack, t).extended > 0
    ]
    return min(max(reaches, default=0), cap)


def band_of(pack: Pack, hexes: int, carrier: bool, extended_to: int = 0) -> str | None:
    """The range band ``hexes`` away (13.1.3), None beyond the last."""
    bands = pack[CARRIER_BANDS if carrier else LAND_BANDS].value
    for name in ("short", "medium", "long"):
        lo, hi = bands[name]
        if lo <= hexes <= hi:
            return name
    if not carrier and bands["extended"][0] <= hexes <= extended_to:
        return "extended"
    return None


def value_at(pack: Pack, air: Mapping[str, int], band: str) -> int:
    """13.1.1: the sum of the air points' values at ``band`` (C types add 0, 13.7.3)."""
    return sum(n * ap_search(pack, t).at(band) for t, n in air.items())


def threshold(pack: Pack, carrier: bool, value: int, band: str) -> int | None:
    """The number 2D10 must reach (13.3); None if the value cannot search."""
    table = pack[CARRIER_TABLE if carrier else LAND_TABLE].value
    if value < 1 or band not in table["columns"]:
        return None
    for row in table["rows"]:
        lo, hi = row["search_value"]
        if lo <= value <= hi:
            return int(row["thresholds"][table["columns"].index(band)])
    return None


def tf_key(display: Collection[str], n: str) -> str:
    """The key in the TF Display ``display`` of the TF written ``n`` ("3", "TF3",
    "TF 3"); KeyError."""
    n = n.strip().upper().removeprefix("TF").strip().removeprefix("TF")
    for key in (n, f"TF{n}"):
        if key in display:
            return key
    raise KeyError(n)


def tf_air(ships: Sequence[Ship]) -> dict[str, int]:
    """The air groups embarked on a TF's ships, by AP type (4.0, 5.0)."""
    out: dict[str, int] = {}
    for s in ships:
        for t, n in (s.air or {}).items():
            out[t] = out.get(t, 0) + int(n)
    return out


LONG_FLOATPLANE, SHORT_FLOATPLANE = "E13A1", "F1M2"
NO_E13 = ("Kako", "Furutaka", "Mikuma")  # 13.1.4: CAs not carrying E13A1s
E13_CAPITALS = ("Haruna",)  # 13.1.4: the one BC/BB with E13A1s


def floatplanes(pack: Pack, side: Side, ships: Sequence[Ship]) -> dict[str, int]:
    """13.1.4: in a Japanese carrier TF every capital ship's floatplanes add to its
    search, one air point a ship (ruling R27): CAs and BC Haruna as the longer-ranged
    E13A1 (Kako, Furutaka, Mikuma excepted), other BB/BCs as the shorter F1M2; the
    ship's class item may name its type (``floatplane``)."""
    if side != JAPANESE or not tf_air(ships):
        return {}
    out: dict[str, int] = {}
    for s in ships:
        kind = s.type.upper()
        if kind not in chits.CAPITALS:
            continue
        cls = class_values(pack, s.ship_class)
        plane = cls.floatplane if cls else None
        if not plane:
            name = s.name or ""
            long_ranged = name in E13_CAPITALS or (kind == "CA" and name not in NO_E13)
            plane = LONG_FLOATPLANE if long_ranged else SHORT_FLOATPLANE
        out[plane] = out.get(plane, 0) + 1
    return out


# -- searchers -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Searcher:
    """13.0: a searching land base or carrier TF: its name as announced (``label``),
    where it is (None: off the map), its air points by type (13.1.1) and whether
    it searches on the carrier tables."""

    label: str
    hex: HexId | None
    air: Mapping[str, int]
    carrier: bool


class AirSearchEmpty(Fact, kind="air-search-empty"):
    """13.3: a search of a hex with no enemy TF in it, announced all the same."""

    searcher: Side
    origin: Annotated[str, Wire("from")]  # 5.0: a carrier shows its hex only ("TF at E2318")
    hex: str
    band: str
    value: int
    intensive: bool


class AirSearch(Fact, kind="air-search"):
    """13.3: an air search announced to both sides and rolled openly (2D10); 13.3.3:
    a bluff is announced and rolled the same, never a contact, and names no TF
    (``tf``, ``owner`` None: not stored)."""

    searcher: Side
    origin: Annotated[str, Wire("from")]
    hex: str
    tf: Annotated[str | None, OPTIONAL]  # a bluff's: not stored
    owner: Annotated[Side | None, OPTIONAL]
    band: str
    value: int
    needed: int | None
    roll: int
    contact: bool
    intensive: bool = False


def searcher(parts: tfs.Parts, side: Side, name: str, *, pack: Pack | None = None) -> Searcher:
    """``side``'s base or ``TF n`` as a searcher (in the round's Work, or as the side
    knows it); KeyError. With ``pack``, a carrier TF's air includes 13.1.4's
    floatplanes."""
    if re.fullmatch(r"TF\s*(TF)?\d+", name.strip(), re.IGNORECASE):
        fleet = tfs.fleet(parts, side)
        key = tf_key(fleet.tfs, name)
        tf = fleet.tfs[key]
        ships = fleet.ships_in(tf)
        air = tf_air(ships)
        for t, n in (floatplanes(pack, side, ships) if pack is not None else {}).items():
            air[t] = air.get(t, 0) + n
        return Searcher(f"TF {key.removeprefix('TF')}", tf.hex, air, True)
    for base, b in air_bases(parts, side).items():
        if base.lower() == name.replace("_", " ").lower():
            at = None if b.hex is None else HexId(b.hex)
            return Searcher(base, at, dict(b.air_points), False)
    raise KeyError(name)


def parse_search_line(knowledge: Knowledge, words: Sequence[str]) -> str:
    """``SEARCH <base|TF n> <hex> [<hex> ...] [INTENSIVE]`` or
    ``SEARCH TF n <hex> BLUFF <value>``: the canonical line, or an OrderError."""
    side = Side(knowledge.side or JAPANESE)
    pack = knowledge.pack
    w = list(words)
    if len(w) < 3 or w[0].upper() != "SEARCH":
        raise OrderSyntaxError("write SEARCH <base or TF n> <hex> ...", rule="13.3.1")
    name, rest = (f"TF {w[2]}", w[3:]) if w[1].upper() == "TF" else (w[1], w[2:])
    try:
        found = searcher(knowledge, side, name, pack=pack)
    except KeyError:
        raise IllegalOrderError(
            f"you have no base or TF {name!r} to search from", rule="13.0"
        ) from None
    label, at, air, carrier = found.label, found.hex, found.air, found.carrier
    flags = [x.upper() for x in rest if not _is_hex(x)]
    hexes = [parse_hex(x) for x in rest if _is_hex(x)]
    if not hexes:
        raise OrderSyntaxError("name at least one hex to search", rule="13.3.1")
    if at is None:
        raise IllegalOrderError(f"{label} is not on the map", rule="16.1.6")
    if flags[:1] == ["BLUFF"]:
        if not label.startswith("TF ") or len(flags) != 2 or len(hexes) != 1:
            raise OrderSyntaxError("a bluff is SEARCH TF <n> <hex> BLUFF <value>", rule="13.3.3")
        if not flags[1].isdigit() or int(flags[1]) < 1:
            raise OrderSyntaxError("a bluff announces a search value of 1 or more", rule="13.3.3")
        if band_of(pack, distance(at, hexes[0]), True) not in BLUFF_BANDS:
            raise IllegalOrderError(
                "a bluff search reaches Short or Medium carrier range only", rule="13.3.3"
            )
        return f"SEARCH {label} {hexes[0]} BLUFF {int(flags[1])}"
    if flags not in ([], ["INTENSIVE"]):
        raise OrderSyntaxError(
            f"{' '.join(flags)!r}: only INTENSIVE or BLUFF <value> may follow", rule="13.3.1"
        )
    if carrier and not air:
        raise IllegalOrderError(
            f"{label} carries no search aircraft: a bluff must say BLUFF", rule="13.3.3"
        )
    ext = 0 if carrier else reach(pack, air, side)
    for h in hexes:
        band = band_of(pack, distance(at, h), carrier, ext)
        if band is None or not value_at(pack, air, band):
            raise IllegalOrderError(
                f"{label} has no search value {distance(at, h)} hexes away, at {h}", rule="13.1.3"
            )
    shown = label if carrier else label.replace(" ", "_")  # one word on the line
    return " ".join(["SEARCH", shown, *hexes, *flags])


def _is_hex(x: str) -> bool:
    try:
        parse_hex(x)
    except ValueError:
        return False
    return True


# -- contact ---------------------------------------------------------------------


class SearchChit(OfTf, kind="search-chit"):
    """13.5.3: the chit the owner of a contacted TF drew, told to the owner alone."""

    chit: str
    cup: str


class DeceptionRefused(OfTf, kind="deception-refused"):
    """13.5.7: why the owner's fixed report was not allowed by the chit."""

    why: str


def _next_contact(work: Work) -> int:
    """The count of contacts so far (the moderator's), counting this one."""
    mod = work.moderator()
    n = 0 if mod.contacts is ABSENT else mod.contacts
    work.put_moderator(mod.put(contacts=n + 1))
    return n


def contact(
    work: Work,
    owner: Side,
    tf: str,
    finder: Side,
    *,
    source: str,
    cup: str | None,
    slot: Slot,
    secret: Dice,
    place_marker: bool = True,
) -> tuple[list[Event], chits.Report]:
    """``finder`` has contacted ``owner``'s TF ``tf``: Located (public), a chit drawn
    by the owner (``cup`` None: a True report is owed, 13.8, 13.7.6) and the owner's
    report told to the finder (13.5.7)."""
    task = tfs.task_force(work, owner, tf)
    events: list[Event] = []
    if place_marker:
        events.append(located.place(work, owner, tf, HexId(str(task.hex)), source, slot))
    ships = tfs.ships_of(work, owner, task)
    dummy = task.dummy or not ships
    if cup is None:
        report, why = chits.Report.of_ships(ships), None
    else:
        # Each contact draws from its own fork of the secret stream, labelled by
        # the count of contacts so far (both sides are told of every contact):
        # how many draws a hidden TF's make-up costs here never shifts what a
        # later contact tells anyone (noninterference).
        stream = draws.fork(secret, f"contact {_next_contact(work)}")
        chits.draw(work, owner, tf, cup, stream)
        chit = chits.effective(work, owner, tf)
        policy = deception.policy(work, owner, tf)
        report, why = deception.compose(ships, dummy, chit, policy, stream)
        events.append(work.disclose(SearchChit(tf, chit, cup), [owner], slot.time, "13.5.3"))
    if why:
        events.append(work.disclose(DeceptionRefused(tf, why), [owner], slot.time, "13.5.7"))
    told = SearchReport(owner, tf, report.text(), source)
    events.append(work.disclose(told, [finder, owner], slot.time, "13.5.7"))
    return events, report


# -- the Air Phase ---------------------------------------------------------------


def _roll(
    pack: Pack, carrier: bool, value: int, band: str, dice: Dice, purpose: str
) -> tuple[int, int | None, bool]:
    need = threshold(pack, carrier, value, band)
    roll = draws.percentile(dice, purpose)
    return roll, need, need is not None and roll >= need


def _announced_roll(
    work: Work,
    searcher_side: Side,
    shown: str,
    hexid: HexId,
    target: tuple[Side, str],
    carrier: bool,
    value: int,
    band: str,
    dice: Dice,
    slot: Slot,
    *,
    intensive: bool = False,
) -> tuple[AirSearch, Event]:
    """The open search roll against ``target`` (owner, TF) and its announcement (13.3)."""
    owner, tf = target
    roll, need, ok = _roll(
        work.pack, carrier, value, band, dice, f"air search {searcher_side} {shown} {tf}"
    )
    search = AirSearch(
        searcher_side, shown, hexid, tf, owner, band, value, need, roll, ok, intensive
    )
    return search, work.disclose(search, SIDES, slot.time, "13.3")


def resolve_air_searches(
    work: Work,
    plots_by_side: Mapping[Side, Sequence[str]],
    dice: Dice,
    secret: Dice,
    slot: Slot,
) -> list[Event]:
    """The Air Search Segment (13.3.1): each side's canonical SEARCH lines, the side
    with the initiative's order not mattering (searches are simultaneous)."""
    events: list[Event] = []
    for side in SIDES:
        for line in plots_by_side.get(side, ()):
            w = line.split()
            if not w or w[0] != "SEARCH":
                continue
            name, rest = (f"TF {w[2]}", w[3:]) if w[1] == "TF" else (w[1], w[2:])
            base = searcher(work, side, name, pack=work.pack)
            if base.hex is None:
                continue
            if "BLUFF" in rest:
                at, h = base.hex, HexId(rest[0])
                events += _bluff(work, side, base.label, at, h, int(rest[2]), dice, slot)
                continue
            events += _searched_hexes(work, side, base, base.hex, rest, dice, secret, slot)
    return events


def _searched_hexes(
    work: Work,
    side: Side,
    base: Searcher,
    at: HexId,
    rest: Sequence[str],
    dice: Dice,
    secret: Dice,
    slot: Slot,
) -> list[Event]:
    """One SEARCH line's hexes (13.3.1): the value shared evenly, every enemy TF in a
    hex rolled for, an empty hex announced all the same."""
    pack, enemy = work.pack, enemy_of(side)
    intensive = "INTENSIVE" in rest
    hexes = [HexId(h) for h in rest if h != "INTENSIVE"]
    ext = 0 if base.carrier else reach(pack, base.air, side)
    shown = f"TF at {at}" if base.carrier else base.label  # 5.0: a carrier shows its hex only
    events: list[Event] = []
    for h in hexes:
        band = band_of(pack, distance(at, h), base.carrier, ext)
        if band is None:
            continue
        value = value_at(pack, base.air, band) // len(hexes)
        there = sorted(t for t, r in tfs.task_forces(work, enemy).items() if r.hex == h)
        if not there:
            # 13.3: announced all the same; nothing there to roll for.
            fact = AirSearchEmpty(side, shown, h, band, value, intensive)
            events.append(work.disclose(fact, SIDES, slot.time, "13.3"))
        for tf in there:
            search, event = _announced_roll(
                work,
                side,
                shown,
                h,
                (enemy, tf),
                base.carrier,
                value,
                band,
                dice,
                slot,
                intensive=intensive,
            )
            events.append(event)
            if not search.contact:
                continue
            cup = chits.INTENSIVE if intensive else chits.NORMAL
            found, report = contact(
                work, enemy, tf, side, source="air", cup=cup, slot=slot, secret=secret
            )
            events += found
            events += vs_hit(work, base.carrier, search, report, slot)
            if intensive:
                events += _intensive_loss(work, side, base.label, band, report, dice, slot)
    return events


VS_HIT = "tables/us-vs-search-hit"


class VsSearchHit(OfOwnersTf, kind="vs-search-hit"):
    """13.4.1: a US carrier search's chance of hits, a strike owed at ``anti_ship``."""

    roll: int
    anti_ship: int


def _owe_strike(work: Work, owed: VsSearchHit, time: str) -> None:
    """A strike owed (``public["pending_strikes"]``), as its fact and the time owed."""
    strike = PendingStrike(owed.kind, owed.owner, owed.tf, owed.roll, owed.anti_ship, time)
    markers = work.markers()
    work.put_markers(markers.put(pending_strikes=(*markers.strikes(), strike)))


def vs_hit(
    work: Work, carrier: bool, search: AirSearch, report: chits.Report, slot: Slot
) -> list[Event]:
    """13.4.1: a successful US carrier search out to Medium range whose open roll is
    90 or more scores a chance of hits: an immediate strike on the contacted TF at
    dive-bomber anti-ship 1, without air combat, AA or US losses. Announced to both
    and owed in ``public["pending_strikes"]``; the strike itself (the Specific-target
    deployment, the random target type from the core, the Naval CRT) is stage 2's.
    None against a TF reported as a dummy (13.6.4)."""
    rule = work.pack[VS_HIT].value
    bands = BAND_ORDER[BAND_ORDER.index(rule["max_band"]) :]
    side, band, roll = search.searcher, search.band, search.roll
    if side != ALLIED or not carrier or band not in bands or roll < int(rule["min_roll"]):
        return []
    if report.dummy or search.owner is None or search.tf is None:
        return []
    owed = VsSearchHit(search.owner, search.tf, roll, int(rule["anti_ship"]))
    _owe_strike(work, owed, slot.time)
    return [work.disclose(owed, SIDES, slot.time, "13.4.1")]


class NoSearchTookPlace(Fact, kind="no-search-took-place"):
    """13.3.3: a bluff that "succeeded": its side says no search took place."""

    searcher: Side
    hex: str


def _bluff(
    work: Work,
    side: Side,
    label: str,
    at: HexId,
    h: HexId,
    value: int,
    dice: Dice,
    slot: Slot,
) -> list[Event]:
    """13.3.3: announced as a carrier search with an invented value, rolled openly; a
    "success" obliges the side to say that no search took place."""
    band = band_of(work.pack, distance(at, h), True) or "medium"
    roll, need, ok = _roll(work.pack, True, value, band, dice, f"bluff search {side} {label}")
    search = AirSearch(side, f"TF at {at}", h, None, None, band, value, need, roll, False)
    events = [work.disclose(search, SIDES, slot.time, "13.3.3")]
    if ok:
        admitted = NoSearchTookPlace(side, h)
        events.append(work.disclose(admitted, SIDES, slot.time, "13.3.3"))
    return events


class IntensiveSearchLoss(Fact, kind="intensive-search-loss"):
    """13.5.4: the 1D6 for an intensive search's APs after the report, and how many
    of them were lost (told to the searching side alone)."""

    base: str
    roll: int
    air_points_lost: int


def _flown_intensive(work: Work, side: Side, time: str, label: str) -> None:
    """The side's intensive searches by game time (``private[side]["intensive"]``)."""
    part = work.part(side)
    flown = {} if part.intensive is ABSENT else part.intensive
    labels = (*flown.get(time, ()), label)  # strikes use the APAT
    work.put_part(side, part.put(intensive={**flown, time: labels}))


def _intensive_loss(
    work: Work,
    side: Side,
    label: str,
    band: str,
    report: chits.Report,
    dice: Dice,
    slot: Slot,
) -> list[Event]:
    """13.5.4: 1D6 for the searching APs after the report; none against a reported dummy.
    A base loses its searching types' APs in their order; a carrier TF none here."""
    _flown_intensive(work, side, slot.time, label)
    if report.dummy:
        return []
    roll = dice.d6(f"intensive search loss {side} {label}")
    rows = work.pack[INTENSIVE_LOSS].value["rows"]
    lost = next(int(r["air_points_lost"]) for r in rows if r["roll"][0] <= roll <= r["roll"][1])
    pack = work.pack
    base = air_bases(work, side).get(label)
    pool = base.air_points if base is not None else {}
    left = lost
    for t in sorted(t for t in pool if pool[t] and ap_search(pack, t).at(band)):
        left -= lose(work, side, label, t, left)
    fact = IntensiveSearchLoss(label, roll, lost)
    return [work.disclose(fact, [side], slot.time, "13.5.4")]


# -- the Naval Phase: searches as a TF moves ------------------------------------


def _naval_searches(work: Work, slot: Slot) -> NavalSearches:
    """This Naval Phase's record, a fresh one kept at its first search."""
    kept = chits.chit_cups(work).naval
    if kept is not ABSENT and kept.time == slot.time:
        return kept
    fresh = NavalSearches(slot.time, {}, {})  # a new Naval Phase: a fresh record
    _keep_naval(work, fresh)
    return fresh


def _keep_naval(work: Work, searches: NavalSearches) -> None:
    chits.keep(work, chits.chit_cups(work).put(naval=searches))


def _sources(work: Work, side: Side) -> list[tuple[str, bool]]:
    """The side's searching bases and carrier TFs on the map, by name (13.0)."""
    fleet = tfs.fleet(work, side)
    sources = [(b, False) for b in sorted(air_bases(work, side))]
    return sources + [
        (f"TF {t}", True)
        for t, r in sorted(fleet.tfs.items())
        if tf_air(fleet.ships_in(r)) and r.hex
    ]


def _moving(work: Work, side: Side, label: str) -> bool:
    """Whether the side's carrier TF ``label`` ("TF 3") is moving this phase (13.3.2)."""
    display = tfs.task_forces(work, side)
    return bool(display[tf_key(display, label)].log)


def moving_tf_entered(
    work: Work,
    owner: Side,
    tf: str,
    hexid: HexId,
    slot: Slot,
    dice: Dice,
    secret: Dice,
    *,
    night: bool = False,
) -> list[Event]:
    """``owner``'s TF ``tf`` has entered ``hexid`` moving by day: every enemy base,
    and every enemy carrier TF that can, searches it once per band as it enters
    that band (13.3, 13.7.1). Night movement is immune (16.6.1)."""
    if night:
        return []
    pack, enemy = work.pack, enemy_of(owner)
    naval = _naval_searches(work, slot)
    events: list[Event] = []
    for name, carrier in _sources(work, enemy):
        base = searcher(work, enemy, name, pack=pack)
        label, at, air = base.label, base.hex, base.air
        if at is None:
            continue
        ext = 0 if carrier else reach(pack, air, enemy)
        band = band_of(pack, distance(at, hexid), carrier, ext)
        key = f"{enemy}|{label}|{owner}:{tf}"
        if band is None or band in naval.bands.get(key, ()):
            continue
        if carrier and _moving(work, enemy, label):  # 13.3.2
            first = naval.carrier_targets.get(label)
            if first not in (None, f"{owner}:{tf}"):
                continue
            naval = naval.targets(label, f"{owner}:{tf}")
            _keep_naval(work, naval)
        value = value_at(pack, air, band)
        if not value:
            continue
        naval = naval.searched(key, band)
        _keep_naval(work, naval)
        shown = f"TF at {at}" if carrier else label
        search, event = _announced_roll(
            work, enemy, shown, hexid, (owner, tf), carrier, value, band, dice, slot
        )
        events.append(event)
        if search.contact:
            found, report = contact(
                work, owner, tf, enemy, source="air", cup=chits.NORMAL, slot=slot, secret=secret
            )
            events += [*found, *vs_hit(work, carrier, search, report, slot)]
    return events


def entered_enemy_installation(
    work: Work, owner: Side, tf: str, slot: Slot, secret: Dice, *, night: bool
) -> list[Event]:
    """13.8: a TF entering a hex with an enemy ground unit, port or airbase is located:
    by day the owner gives a True report, by night a Cup 2 chit is drawn."""
    cup = chits.NORMAL if night else None
    return contact(
        work, owner, tf, enemy_of(owner), source="installation", cup=cup, slot=slot, secret=secret
    )[0]
