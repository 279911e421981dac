"""The moderator's records: what no side sees (knowledge.py's ``moderator`` part), as
records of the one codec (records.py), each key kept by the rules of its owner:

- ``secret_seed``: the round's secret stream's seed (draws.py);
- ``search``: the search chit cups, the chits TFs hold (13.5, chits.py) and the
  Naval Phase's searches of moving TFs (13.3.2, 13.7.1, search.py);
- ``contacts``: the count of contacts made (search.py);
- ``coastwatchers``: the watchers' contacts held back (13.8, coastwatchers.py);
- ``moved``: the TFs that moved in the last Naval Phase (searchplay.py);
- ``defer_dummy_removal``: TFs are moving, a revealed dummy waits (13.6.3, dummies.py);
- ``stationary``: each TF's Naval Phases in a row without moving (14.2.2) and
  ``special_struck``: the special strikes flown by Naval Phase (5.8.2, airplay.py);
- ``admiral_ratings``: the carrier admirals' ratings, kept for the battle (8.1, R112,
  air/admirals.py);
- ``magic_cup``, ``si_plus_one``, ``sigint``, ``magic_reveals``: the Magic cup, the
  SI +1 counters owed and the Sigint and Magic Reveal logs (42.4, 42.5.2, 42.3.1,
  intelligence.py).

They sit low in the import graph, as the public markers do (markers.py), so that the
state's codec (state.py) reads them typed; their owners' rules reach them through
the round's work area (work.Work.moderator / put_moderator).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pbem.core.sides import Side
from pbem.rulesets.witp.records import ABSENT, Absent, Record, Wire


@dataclass(frozen=True, slots=True)
class RoundSeed:
    """The seed of a round's secret stream (draws.py), stored as
    ``{"round": name, "seed": hex}``."""

    round: str
    seed: bytes

    def to_json(self) -> dict[str, str]:
        return {"round": self.round, "seed": self.seed.hex()}

    @classmethod
    def from_json(cls, obj: Mapping[str, str]) -> RoundSeed:
        return cls(str(obj["round"]), bytes.fromhex(str(obj["seed"])))


# -- 13.5 the search chits ----------------------------------------------------


@dataclass(frozen=True)
class HeldChit(Record):
    """13.5.3: a drawn chit its TF holds, and the cup it goes back to; ``counts_as``:
    the chit Magic's Report False made it count as (42.4.1), stored as ``as``."""

    cup: str
    chit: str
    counts_as: Annotated[str | None, Wire("as", optional=True)] = None


@dataclass(frozen=True)
class NavalSearches(Record):
    """A Naval Phase's searches of moving TFs: the bands each searcher has searched
    each TF in ("<side>|<searcher>|<owner>:<tf>", 13.3, 13.7.1) and the one TF each
    moving carrier TF searched (13.3.2)."""

    time: str
    bands: Mapping[str, tuple[str, ...]]
    carrier_targets: Mapping[str, str]

    def searched(self, key: str, band: str) -> NavalSearches:
        bands = {**self.bands, key: (*self.bands.get(key, ()), band)}
        return replace(self, bands=bands)

    def targets(self, carrier: str, target: str) -> NavalSearches:
        return replace(self, carrier_targets={**self.carrier_targets, carrier: target})


