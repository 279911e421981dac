"""Air strikes against ships played through the rounds (5.0-5.1, 5.8, 12, 14.2): the
hooks play.py calls. The rules themselves stay in ``air/`` (plot, special,
naval_strike; the Allocation Segment, 5.0 Step 1, where the plot is judged, its form
written and the accepted plot filed, is air/allocation.py's, which play.py and
ruleset.py call directly); this module flies the plots at the right times.

- ``strike_segment``: the Strike Segment: three or more carrier strikes first, ranked
  by their admirals' Air Ratings (12.3.2, R115), those flown at each other before or
  after the rest as the winner of Step 2's roll filed (RECIPROCAL, R125); then the
  3.2 winner's strike, then the sides alternately, each in the order written (3.1 B); a strike on a carrier TF with
  a strike of its own still on deck is sequenced first (12.0-12.2, R95).
  Plotted Cover CAP over the target's hex and Naval Cover over the TF fly CAP there,
  each rolled once an Air Phase (5.3.2-5.3.6, air/cover.py, R110): a carrier's
  after its coordination check (R120), Army-type fighters' Naval Cover with the
  side's one 2D6 DRM (R121), cover over a solely enemy-held hex 2R (R122), which
  also intercepts the launches from an enemy base there (R123, air/intercept.py);
  Naval Cover stays over its TF into the next Naval Phase (R124), beside that of the
  naval plot (navalcover.py, R138); neither escorts a special strike (R139).
  The carrier admirals' ratings on both sides are rolled when first needed and kept
  (8.1, 8.8, air/admirals.py, R112).
- ``entered`` (movement.ON_ENTER): a moving enemy TF entering a hex by day may launch
  the side's standing special strikes (5.8); they resolve there and then.
- ``end_of_phase``: the plot and the CAP aborted this phase are cleared; sunk ships
  leave their TFs' boxes (7.8.1 Step 7), a TF with none afloat leaves the map.

Every fact a side learns goes through ``knowledge.disclose`` (naval_strike.py does it
for the strike itself), so the reports show each side what the rules announce.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Protocol

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.sides import SIDES, Side, enemy_of
from pbem.rulesets.witp import draws, located, movement
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air import (
    admirals,
    coordination,
    elite,
    intercept,
    naval_strike,
    parts,
    plot,
    sequencing,
    special,
)
from pbem.rulesets.witp.air import avg as avg_rules
from pbem.rulesets.witp.air import cover as cover_rules
from pbem.rulesets.witp.air.allocation import AIR_PLOT as AIR_PLOT
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.parts import secret_stream
from pbem.rulesets.witp.air.sequencing import AFTER, BEFORE
from pbem.rulesets.witp.air.ships import SUNK, afloat, base_air, cap_aborted, holdings, lose
from pbem.rulesets.witp.air.strike.plotted import Covering
from pbem.rulesets.witp.air.strikes import (
    AirElement,
    AirStrike,
    CoverFlight,
    CoverKind,
    FiledPlot,
    StrikePart,
)
from pbem.rulesets.witp.air.tables import MAP_START
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.moderatorrecords import Struck
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.work import Work

ALOFT = "naval_cover_aloft"  # private[side]: {TF: [Naval Cover over it, "up"]} (5.3.4, R124)


class StrikeNotFlown(Fact, kind="strike-not-flown"):
    """5.1.1, 14.2.2, R123: a plotted strike that did not fly, and why (its side's)."""

    strike: str
    why: str


class StrikeAtTf(Fact):
    """A strike ``strike`` flown at the TF ``tf`` in ``hex`` (a kind says what of it)."""

    strike: str
    tf: str
    hex: str


class StrikeFoundNothing(StrikeAtTf, kind="strike-found-nothing"):
    """7.1: the strike reached the hex its target TF was Located in and found it gone."""


class CarrierStrikeOrder(Fact, kind="carrier-strike-order"):
    """12.3.2: the side's own carrier strikes in the order they fly (R115)."""

    strikes: tuple[str, ...]


class TfSunk(Fact, kind="tf-sunk"):
    """7.8.1 Step 7: the owner's TF with no ship afloat has left the map."""

    tf: str


class SpecialStrike(StrikeAtTf, kind="special-strike"):
    """5.8: a standing special strike launched at a moving TF, announced to both."""


# -- the Strike Segment -----------------------------------------------------------


def filed(work: Work, side: str) -> FiledPlot:
    """The side's Air Strike Plot filed this Air Phase (empty if none)."""
    filed = work.part(side).air_plot
    return FiledPlot.from_json(None) if filed is ABSENT else filed


def naval_cover(parts: tfs.Parts, side: str) -> dict[str, list[CoverFlight]]:
    """5.3.4, R124: the Naval Cover still over the side's TFs, by TF (in the round's
    Work, or as the side knows it)."""
    aloft = parts.part(side).naval_cover_aloft
    return {} if aloft is ABSENT else {tf: list(cs) for tf, cs in aloft.items()}


def naval_cover_aloft(parts: tfs.Parts, side: str) -> list[CoverFlight]:
    """5.3.4, R124: the Naval Cover still over the side's TFs, all TFs'."""
    return [c for cs in naval_cover(parts, side).values() for c in cs]


def put_naval_cover(work: Work, side: str, aloft: Mapping[str, Sequence[CoverFlight]]) -> None:
    """The side's Naval Cover over its TFs is ``aloft`` (none: the record goes)."""
    kept = {tf: tuple(fs) for tf, fs in aloft.items()}
    work.put_part(side, work.part(side).put(naval_cover_aloft=kept if aloft else ABSENT))


def _carrier_strikes_from(work: Work, owner: str, tf: str) -> list[str]:
    """Ids of ``owner``'s plotted strikes with a part launching from carrier TF ``tf``."""
    strikes = filed(work, owner).strikes
    return [s.id for s in strikes if any(p.carrier and p.base == tf for p in s.parts)]


def _committed(work: Work, owner: str, tf: str) -> dict[str, int]:
    """5.3, 12.1.2: the TF's fighters plotted on other missions this phase fly no CAP."""
    out: dict[str, int] = {}
    p = filed(work, owner)
    for s in p.strikes:
        for part in s.parts:
            if part.base == tf:
                for e in part.escorts:
                    out[e.type] = out.get(e.type, 0) + e.n
    for c in [*p.covers, *naval_cover_aloft(work, owner)]:  # R124: still over a TF
        if c.base == tf:
            out[c.type] = out.get(c.type, 0) + c.n
    return out


def _aboard(work: Work, side: str, strike: AirStrike) -> AirStrike:
    """The strike with each part cut to the APs its base still holds (losses since
    the plot, a carrier sunk under its air group: 7.8.1 Step 7)."""
    parts = []
    for part in strike.parts:
        try:
            left = base_air(work, side, part.base).air
        except KeyError:
            continue  # the TF is gone
        elements, escorts = _cut_to(part.elements, left), _cut_to(part.escorts, left)
        if elements:
            parts.append(replace(part, elements=elements, escorts=escorts))
    return replace(strike, parts=tuple(parts))


def _cut_to(group: Sequence[AirElement], left: dict[str, int]) -> tuple[AirElement, ...]:
    """The elements cut to the APs ``left`` by type (taken from it), in plot order."""
    out = []
    for e in group:
        n = min(e.n, int(left.get(e.type, 0)))
        left[e.type] = int(left.get(e.type, 0)) - n
        out += [replace(e, n=n)] if n else []
    return tuple(out)


class BaseMap(Protocol):
    """The theatre map's bases by hex (map.TheatreMap), public: whose each is (R122)."""

    def bases_in(self, h: str) -> tuple[Any, ...]: ...


class _Segment:
    """One Strike Segment's strikes, flown one at a time (3.1 B, 12.0-12.2)."""

    def __init__(self, work: Work, slot: Slot, dice: Dice, sea: BaseMap | None = None) -> None:
        self.work, self.slot, self.dice, self.sea = work, slot, dice, sea
        self.secret = secret_stream(work, f"{slot.time}/strikes")
        self.flown: set[tuple[str, str]] = set()
        self.launched: dict[tuple[str, str], AirStrike] = {}  # aloft before they fly
        self.over: dict[tuple[str, str], int] = {}  # each cover's APs over its target
        self.army: dict[str, int] = {}  # 5.3.4: each side's one Army-type 2D6 (R121)
        self.swept: set[tuple[str, str]] = set()  # R123: covers the base CAP has fought
        self.left: dict[tuple[str, str], int] = {}  # R122: emergency APs not yet lost

    def cover(self, owner: str, tf: str, hexid: str) -> tuple[list[CoverFlight], list[Event]]:
        """5.3.2-5.3.4, R102, R110: the owner's plotted Cover over ``hexid`` and Naval
        Cover over ``tf`` still flying; each launched and rolled on the APAT before its
        first combat, once this Air Phase (5.3.3), the rolls told its owner alone."""
        flights = [f for f in filed(self.work, owner).covers if cover_rules.over(f, tf, hexid)]
        events: list[Event] = []
        for f in flights:
            if cover_rules.emergency(f):  # 5.3.5, 5.3.6: each strike as if the first
                events += self.emergency(owner, f, tf, hexid)
            elif (owner, f.id) not in self.over:
                events += self.launch_cover(owner, f, tf)
        return [f for f in flights if self.over.get((owner, f.id), 0) > 0], events

    def emergency(self, owner: str, flight: CoverFlight, tf: str, hexid: str) -> list[Event]:
        """5.3.5, R122: emergency cover launched and rolled at this strike with its
        APs not yet eliminated nor aborted; never over a hex the enemy holds alone."""
        key = (owner, flight.id)
        if self.enemy_held(owner, hexid):
            self.over[key] = 0
            fact = cover_rules.CoverNotFlown(flight.id, ENEMY_HELD_WHY)
            return [self.work.disclose(fact, [owner], self.slot.time, "5.3.3")]
        left = self.left.setdefault(key, flight.n)
        return self.launch_cover(owner, flight, tf, left)

    def launch_cover(
        self, owner: str, flight: CoverFlight, tf: str | None, n: int | None = None
    ) -> list[Event]:
        """One covering flight's launch (8.1.4, R120) of its ``n`` APs (None: all
        plotted), Army-type DRM (5.3.4, R121) and APAT roll, 2R over a hex held
        solely by the enemy (5.3.3, R122)."""
        # Its rolls are told its owner alone, so they come from the moderator's stream:
        # a secret plot must not shift the open dice the enemy reads later.
        dice = draws.fork(self.secret, f"{owner} cover {flight.id}")
        n, events = self.coordinated(owner, flight, dice, n)
        held = self.enemy_held(owner, flight.over_hex)
        mission = cover_rules.mission_of(flight, held)
        drm, told = self.army_drm(owner, flight)
        events += told
        got, rolled = cover_rules.roll(self.work.pack, flight, dice, n=n, mission=mission, drm=drm)
        self.over[(owner, flight.id)] = got
        fact = replace(rolled, tf=tf or None)
        rule = "5.3.3" if held and flight.kind == CoverKind.COVER else cover_rules.RULE[flight.kind]
        return [*events, self.work.disclose(fact, [owner], self.slot.time, rule)]

    def coordinated(
        self, owner: str, flight: CoverFlight, dice: Dice, n: int | None = None
    ) -> tuple[int, list[Event]]:
        """5.3.6, 8.1.4, R120: a carrier TF's cover launches after its carrier
        coordination check (its admiral's Air Rating, 8.8 leaderless); (APs, events)."""
        n, base = flight.n if n is None else n, flight.base
        if n <= 0:
            return 0, []
        if not flight.carrier:
            return n, []
        pack = self.work.pack
        entry = tfs.task_forces(self.work, owner).get(base)
        if entry is None:
            return 0, []  # the TF is gone
        r, events = admirals.ratings(self.work, owner, base, dice, self.slot.time)
        r = r or coordination.rate(pack, None, dice, f"{owner} {base} CTF")
        purpose = f"{owner} {base} cover {flight.id} CC"
        cc = coordination.launch(pack, afloat(self.work, owner, entry), r, n, 0, dice, purpose)
        fact = cover_rules.CoverCoordination.of(base, flight.id, r.air, cc)
        events.append(self.work.disclose(fact, [owner], self.slot.time, "8.1.4"))
        return cc.fighters, events

    def army_drm(self, owner: str, flight: CoverFlight) -> tuple[int, list[Event]]:
        """5.3.4, R121: Army-type fighters on Naval Cover: the side's one 2D6 this Air
        Phase (told its owner), short of the type's number, a negative DRM."""
        number = cover_rules.army_number(self.work.pack, flight.type)
        if flight.kind not in cover_rules.NAVAL or number is None:
            return 0, []
        events: list[Event] = []
        if owner not in self.army:
            purpose = f"{owner} Army-type naval cover"
            dice = draws.fork(self.secret, purpose)  # told its owner alone, as the cover's
            self.army[owner] = dice.d6(purpose) + dice.d6(purpose)
            fact = cover_rules.ArmyNavalCoverRoll(self.army[owner])
            events.append(self.work.disclose(fact, [owner], self.slot.time, "5.3.4"))
        return cover_rules.army_drm(number, self.army[owner]), events

    def enemy_held(self, owner: str, hexid: str) -> bool:
        """5.3.3, R122: a hex held solely by the enemy: a base of his on the public map
        there and none of the owner's (ground units come with a later stage); the
        enemy's air there is never read, so the shift tells nothing hidden."""
        if self.sea is None:
            return False  # no map (a Naval Phase's special strike): only Naval Cover flies
        start = str(self.work.pack[MAP_START].value) if MAP_START in self.work.pack else "may1942"
        owners = {b.owner_at(start) for b in self.sea.bases_in(hexid)}
        return enemy_of(owner) in owners and owner not in owners

    def keep_naval_cover(self) -> None:
        """5.3.4, R124: each side's Naval Cover not eliminated nor aborted stays over
        its TF into the following Naval Phase (``up``: APs over it, None: not rolled)."""
        for side in SIDES:
            aloft: dict[str, list[CoverFlight]] = {}
            for f in filed(self.work, side).covers:
                up = self.over.get((side, f.id))
                if f.kind == CoverKind.NAVAL_COVER and up != 0:
                    aloft.setdefault(f.over, []).append(replace(f, aloft=True, up=up))
            put_naval_cover(self.work, side, aloft)

    def aloft(self, owner: str, tf: str, hexid: str) -> tuple[list[CoverFlight], list[Event]]:
        """R124: the Naval Cover still over ``tf`` in the Naval Phase, within range at
        ``hexid``; rolled on the APAT if not yet (9.2: those over it roll no more)."""
        pack = self.work.pack
        events: list[Event] = []
        out = []
        cover = naval_cover(self.work, owner)
        over_tf = cover.get(tf, [])
        for i, f in enumerate(list(over_tf)):
            try:
                base_hex = base_air(self.work, owner, f.base).hex
            except KeyError:
                continue  # the carrier TF is gone
            if base_hex is None or not cover_rules.accompanies(
                pack, f, plot.hex_mp()(str(base_hex), hexid)
            ):
                over_tf[i] = replace(f, up=0)  # 5.3.4: beyond its extended range
                continue
            if f.up is None:
                events += self.launch_cover(owner, f, tf)
                f = over_tf[i] = replace(f, up=self.over[(owner, f.id)])
            self.over[(owner, f.id)] = int(f.up or 0)
            if f.up:
                out.append(f)
        if over_tf:
            put_naval_cover(self.work, owner, cover)
        return out, events

    def aloft_losses(
        self, owner: str, flights: Sequence[CoverFlight], losses: Mapping[str, list[int]]
    ) -> None:
        """R124: the Naval Phase's cover losses, kept on the flights over the TF."""
        self.cover_losses(owner, flights, losses)
        cover = {
            tf: [replace(x, up=self.over.get((owner, x.id), x.up)) for x in over_tf]
            for tf, over_tf in naval_cover(self.work, owner).items()
        }
        if cover:
            put_naval_cover(self.work, owner, cover)

    def intercept_launch(self, side: str, strike: AirStrike) -> tuple[AirStrike, list[Event]]:
        """5.3.3, R123: the enemy's Cover CAP over an air base of ``side``'s that it
        does not hold intercepts the strike's part launching from there."""
        owner = enemy_of(side)
        plotted = filed(self.work, owner).covers
        events: list[Event] = []
        parts = []
        for part in strike.parts:
            over = [
                f
                for f in plotted
                if f.kind == CoverKind.COVER and not part.carrier and f.over_hex == part.hex
            ]
            if over and self.enemy_held(owner, str(part.hex)):
                part, told = self.intercept_part(side, part, over)
                events += told
            if part.elements:
                parts.append(part)
        return replace(strike, parts=tuple(parts)), events

    def intercept_part(
        self, side: str, part: StrikePart, flights: Sequence[CoverFlight]
    ) -> tuple[StrikePart, list[Event]]:
        """R123: the cover launched and rolled (once an Air Phase), fought by the
        base's CAP the first time, then as CAP against this launch; told to both."""
        owner, base, hexid = enemy_of(side), part.base, str(part.hex)
        events: list[Event] = []
        for f in flights:
            if (owner, f.id) not in self.over:
                events += self.launch_cover(owner, f, None)
        if (owner, hexid) not in self.swept:
            self.swept.add((owner, hexid))
            events += self.base_cap_fight(side, base, hexid, flights)
        up = [f for f in flights if self.over[(owner, f.id)] > 0]
        cover: dict[str, int] = {}
        for f in up:
            cover[f.type] = cover.get(f.type, 0) + self.over[(owner, f.id)]
        if not cover:
            return part, events
        out, cover_lost, part_lost, fights = intercept.against_launch(
            self.work.pack, cover, part, self.dice
        )
        self.cover_losses(owner, up, cover_lost)
        for t, (eliminated, _aborted) in part_lost.items():
            lose(self.work, Side(side), base, t, eliminated)
        return out, events + self.told_fights(fights)

    def base_cap_fight(
        self, side: str, base: str, hexid: str, flights: Sequence[CoverFlight]
    ) -> list[Event]:
        """5.3.3, R123: the base's free fighters fly CAP against the cover."""
        owner, pack = enemy_of(side), self.work.pack
        up = [f for f in flights if self.over[(owner, f.id)] > 0]
        grounded = cap_aborted(self.work, Side(side), base)
        try:
            air = base_air(self.work, side, base).air
        except KeyError:
            return []
        cap = intercept.base_cap(pack, air, _committed(self.work, side, base), grounded)
        if not up or not cap:
            return []
        cover = [intercept.sweeping(pack, f, self.over[(owner, f.id)]) for f in up]
        where = (base, hexid)
        cover_lost, cap_lost, fights = intercept.against_base_cap(
            pack, cover, cap, self.dice, where
        )
        self.cover_losses(owner, up, cover_lost)
        for t, (eliminated, aborted) in cap_lost.items():
            lose(self.work, Side(side), base, t, eliminated)
            grounded[t] = int(grounded.get(t, 0)) + aborted  # 5.1.1: flies no more CAP
        return self.told_fights(fights)

    def told_fights(self, fights: Sequence[intercept.LaunchInterception]) -> list[Event]:
        """R123: the interception's air combat, told to both sides (6.1.1)."""
        return [self.work.disclose(f, SIDES, self.slot.time, intercept.RULE) for f in fights]

    def cover_losses(
        self, owner: str, flights: Sequence[CoverFlight], losses: Mapping[str, list[int]]
    ) -> None:
        """R110: the cover's share of the CAP's losses, flight by flight in plot order;
        the eliminated leave their base, neither they nor the aborted cover again (5.3.6)."""
        for t, (eliminated, aborted, *best) in losses.items():
            mine = [f for f in flights if f.type == t]
            up = [self.over[(owner, f.id)] for f in mine]
            dead = cover_rules.split(eliminated, up)
            home = cover_rules.split(aborted, [n - d for n, d in zip(up, dead, strict=True)])
            lost_best = cover_rules.split(sum(best), [self.elite_over(owner, f) for f in mine])
            for f, d, a, b in zip(mine, dead, home, lost_best, strict=True):
                self.over[(owner, f.id)] -= d + a
                if (owner, f.id) in self.left:  # R122: lost to the later strikes too
                    self.left[(owner, f.id)] -= d + a
                elite.lose(self.work, Side(owner), f.base, t, min(b, d))  # 7.11.2
                lose(self.work, Side(owner), f.base, t, d)

    def covering(self, owner: str, flight: CoverFlight) -> Covering:
        """A covering flight over the target: its APs up, their elite (7.11) and
        whether they are the AVG's P-40s (6.2.3)."""
        avg = avg_rules.is_avg(self.work.pack, flight.base, flight.type)
        best = self.elite_over(owner, flight)
        return Covering(flight.type, self.over[(owner, flight.id)], best, avg)

    def elite_over(self, owner: str, flight: CoverFlight) -> int:
        """7.11, R111: a covering flight's elite APs, up to the elite its base holds."""
        held = elite.held(holdings(self.work, Side(owner), flight.base), flight.type)
        return min(self.over[(owner, flight.id)], held)

    def strikes(self, side: str) -> tuple[AirStrike, ...]:
        return filed(self.work, side).strikes

    def plotted(self, side: str, sid: str) -> AirStrike:
        return filed(self.work, side).strike(sid)

    def fly(self, side: str, sid: str) -> list[Event]:
        key = (side, sid)
        if key in self.flown:
            return []
        self.flown.add(key)
        st, time = self.work, self.slot.time
        strike = self.launched.pop(key, None) or _aboard(st, side, self.plotted(side, sid))
        if not strike.parts:
            fact = StrikeNotFlown(sid, "no APs left to fly it")
            return [st.disclose(fact, [side], time, "5.1.1")]
        owner, tf = strike.target.owner, strike.target.tf
        if strike.night and stationary(st, owner, tf) < NIGHT_STATIONARY:
            fact = StrikeNotFlown(sid, NIGHT_WHY)
            return [st.disclose(fact, [side], time, "14.2.2")]
        target = tfs.task_forces(st, owner).get(tf)
        if target is None or not afloat(st, owner, target):
            lost = StrikeFoundNothing(sid, tf, strike.target.hex)
            return [st.disclose(lost, [side], time, "7.1")]
        strike = replace(strike, target=replace(strike.target, hex=str(target.hex)))
        ratings, events = _ratings(st, strike, self.dice, time)
        # 12.0-12.2, R95: the target's own strike still on deck is sequenced against this one
        theirs = [
            s
            for s in _carrier_strikes_from(st, owner, tf)
            if (owner, s) not in self.flown and (owner, s) not in self.launched
        ]
        after: list[str] = []
        if theirs:
            result, seq_events = naval_strike.sequence_strike(
                st, strike, self.dice, time, ratings=ratings
            )
            events += seq_events
            if result == AFTER:  # their strike arrives first
                for s in theirs:
                    events += self.fly(owner, s)
            elif result != BEFORE:  # simultaneous: aloft now, flown after this one
                for s in theirs:
                    self.launched[(owner, s)] = _aboard(st, owner, self.plotted(owner, s))
                after = theirs
        strike, intercepted = self.intercept_launch(side, strike)  # 5.3.3, R123
        events += intercepted
        if strike.parts:
            events += self.resolve(owner, tf, str(target.hex), strike, ratings)
        else:
            stopped = StrikeNotFlown(sid, INTERCEPTED_WHY)
            events.append(st.disclose(stopped, [side], time, intercept.RULE))
            parts = self.plotted(side, sid).parts
            bases = ", ".join(sorted({p.base for p in parts if not p.carrier}))
            seen = intercept.LaunchIntercepted(bases)  # both saw the combat
            events.append(st.disclose(seen, SIDES, time, intercept.RULE))
        for s in after:
            events += self.fly(owner, s)
        return events

    def resolve(
        self,
        owner: str,
        tf: str,
        hexid: str,
        strike: AirStrike,
        ratings: Mapping[str, Ratings],
    ) -> list[Event]:
        """The strike over its target: the owner's cover there, then naval_strike."""
        st, time = self.work, self.slot.time
        flights, events = self.cover(owner, tf, hexid)
        losses: dict[str, list[int]] = {}
        events += naval_strike.resolve_into(
            st,
            strike,
            self.dice,
            self.secret,
            time,
            cover=[self.covering(owner, f) for f in flights],
            cover_losses=losses,
            committed=_committed(st, owner, tf),
            unlocated_carriers=False,
            ratings=ratings,
            cap_split=filed(st, owner).cap_shares(tf),  # R135
        )
        self.cover_losses(owner, flights, losses)
        return events


def _ratings(
    work: Work, strike: AirStrike, dice: Dice, time: str
) -> tuple[dict[str, Ratings], list[Event]]:
    """8.1, 8.8, R112: the carrier admirals' ratings on both sides of ``strike``: the
    striker's leading carrier TF's and the target TF's (rolled the first time)."""
    side, owner = strike.side, strike.target.owner
    lead = next((p.base for p in strike.parts if p.carrier), None)
    out: dict[str, Ratings] = {}
    events: list[Event] = []
    for who, tf in ((side, lead), (owner, strike.target.tf)):
        if tf is None:
            continue
        r, told = admirals.ratings(work, who, tf, dice, time)
        events += told
        if r is not None:
            out[who] = r
    return out, events


def strike_segment(
    work: Work, slot: Slot, first: str, dice: Dice, sea: BaseMap | None = None
) -> list[Event]:
    """3.1 B: the strikes plotted in this Air Phase, the 3.2 winner's first, then the
    sides alternately, each side's in the order written; three or more carrier
    strikes go before, by admiral (12.3.2). ``sea``: the map, whose bases say who
    holds a hex (R122, R123)."""
    seg = _Segment(work, slot, dice, sea)
    queues: dict[str, list[str]] = {side: [s.id for s in seg.strikes(side)] for side in SIDES}
    events: list[Event] = []
    ranked, events = _carrier_ranking(work, seg, dice, slot.time)
    for side, sid in ranked:  # 12.3.2: three or more carrier strikes, by admiral
        queues[side].remove(sid)
        events += seg.fly(side, sid)
    turn = first
    while queues[SIDES[0]] or queues[SIDES[1]]:
        if not queues[turn]:
            turn = enemy_of(turn)
        sid = queues[turn].pop(0)
        events += seg.fly(turn, sid)
        turn = enemy_of(turn)
    seg.keep_naval_cover()  # 5.3.4, R124: over its TF into the next Naval Phase
    return events + end_of_phase(work, slot)


def _carrier_ranking(
    work: Work, seg: _Segment, dice: Dice, time: str
) -> tuple[list[tuple[str, str]], list[Event]]:
    """12.3.2, R115: with three or more carrier strikes plotted, their order by the
    admirals' Air Ratings (rolled now if not yet, told their own side, R112); fewer:
    none (3.1 B alternation)."""
    plotted = [
        (side, strike.id, strike)
        for side in SIDES
        for strike in seg.strikes(side)
        if any(p.carrier for p in strike.parts)
    ]
    if len(plotted) < 3:
        return [], []
    events: list[Event] = []
    rated: list[tuple[str, str, float | None]] = []
    for side, sid, strike in plotted:
        airs: list[int | None] = []
        for p in strike.parts:
            if p.carrier:
                r, told = admirals.ratings(work, side, p.base, dice, time)
                events += told
                airs.append(r.air if r is not None else None)
        rated.append((side, sid, sequencing.joint_rating(airs)))
    order = sequencing.rank(rated, dice, "12.3.2 equal Air Ratings")
    plots = {s: dict(filed(work, s).choices) for s in SIDES}
    choices: dict[str, str] = {s: c["reciprocal"] for s, c in plots.items() if "reciprocal" in c}
    order, step2 = sequencing.play_step_two(work, plotted, order, choices, dice, time)  # R125
    events += step2
    for side in SIDES:  # its own strikes' order only: the enemy's ratings stay hidden
        fact = CarrierStrikeOrder(tuple(x for s, x in order if s == side))
        events.append(work.disclose(fact, [side], time, "12.3.2"))
    return order, events


def end_of_phase(work: Work, slot: Slot) -> list[Event]:
    """The Air Phase's plot is spent; CAP aborted this phase may fly again (5.3.6);
    sunk ships leave the display."""
    for side in SIDES:
        work.put_part(side, work.part(side).put(air_plot=ABSENT, cap_aborted=ABSENT))
    return clear_sunk(work, slot)


# 14.2.2: a night strike in an Air Phase needs a TF stationary two consecutive Naval Phases.
NIGHT_STATIONARY = 2
ENEMY_HELD_WHY = "no emergency cover over a hex the enemy holds alone"
INTERCEPTED_WHY = "the enemy's cover over its base stopped every AP at launch"
NIGHT_WHY = "its target has not stayed put two Naval Phases: no night strike in an Air Phase"


def stationary(work: Work, owner: str, tf: str) -> int:
    """14.2.2: the Naval Phases in a row ``owner``'s ``tf`` has not moved."""
    return _stationary(work).get(f"{owner}:{tf}", 0)


def _stationary(work: Work) -> dict[str, int]:
    """The moderator's count by "<owner>:<tf>" (the record made on first look, as the
    stored states have it)."""
    mod = work.moderator()
    if mod.stationary is ABSENT:
        work.put_moderator(mod.put(stationary={}))
        return {}
    return dict(mod.stationary)


def after_naval_execution(work: Work, slot: Slot) -> list[Event]:
    """The Execution Segment played: each TF's count of Naval Phases without moving
    (14.2.2, the moderator's: movement is hidden), then sunk ships leave the display."""
    for side in SIDES:
        put_naval_cover(work, side, {})  # R124: the Naval Phase over, home
    counts = _stationary(work)
    for side in SIDES:
        for tf, entry in tfs.task_forces(work, side).items():
            key = f"{side}:{tf}"
            counts[key] = 0 if entry.log else counts.get(key, 0) + 1
    work.put_moderator(work.moderator().put(stationary=counts))
    return clear_sunk(work, slot)


def clear_sunk(work: Work, slot: Slot) -> list[Event]:
    """7.8.1 Step 7: a sunk ship leaves its TF's box; a TF with none afloat leaves the
    map, its Located chit with it (the owner is told; the enemy sees the chit go)."""
    events: list[Event] = []
    for side in SIDES:
        display = tfs.task_forces(work, side)
        for tf in sorted(display, key=tfs.marker_number):
            entry = display[tf]
            if entry.dummy:
                continue
            kept = tuple(s for s in entry.ships if tfs.ship(work, side, s).damage < SUNK)
            if kept == entry.ships:
                continue
            if kept:
                tfs.put(work, Side(side), tf, replace(entry, ships=kept))
                continue
            tfs.remove(work, side, tf)  # off the TF Display
            events.append(work.disclose(TfSunk(tf), [side], slot.time, "7.8.1"))
            events += located.remove(work, side, tf, slot, "no ship afloat", "7.8.1")
    return events


# -- special strikes in the Naval Phase (5.8, R105) ---------------------------------

# The naval Execution Segment being played (5.8's special strikes fly in it): the
# round's work area, its slot and open dice, set by play.py around movement (a context
# variable, as searchplay's, so that games adjudicated side by side never see each
# other's). movement's hooks are given the work area's JSON; the strikes play on it.
_EXECUTING: ContextVar[tuple[Work, Slot, Dice] | None] = ContextVar("witp_executing", default=None)


def executing(work: Work | None, slot: Slot | None = None, dice: Dice | None = None) -> None:
    """play.py marks the naval Execution Segment (None: it is over)."""
    if work is None or slot is None or dice is None:
        _EXECUTING.set(None)
    else:
        _EXECUTING.set((work, slot, dice))


def entered(work: Work, owner: str, tf: str, step: tfs.MoveStep) -> list[Event]:
    """movement.ON_ENTER: the enemy's standing special strikes at ``owner``'s TF."""
    running = _EXECUTING.get()
    if running is None:
        return []
    _, slot, dice = running  # ``work`` is the running round's, which movement hands on
    side = enemy_of(owner)
    orders = special.standing(work, side)
    if not orders or tf not in tfs.task_forces(work, owner):
        return []
    phase = slot.time.rsplit("/", 1)[0]
    log = _struck(work, phase)
    struck = [(b, t.split(":", 1)[1]) for s, b, t in log if s == side and t.startswith(f"{owner}:")]
    launches = special.launches(
        parts.knowledge(work, side),
        side,
        orders,
        owner,
        tf,
        step.hex,
        night=step.night,
        struck=struck,
        aborted=_over_tfs(naval_cover_aloft(work, side)),  # R124, R138: the cover's stay committed
    )
    events: list[Event] = []
    secret = secret_stream(work, f"{slot.time}/special")
    for strike in launches:
        base = strike.parts[0].base
        _flown(work, phase, (side, base, f"{owner}:{tf}"))
        fact = SpecialStrike(strike.id, tf, step.hex)
        events.append(work.disclose(fact, SIDES, slot.time, "5.8"))
        ratings, told = _ratings(work, strike, dice, slot.time)
        events += told
        seg = _Segment(work, slot, dice)  # 5.3.4, R124: the Naval Cover still over it
        flights, told = seg.aloft(owner, tf, step.hex)
        events += told
        losses: dict[str, list[int]] = {}
        events += naval_strike.resolve_into(
            work,
            strike,
            dice,
            secret,
            slot.time,
            cover=[seg.covering(owner, f) for f in flights],
            cover_losses=losses,
            committed=_committed(work, owner, tf),
            ratings=ratings,
        )
        seg.aloft_losses(owner, flights, losses)
    return events


def _struck(work: Work, phase: str) -> tuple[Struck, ...]:
    """5.8.2: the special strikes flown in the Naval Phase ``phase`` (the moderator's
    log, its phase's entry made on first look, as the stored states have it)."""
    mod = work.moderator()
    log = {} if mod.special_struck is ABSENT else mod.special_struck
    if phase not in log:
        work.put_moderator(mod.put(special_struck={**log, phase: ()}))
    return log.get(phase, ())


def _flown(work: Work, phase: str, strike: Struck) -> None:
    """Log ``strike`` as flown in ``phase`` (5.8.2)."""
    mod = work.moderator()
    log = {} if mod.special_struck is ABSENT else mod.special_struck
    flown = (*log.get(phase, ()), strike)
    work.put_moderator(mod.put(special_struck={**log, phase: flown}))


def _over_tfs(aloft: Sequence[CoverFlight]) -> dict[tuple[str, str], int]:
    """R124, R138: the side's APs by (base, type) flying Naval Cover over its TFs this
    Naval Phase (``aloft``): committed, they escort no special strike."""
    out: dict[tuple[str, str], int] = {}
    for c in aloft:
        key = (c.base, c.type)
        out[key] = out.get(key, 0) + c.n
    return out


movement.ON_ENTER.append(entered)
