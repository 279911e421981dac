"""13.8 Coastwatcher search: the Allied Coastwatcher Log, the secret 1D6 as a
Japanese TF enters a coastwatcher hex, the delayed announcement, the report and
the island it gives away.

The CW Log is the Allies' secret (13.8.4): ``private["allied"]["coastwatchers"]``
maps an island id of the pack (``map/coastwatcher-islands``) to {"name", "hexes"}.
A coastwatcher occupies every coastal hex of its island (13.8.1); on New Guinea
(13.8.2 A: "any coastal hex") and on New Britain (five islands) it holds its own
hex only (ruling R24).

A Japanese TF entering a CW hex is rolled for in secret (1D6: 5-6 by day, 6 at
night), on a stream of its own (``draws.fork``): a failure says nothing and shifts
no later draw, so nobody learns there was a watcher. A success is kept by the moderator and announced after the TF has
entered the Allies' standing delay of further hexes, at the latest when the
Naval Execution Segment ends (``flush``) (13.8: "may be delayed by any number of
hexes"; ruling R23). The announcement is ``search.contact`` with a Cup 2 chit
(Located, source coastwatcher: it survives night movement and allows no special
strike on it alone, 13.7.5, 13.8); the island, not the hex, is told to the
Japanese after a report that is not "dummy"; then the TF counts as definitively
revealed (13.6.3): its chits go back and a dummy leaves the map (``dummies.reveal``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side
from pbem.rulesets.witp import chits, draws, dummies, search
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.moderatorrecords import HeldContact
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.searchfacts import OfTf
from pbem.rulesets.witp.sidepart import CoastwatcherIsland as CoastwatcherIsland
from pbem.rulesets.witp.work import Work

LOG = "coastwatchers"  # the Allies' CW Log, in their private part
ISLANDS = "map/coastwatcher-islands"
WORD = "COASTWATCHERS"
DELAY_KEY = "coastwatcher_delay"  # private["allied"]["standing"][...]: hexes, or None: END
LARGEST_ISLAND = 4  # hexes: beyond, a CW holds its own hex only (R24)


def cw_log(work: Work) -> dict[str, CoastwatcherIsland]:
    """The Allies' CW Log, decoded."""
    entries = work.part(ALLIED).coastwatchers
    return {} if entries is ABSENT else dict(entries)


def delay(work: Work) -> int | None:
    """The Allies' standing delay (hexes; None: to the move's end; 0 by default)."""
    found = work.part(ALLIED).orders().coastwatcher_delay
    return 0 if found is ABSENT else found


class IslandMap(Protocol):
    """What the CW Log needs of the theatre map (map.TheatreMap)."""

    islands: Mapping[str, Collection[str]]

    def hex_at(self, lat: float, lon: float) -> Any: ...

    def has_water(self, h: str) -> bool: ...


def keep_log(work: Work, entries: Mapping[str, CoastwatcherIsland]) -> None:
    """Set-up: the Allies' CW Log (``private["allied"]["coastwatchers"]``)."""
    work.put_part(ALLIED, work.part(ALLIED).put(coastwatchers=dict(entries)))


def log(
    where: IslandMap, pack: Mapping[str, PackItem], placed: Sequence[str]
) -> dict[str, CoastwatcherIsland]:
    """The CW Log for the islands ``placed`` (pack ids, 13.8.3): each island's name
    and the hexes its watcher occupies (13.8.1, R24)."""
    known = pack[ISLANDS].value
    out: dict[str, CoastwatcherIsland] = {}
    for cw in placed:
        entry = known[cw]
        at = where.hex_at(float(entry["lat"]), float(entry["lon"]))
        if at is None:
            raise ValueError(f"coastwatcher island {cw!r} is off the map")
        isles = [n for n, hs in where.islands.items() if at in hs]
        named = [n for n in isles if n.lower() in str(entry["name"]).lower()]
        by_size = sorted(isles, key=lambda n: len(where.islands[n]))
        isle = (named or by_size)[0] if isles else ""
        small = bool(isle) and len(where.islands[isle]) <= LARGEST_ISLAND
        hexes = sorted(h for h in where.islands[isle] if where.has_water(h)) if small else [at]
        out[cw] = CoastwatcherIsland(str(entry["name"]), tuple(HexId(h) for h in hexes or [at]))
    return out


