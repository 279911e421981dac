"""The working state of one mail round (as U.S.N.'s ``Work``): the stored state is
decoded once into ``WitpState`` when the round begins, the round is played on this
work area, and its end state is encoded once, through the same codec, when it ends.

The kernel reads the typed parts here: the Turn Record Track (``clock``, replaced by
``move_clock``), the data pack's charts and rulings (``pack``: read, never written,
in play), the markers on the shared map (``markers``/``put_markers``), each side's
private part (``part``/``put_part``: sidepart.SidePart, read and written through its
owners' accessors), the moderator's records (``moderator``/``put_moderator``) and
the scenario. Facts are told through ``disclose``.

``json`` is the round's one working copy of the state as JSON: the store behind
these accessors (the serialisation's edge: no rule reads it by key), never a second
copy that could disagree.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.core.events import Event
from pbem.rulesets.witp.clock import TurnTrack
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.knowledge import (
    DISCLOSURES,
    MODERATOR,
    PRIVATE,
    PUBLIC,
    Disclosure,
    Fact,
    disclose,
)
from pbem.rulesets.witp.markers import Markers
from pbem.rulesets.witp.moderatorrecords import ModeratorRecords
from pbem.rulesets.witp.sidepart import SidePart
from pbem.rulesets.witp.state import CLOCK, PACK, WitpState


@dataclass(slots=True)
class Work:
    """One round's work area: the state it began from, typed, and its working copy."""

    start: WitpState  # the state as the round began: what each side knew then
    json: dict[str, Any]  # the one working copy, as JSON: the store behind the accessors

    @classmethod
    def begin(cls, stored: Mapping[str, Any]) -> Work:
        """The round's work area on ``stored`` (which it never changes)."""
        return cls(WitpState.from_json(stored), _working_copy(stored))

    @property
    def scenario(self) -> str:
        return self.start.scenario

    @property
    def pack(self) -> Mapping[str, PackItem]:
        return self.start.public.pack

    @property
    def clock(self) -> TurnTrack:
        return TurnTrack.from_json(self.json[PUBLIC][CLOCK])

    def move_clock(self, track: TurnTrack) -> None:
        self.json[PUBLIC][CLOCK] = track.to_json()

    def markers(self) -> Markers:
        """The markers on the shared map (markers.py), read from the working copy."""
        public = self.json[PUBLIC]
        return Markers.from_json({k: v for k, v in public.items() if k not in (CLOCK, PACK)})

    def put_markers(self, markers: Markers) -> None:
        """Write ``markers`` back: a key kept stays where it stood, a new one comes
        last, one no longer held goes."""
        public, stored = self.json[PUBLIC], markers.to_json()
        for gone in [k for k in public if k not in (CLOCK, PACK) and k not in stored]:
            del public[gone]
        public.update(stored)

    def part(self, side: str) -> SidePart:
        """``side``'s private part (sidepart.py), read from the working copy."""
        return SidePart.from_json(self.json[PRIVATE][side])

    def put_part(self, side: str, part: SidePart) -> None:
        """Write ``side``'s ``part`` back (its keys in the order it keeps them)."""
        _rewrite(self.json[PRIVATE][side], part.to_json(), depth=3)

    def moderator(self) -> ModeratorRecords:
        """The moderator's records (moderatorrecords.py), read from the working copy."""
        return ModeratorRecords.from_json(self.json[MODERATOR])

    def put_moderator(self, records: ModeratorRecords) -> None:
        """Write the moderator's ``records`` back (their keys in the order they keep)."""
        self.json[MODERATOR] = records.to_json()

    def disclose(self, fact: Fact, audience: Sequence[str], time: str, rule: str) -> Event:
        """Tell ``fact`` to ``audience`` (knowledge.disclose) and return its Event."""
        return disclose(self, fact, audience, time, rule)

    def record(self, told: Disclosure) -> None:
        """The journal's entry (knowledge.Journal): appended to the working copy's."""
        self.json.setdefault(DISCLOSURES, []).append(told.to_json())

    def finish(self) -> WitpState:
        """The state the round ends in, read back through the one codec."""
        return WitpState.from_json(self.json)


def _working_copy(state: Mapping[str, Any]) -> dict[str, Any]:
    """The state a round changes in place: a deep copy, but for what no round changes:
    the disclosures (an append-only journal, knowledge.disclose), whose entries the
    copy shares, and the public charts of the data pack."""
    new = {k: copy.deepcopy(v) for k, v in state.items() if k not in (DISCLOSURES, PUBLIC)}
    public = state[PUBLIC]
    new[PUBLIC] = {k: copy.deepcopy(v) for k, v in public.items() if k != PACK}
    new[PUBLIC][PACK] = public[PACK]
    new[DISCLOSURES] = list(state.get(DISCLOSURES, ()))
    return new


def _rewrite(stored: dict[str, Any], new: Mapping[str, Any], depth: int) -> None:
    """``stored`` made ``new`` in place, ``depth`` levels down (a part, its TF Display,
    a TF's record): a record kept is rewritten where it stands, as the rules have
    always written them (another rule may hold it while a TF moves). A key kept stays
    in its place, a new one comes last, one gone is removed; keys in a new order (a
    record written whole) are written in that order."""
    for gone in [k for k in stored if k not in new]:
        del stored[gone]
    if list(new)[: len(stored)] != list(stored):
        stored.clear()
    for key, value in new.items():
        held = stored.get(key)
        if depth > 1 and isinstance(held, dict) and isinstance(value, Mapping):
            _rewrite(held, value, depth - 1)
        elif key not in stored or held != value:
            stored[key] = value
