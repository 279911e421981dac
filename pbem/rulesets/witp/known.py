"""What a side may know, typed: the one ``Knowledge`` views, order answers and order
forms are computed from (knowledge.py: the model and its noninterference).

``Knowledge.of`` takes a side's projection of a state (knowledge.projection: its
public part, its own private part, the disclosures addressed to it) and reads it
once through the state's codec (state.PublicPart: the Turn Record Track, the
pack's charts, the markers on the shared map; knowledge.Disclosure: each fact told).
A side's own part is read typed too (sidepart.SidePart: the TF Display and ships,
air bases, plots, standing orders, 42's records), through its owners' accessors,
so no rule reads it by key.

It sits above the records it reads (its owners import knowledge.py for ``Fact``),
so the rules that answer a side take it from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.core.sides import Side
from pbem.rulesets.witp import located
from pbem.rulesets.witp.clock import TurnTrack
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.knowledge import (
    DISCLOSURES,
    PRIVATE,
    PUBLIC,
    Disclosure,
    projection,
)
from pbem.rulesets.witp.markers import LocatedChit, Markers, PendingStrike
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.searchfacts import SearchReport
from pbem.rulesets.witp.sidepart import NO_PART, SidePart
from pbem.rulesets.witp.standing import Standing
from pbem.rulesets.witp.state import PublicPart


@dataclass(frozen=True, slots=True)
class Knowledge:
    """A side's knowledge (``side`` None: the moderator's, which is everything).
    Rules that answer a side read only this."""

    side: str | None
    public: PublicPart  # the clock, the pack's charts, the shared map's markers
    private: Mapping[str, SidePart]  # own part only, unless omniscient (read below)
    disclosed: tuple[Disclosure, ...]

    @classmethod
    def of(cls, state: Mapping[str, Any], side: str | None, *, told: bool = True) -> Knowledge:
        """``side``'s knowledge of ``state``; ``told`` False: its public and own parts
        only, the disclosures left unread (a mission card's check reads none)."""
        p = projection(state, side)
        stored = dict(p.get(PRIVATE, {})) if side is None else {side: p[PRIVATE]}
        private = {s: SidePart.from_json(part) for s, part in stored.items()}
        disclosed = p.get(DISCLOSURES, ()) if told else ()
        return cls(
            side,
            PublicPart.from_json(p.get(PUBLIC, {})),
            private,
            tuple(Disclosure.from_json(d) for d in disclosed),
        )

    # -- the public part ------------------------------------------------------

    @property
    def clock(self) -> TurnTrack:
        return self.public.clock

    @property
    def pack(self) -> Mapping[str, PackItem]:
        """The game's charts and rulings (the pack's public items)."""
        return self.public.pack

    @property
    def markers(self) -> Markers:
        return self.public.markers

    @property
    def located(self) -> Mapping[str, LocatedChit]:
        """The Located chits on the map (13.7.5), by "<owner>:<tf>"."""
        return self.public.markers.chits()

    @property
    def pending_strikes(self) -> tuple[PendingStrike, ...]:
        """The strikes owed by US carrier searches' hits (13.4.1)."""
        return self.public.markers.strikes()

    # -- the private parts it holds -------------------------------------------

    def sides(self) -> list[Side]:
        """The sides whose own parts this knowledge holds, in order."""
        return [Side(s) for s in sorted(self.private)]

    def part(self, side: str) -> SidePart:
        """``side``'s private part, if this knowledge holds it (else an empty one)."""
        return self.private.get(side, NO_PART)

    def forces(self, side: str) -> Mapping[str, PackItem]:
        """``side``'s order of battle: its pack's force items, by force id."""
        return self.part(side).order_of_battle()

    def plots(self, side: str) -> dict[str, tuple[str, ...]]:
        """``side``'s last plot, its lines by game time."""
        plots = self.part(side).plots
        return {} if plots is ABSENT else dict(plots)

    def standing(self, side: str) -> Standing:
        """``side``'s standing orders in force (R50, R10, 13.8, R92, R105, 42.9)."""
        return self.part(side).orders()

    # -- what the disclosures tell --------------------------------------------

    def last_report(self, owner: str, tf: str) -> str | None:
        """The latest composition report on ``owner``'s TF ``tf`` this knowledge holds."""
        out = None
        for d in self.disclosed:
            f = d.fact
            if isinstance(f, SearchReport) and f.owner == owner and f.tf == tf:
                out = f.report
        return out

    def strike_target_problem(self, owner: str, tf: str) -> str | None:
        """Why this knowledge's side may not plot an air strike on ``owner``'s TF
        ``tf`` (5.1.6, 13.6.4, 13.8), with the rule; None if it may."""
        m = self.located.get(f"{owner}:{tf}")
        if m is None:
            return f"TF {tf} is not Located (5.1.6)"
        if m.source not in located.STRIKE_SOURCES:
            return f"TF {tf} is Located only by a coastwatcher (13.8)"
        if self.last_report(owner, tf) == "dummy":
            return f"TF {tf} was last reported as a dummy (13.6.4)"
        return None