def parse_delay_line(side: str, words: Sequence[str]) -> tuple[str, int | None]:
    """``COASTWATCHERS DELAY <n>`` or ``COASTWATCHERS DELAY END`` (an Allied standing
    order, 13.8): the canonical line and the delay (None: at the move's end)."""
    if side != ALLIED:
        raise IllegalOrderError("only the Allies have coastwatchers", rule="13.8.1")
    w = [x.upper() for x in words]
    if len(w) != 3 or w[0] != WORD or w[1] != "DELAY":
        raise OrderSyntaxError("write COASTWATCHERS DELAY <hexes> or ... DELAY END", rule="13.8")
    if w[2] == "END":
        return f"{WORD} DELAY END", None
    if not w[2].isdigit():
        raise OrderSyntaxError(f"{words[2]!r}: the delay is a number of hexes, or END", rule="13.8")
    return f"{WORD} DELAY {int(w[2])}", int(w[2])


def _held(work: Work) -> dict[str, HeldContact]:
    """The contacts the moderator holds back, by "<owner>:<tf>" (the record made on
    first look, where the stored states have it)."""
    mod = work.moderator()
    if mod.coastwatchers is ABSENT:
        work.put_moderator(mod.put(coastwatchers={}))
        return {}
    return dict(mod.coastwatchers)


def _hold(work: Work, key: str, held: HeldContact | None) -> None:
    """Keep ``held`` under ``key`` (None: no longer held)."""
    pending = dict(_held(work))
    if held is None:
        pending.pop(key, None)
    else:
        pending[key] = held
    work.put_moderator(work.moderator().put(coastwatchers=pending))


def island_at(work: Work, hexid: HexId) -> str | None:
    """The CW island occupying ``hexid`` (first in the log's order), if any."""
    for cw, entry in sorted(cw_log(work).items()):
        if hexid in entry.hexes:
            return str(cw)
    return None


def entered(
    work: Work,
    owner: Side,
    tf: str,
    hexid: HexId,
    slot: Slot,
    secret: Dice,
    *,
    night: bool = False,
) -> list[Event]:
    """``owner``'s TF ``tf`` has entered ``hexid``: a watcher there rolls 1D6 in secret
    (13.8); a contact waiting for this TF is announced once its delay has run."""
    if owner != JAPANESE:
        return []
    key = f"{owner}:{tf}"
    held = _held(work).get(key)
    if held is not None:
        if held.left is not None:
            held = replace(held, left=held.left - 1)
            _hold(work, key, held)
    else:
        cw = island_at(work, hexid)
        if cw is not None:
            rules = work.pack[search.CW_TABLE].value["coastwatcher"]
            need = int(rules["night_min" if night else "day_min"])
            roll = draws.fork(secret, f"coastwatcher {slot.time} {key} {hexid}")
            if roll.d6(f"coastwatcher {cw} {key}") >= need:
                held = HeldContact(owner, tf, cw, delay(work))
                _hold(work, key, held)
    if held is not None and held.left is not None and held.left <= 0:
        _hold(work, key, None)
        return _announce(work, held, slot, secret)
    return []


def flush(work: Work, slot: Slot, secret: Dice) -> list[Event]:
    """The end of the Naval Execution Segment: every contact still held is announced
    (a delay never outlasts the move it was made in, R23)."""
    events: list[Event] = []
    for key, held in sorted(_held(work).items()):
        _hold(work, key, None)
        events += _announce(work, held, slot, secret)
    return events


class IslandGivenAway(OfTf, kind="coastwatcher-island"):
    """13.8: the island whose coastwatcher reported a TF, told to both sides."""

    island: str


def _announce(work: Work, held: HeldContact, slot: Slot, secret: Dice) -> list[Event]:
    owner, tf, cw = held.owner, held.tf, held.island
    if tf not in tfs.task_forces(work, owner):
        return []  # gone meanwhile (a dummy revealed by another rule)
    events, report = search.contact(
        work, owner, tf, ALLIED, source="coastwatcher", cup=chits.NORMAL, slot=slot, secret=secret
    )
    if not report.dummy:
        fact = IslandGivenAway(tf, cw_log(work)[cw].name)
        events.append(work.disclose(fact, SIDES, slot.time, "13.8"))
    return [*events, *dummies.reveal(work, owner, tf, "coastwatcher search", slot)]