@dataclass(frozen=True)
class ChitCups(Record):
    """13.5.1: what each cup holds, by chit, and the chits TFs hold out of them, by
    "<side>:<tf>" (the searcher never learns a chit, 13.5.7); ``naval``: the Naval
    Phase's searches (search.py), kept beside them."""

    cups: Mapping[str, Mapping[str, int]]
    held: Mapping[str, tuple[HeldChit, ...]]
    naval: NavalSearches | Absent = ABSENT

    def left(self, cup: str) -> int:
        return sum(self.cups[cup].values())

    def counted(self, changes: Mapping[tuple[str, str], int]) -> dict[str, dict[str, int]]:
        """The cups with ``changes`` ((cup, chit): +n back, -n drawn) made."""
        out = {cup: dict(contents) for cup, contents in self.cups.items()}
        for (cup, chit), n in changes.items():
            out[cup][chit] += n
        return out

    def drawn(self, key: str, cup: str, chit: str) -> ChitCups:
        held = {**self.held, key: (*self.held.get(key, ()), HeldChit(cup, chit))}
        return self.put(cups=self.counted({(cup, chit): -1}), held=held)

    def returned(self, key: str, cup: str | None = None) -> ChitCups:
        """``key``'s chits (those of ``cup`` only, if named) back in their cups."""
        going = [h for h in self.held.get(key, ()) if cup in (None, h.cup)]
        back = Counter((h.cup, h.chit) for h in going)
        kept = tuple(h for h in self.held.get(key, ()) if h not in going)
        held = {k: hs for k, hs in self.held.items() if k != key}
        if kept:
            held = {k: kept if k == key else hs for k, hs in self.held.items()}
        return self.put(cups=self.counted(back), held=held)


# -- 13.8 coastwatchers ---------------------------------------------------------


@dataclass(frozen=True)
class HeldContact(Record):
    """13.8: a watcher's contact with ``owner``'s TF ``tf``, held back while the TF
    enters ``left`` more hexes (the Allies' standing delay; None: to the move's end)."""

    owner: Side
    tf: str
    island: str
    left: int | None


# -- 8.1 carrier admirals ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ratings(Record):
    """8.1: a carrier admiral's combat ratings for the battle (kept, R112)."""

    admiral: str  # "" for a leaderless TF (8.8)
    roll: int
    air: int
    bounce: int = 0  # 8.1.6 DRM on the Bounce Table
    column: int = 0  # 8.1.5 column shift on the Air/Surface Damage Table
    drm: int = 0  # 8.1.5 attack DRM


# -- 42 intelligence ----------------------------------------------------------------


@dataclass(frozen=True)
class SigintLog(Record):
    """The moderator's record of a Sigint sample (``moderator["sigint"]``): which of
    the phase's cards, by place, the Allies saw (42.3.1)."""

    time: str
    seen: tuple[int, ...]


@dataclass(frozen=True)
class RevealLog(Record):
    """The moderator's record of a Magic Reveal TF (``moderator["magic_reveals"]``)."""

    time: str
    chit: str
    seen: tuple[str, ...]


# -- the part --------------------------------------------------------------------

# 5.8.2: a special strike flown in a Naval Phase: [side, base, "<owner>:<tf>"]
Struck = tuple[str, str, str]


@dataclass(frozen=True)
class ModeratorRecords(Record):
    """The moderator's part (each key stored once its owner's rules first make it)."""

    secret_seed: RoundSeed | Absent = ABSENT
    search: ChitCups | Absent = ABSENT
    contacts: int | Absent = ABSENT
    coastwatchers: Mapping[str, HeldContact] | Absent = ABSENT
    moved: Mapping[str, tuple[str, ...]] | Absent = ABSENT
    defer_dummy_removal: bool | Absent = ABSENT
    stationary: Mapping[str, int] | Absent = ABSENT
    special_struck: Mapping[str, tuple[Struck, ...]] | Absent = ABSENT
    admiral_ratings: Mapping[str, Ratings] | Absent = ABSENT
    magic_cup: Mapping[str, int] | Absent = ABSENT
    si_plus_one: int | Absent = ABSENT
    sigint: tuple[SigintLog, ...] | Absent = ABSENT
    magic_reveals: tuple[RevealLog, ...] | Absent = ABSENT

    def made(self, key: str, empty: Any) -> ModeratorRecords:
        """This part with the record ``key`` made ``empty`` if it has none yet (some
        owners make theirs on first look, and the stored states keep it so)."""
        return self if getattr(self, key) is not ABSENT else self.put(**{key: empty})
