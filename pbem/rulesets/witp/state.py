"""The War in the Pacific state as typed values, and its one serialisation to the
stored JSON.

The lifecycle stores a game's state as JSON; ``WitpState.from_json`` reads it into
the knowledge model's four parts (knowledge.py) and ``to_json`` writes exactly the
JSON it was read from: the same keys, the same values, in the same order. The parts
are typed as far as their rules' modules type them: the public clock (the Turn
Record Track, clock.TurnTrack), the pack's public items (datapack.PackItem), the
markers on the shared map (markers.Markers: Located chits, strikes owed, dummies
revealed), every disclosure with its fact (knowledge.Fact) and the moderator's
records (moderatorrecords.ModeratorRecords: seeds, chit cups, held contacts, logs).
Each side's private part is its SidePart (sidepart.py: the TF Display and ships, air
bases, plots, standing orders, 42's records, logs), each key typed by its owner's
record on the same codec (records.Record). A round decodes a state once and encodes
it once (work.Work).

Versions: this is version ``STATE_VERSION`` 1. The stored JSON carries no version
key, so stored games and their hashes stay as they are: a state without one is
version 1, and ``from_json`` refuses any other. A later version writes its number
under ``VERSION_KEY`` and reads version 1 by this module's rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.witp.clock import TurnTrack
from pbem.rulesets.witp.datapack import PackItem, public_pack
from pbem.rulesets.witp.knowledge import (
    DISCLOSURES,
    MODERATOR,
    PRIVATE,
    PUBLIC,
    Disclosure,
)
from pbem.rulesets.witp.markers import Markers
from pbem.rulesets.witp.moderatorrecords import ModeratorRecords
from pbem.rulesets.witp.sidepart import SidePart

STATE_VERSION = 1
VERSION_KEY = "version"  # absent in version 1 (see above)
SCENARIO = "scenario"
CLOCK, PACK = "clock", "pack"
PARTS = (SCENARIO, PUBLIC, PRIVATE, DISCLOSURES, MODERATOR)


@dataclass(frozen=True, slots=True)
class PublicPart:
    """What both sides see: the Turn Record Track, the game's charts and rulings (the
    pack's public items, read and never written in play), and the markers on the
    shared map (markers.py: Located chits, strikes owed, dummies revealed)."""

    clock: TurnTrack
    pack: Mapping[str, PackItem]
    markers: Markers = field(default_factory=Markers)
    # The stored key order: a round's working copy moves keys, and a state read and
    # written back is the same text.
    layout: tuple[str, ...] = field(default=(CLOCK, PACK), compare=False)

    def to_json(self) -> dict[str, Any]:
        parts = {CLOCK: self.clock.to_json(), PACK: _items_json(self.pack)}
        parts |= self.markers.to_json()
        return {k: parts[k] for k in self.layout}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> PublicPart:
        markers = Markers.from_json({k: v for k, v in obj.items() if k not in (CLOCK, PACK)})
        # The charts read as each is looked up (datapack.StoredPack): a Knowledge reads
        # a few of some two hundred items.
        return cls(TurnTrack.from_json(obj[CLOCK]), public_pack(obj), markers, tuple(obj))


def _items_json(items: Mapping[str, PackItem]) -> dict[str, Any]:
    return {k: i.to_json() for k, i in items.items()}


@dataclass(frozen=True, slots=True)
class WitpState:
    """A game of War in the Pacific at one moment: the scenario played and the
    knowledge model's four parts (knowledge.py)."""

    scenario: str
    public: PublicPart
    private: Mapping[Side, SidePart]  # each side's own part (sidepart.py)
    disclosures: tuple[Disclosure, ...]  # every fact told, in the order told
    moderator: ModeratorRecords  # what no side sees (moderatorrecords.py)
    layout: tuple[str, ...] = field(default=PARTS, compare=False)

    def to_json(self) -> dict[str, Any]:
        parts = {
            SCENARIO: self.scenario,
            PUBLIC: self.public.to_json(),
            PRIVATE: {str(side): part.to_json() for side, part in self.private.items()},
            DISCLOSURES: [d.to_json() for d in self.disclosures],
            MODERATOR: self.moderator.to_json(),
        }
        return {k: parts[k] for k in self.layout}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> WitpState:
        version = obj.get(VERSION_KEY, STATE_VERSION)
        if version != STATE_VERSION:
            raise DataError("state", f"version {version!r}; this pbem reads {STATE_VERSION}")
        unknown = sorted(set(obj) - set(PARTS) - {VERSION_KEY})
        if unknown:
            raise DataError("state", f"unknown part(s) {', '.join(unknown)}")
        return cls(
            str(obj[SCENARIO]),
            PublicPart.from_json(obj[PUBLIC]),
            {Side(side): SidePart.from_json(part) for side, part in obj[PRIVATE].items()},
            tuple(Disclosure.from_json(d) for d in obj[DISCLOSURES]),
            ModeratorRecords.from_json(obj[MODERATOR]),
            tuple(k for k in obj if k != VERSION_KEY),
        )
