"""The report's strike section (5.0-12.4, 16.7), built from a side's Knowledge only.

Each naval strike a side saw in the round reported is told as one block: its
facts in the order told, each as its sentence (sentences.py: ``told``), and its
result; the same facts as notes (launch, coordination, sequencing, the True report,
priority, altitudes) and tables (placement, air combat, waves, AA, the target ring,
the attacks, critical hits, extended-range losses, the extreme-range return roll),
each row from one disclosed fact, which the HTML report shows folded. Nothing here reads the truth: a side sees of the enemy's
strike on it only what the rules announced to it (naval_strike.py says who is
told what), and of its own strike what it was told (placement face down, a
critical hit only on doubles, 16.7, R100).

A strike's facts are told in a run: it opens with its launches (5.0) and every
later fact names the target TF; a launch after the run has reached its target
opens the next strike.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pbem.core.sides import SIDES, enemy_of
from pbem.rulesets.witp.air import coordination
from pbem.rulesets.witp.air.cover import (
    ArmyNavalCoverRoll,
    CoverAvailability,
    CoverCoordination,
    CoverNotFlown,
)
from pbem.rulesets.witp.air.extreme import ExtremeRangeLosses
from pbem.rulesets.witp.air.intercept import LaunchIntercepted, LaunchInterception
from pbem.rulesets.witp.air.naval_strike import StrikeSequence
from pbem.rulesets.witp.air.strike.aircombat import AirCombatAtLevel
from pbem.rulesets.witp.air.strike.antiaircraft import AaFire, AaSuppression
from pbem.rulesets.witp.air.strike.attacks import (
    AirSurfaceAttack,
    InPortSurprise,
    ShipTargeted,
    TargetRingSpeeds,
)
from pbem.rulesets.witp.air.strike.cap import AvgStrikeComposition, CapAllotted
from pbem.rulesets.witp.air.strike.contact import TargetPriority
from pbem.rulesets.witp.air.strike.damage import CriticalHit, CriticalHitRolls
from pbem.rulesets.witp.air.strike.launch import (
    CarrierCoordination,
    JointAvailability,
    StrikeLaunched,
)
from pbem.rulesets.witp.air.strike.losses import ExtendedRangeLosses
from pbem.rulesets.witp.air.strike.placement import (
    AirSurfacePlacement,
    ShipsInPort,
    StrikeAltitudes,
)
from pbem.rulesets.witp.air.strike.waves import NightContact, WaveCoordination, WaveEntry
from pbem.rulesets.witp.air.suppression import AaSuppressors
from pbem.rulesets.witp.air.torpedo import TorpedoArming
from pbem.rulesets.witp.knowledge import Disclosure, Fact, RawFact
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.records import Record
from pbem.rulesets.witp.searchfacts import SearchReport
from pbem.rulesets.witp.sentences import sentence

# The disclosures this section tells; the report's event list leaves them out.
LAUNCH = frozenset(
    {"strike-launched", "carrier-coordination", "joint-availability", "torpedo-arming"}
)
SECTIONED = LAUNCH | frozenset(
    {
        "plotted-strike-revealed",
        "strike-sequence",
        "target-priority",
        "air-surface-placement",
        "strike-altitudes",
        "cap-allotted",
        "air-combat",
        "night-contact",
        "wave-coordination",
        "wave-entry",
        "aa-fire",
        "target-ring-speeds",
        "ship-targeted",
        "air-surface-attack",
        "critical-hit-rolls",
        "critical-hit",
        "extended-range-losses",
        "extreme-range-losses",
        "ships-in-port",
        "in-port-surprise",
        "strike-sequence-chit",
        "planes-on-deck",
        "avg-strike-composition",
        "aa-suppressors",
        "aa-suppression",
    }
)
# The owner's own cover over a struck TF (5.3.3-5.3.6, R110, R120-R124): told as it is
# launched and rolled, just before the strike it meets; notes of that strike's block.
STOPPED = "launch-intercepted"  # R123: a strike stopped whole at its launch
COVER = frozenset(
    {
        "cover-availability",
        "cover-coordination",
        "army-naval-cover-roll",
        "launch-interception",
        "cover-not-flown",
    }
)
SECTIONED |= COVER | {STOPPED}
STRIKE_CONTACT = "strike-contact"  # a search-report's source when a strike tells it (7.1 A)

Row = list[str]
F = TypeVar("F", bound=Fact)


def _as(kind: type[F], d: Disclosure) -> F:
    """The disclosure's fact as its typed kind (a record stored raw decoded by it)."""
    return kind.read(d.fact)


def _n(types: Mapping[str, int]) -> str:
    """{"TBD-1": 2} -> "2 TBD-1"; none -> "-"."""
    return ", ".join(f"{n} {t}" for t, n in sorted(types.items()) if n) or "-"


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _drm(n: int) -> str:
    """A roll's modifier after it: " +1", or nothing."""
    return f" {n:+d}" if n else ""


def _cc(f: coordination.Launch) -> str:
    """8.1.4: the first check, and the second if it failed."""
    head = f"2D10 {f.first} against {f.needed}"
    if f.second is None:
        return f"{head}: passed"
    star = " (may not be cancelled)" if f.asterisk else ""
    return f"{head} failed; 2D6 {f.second}: {f.percent}%{star}, cut: {f.cut}"


def _cover(d: Disclosure) -> str:
    """One line of the owner's cover: its launch check, Army-type roll or APAT roll."""
    kind, r = d.fact.kind, d.rule
    if kind == CoverCoordination.KIND:
        c = _as(CoverCoordination, d)
        return (
            f"[{r}] cover {c.cover} carrier coordination, {c.tf} (air rating "
            f"{c.air_rating}): {_cc(c.launch)}: {c.launch.fighters} fighter(s) launch"
        )
    if kind == LaunchInterception.KIND:
        return _interception(d)
    if kind == ArmyNavalCoverRoll.KIND:
        return f"[{r}] Army-type fighters on Naval Cover: 2D6 {_as(ArmyNavalCoverRoll, d).roll}"
    if kind == CoverNotFlown.KIND:
        n = _as(CoverNotFlown, d)
        return f"[{r}] cover {n.cover} not flown: {n.why}"
    f = _as(CoverAvailability, d)
    shift = {
        "plotted-naval-cover": ", 2R",
        "emergency-cover": ", 2R: enemy-held hex" if r == "5.3.3" else ", emergency, 2R",
        "emergency-naval-cover": ", emergency, 4R",
    }
    return (
        f"[{r}] cover {f.cover} ({f.type} over {f.over}, {f.mp} MP"
        f"{shift.get(f.mission, '')}): APAT 2D6 {f.roll}{_drm(f.drm or 0)}"
        f" = {f.percent}%: {f.available} of {f.of} over the target"
    )


def _interception(d: Disclosure) -> str:
    """R123: the enemy's cover over a launching base: the base's CAP against it, or it
    against the launch; who fought, the bounce and each attack's dice."""
    told = _as(LaunchInterception, d)
    f = told.fight
    names = (
        ("base CAP", "cover", "-") if told.stage == "base CAP" else ("cover", "escort", "bomber")
    )
    who = "; ".join(
        f"{name} " + ", ".join(f"{e.n} {e.type} ({e.eliminated} el, {e.aborted} ab)" for e in stack)
        for name, stack in zip(names, (f.cap, f.escorts, f.bombers), strict=True)
        if stack
    )
    b = f.bounce
    how = f"routine {f.routine}"
    if b:
        how += f", bounce 1D6 {b.roll}{_drm(b.drm)}: {b.to}'s"
    steps = "; ".join(
        f"{x.attacker} > {x.defender} {x.strength}/{x.aps} 2D6 {x.roll}: "
        f"{x.aborted_points}/{x.eliminated_points}"
        for x in f.steps
    )
    stage = "the base's CAP v the cover" if told.stage == "base CAP" else "the cover v the launch"
    return f"[{d.rule}] over {told.base}, {stage} at {f.level}: {how}; {who}" + (
        f"; {steps}" if steps else ""
    )


class _Strike:
    """One strike as a side saw it: its notes and the rows of its tables."""

    def __init__(self, time: str) -> None:
        self.time = time
        self.striker = "?"
        self.target = ""  # "<owner> TFn", once a fact names it
        self.notes: list[str] = []
        self.told: list[str] = []  # each fact's sentence, in the order told
        self.rows: dict[str, list[Row]] = {}
        self.results: list[str] = []
        self.title = ""  # a block of its own title (R123), else from striker and target
        # APs lost by type: the strike's and the CAP's, eliminated and aborted
        self.lost: dict[str, dict[str, int]] = {k: {} for k in ("elim", "abort", "cap", "cap-ab")}

    def lose(self, key: str, types: Mapping[str, int]) -> None:
        for t, n in types.items():
            self.lost[key][t] = self.lost[key].get(t, 0) + int(n)

    def add(self, table: str, row: Sequence[Any]) -> None:
        self.rows.setdefault(table, []).append([str(c) for c in row])


def _launch(s: _Strike, d: Disclosure) -> None:
    f = d.fact
    if f.kind == StrikeLaunched.KIND:
        launched = _as(StrikeLaunched, d)
        s.striker = str(launched.side)
        where = "a carrier launch hex" if launched.carrier else "an air base"
        s.notes.append(f"[{d.rule}] launched from {launched.origin} ({where})")
    elif f.kind == CarrierCoordination.KIND:
        cc = _as(CarrierCoordination, d)
        s.notes.append(
            f"[{d.rule}] carrier coordination, {cc.tf} (air rating {cc.air_rating}): "
            f"{_cc(cc.launch)}: {cc.launch.fighters} fighter(s), {cc.launch.bombers} bomber(s) launch"
        )
    elif f.kind == TorpedoArming.KIND:  # 7.10.1, R127
        t = _as(TorpedoArming, d)
        best = ", an elite majority" if t.elite_majority else ""
        s.notes.append(
            f"[{d.rule}] torpedo arming at {t.base}: {t.present} torpedo-capable APs"
            f"{best}; 1D10 {t.roll}{_drm(t.drm)}: {t.may_arm} may carry "
            f"torpedoes, {t.armed} of {t.plotted} do, the rest bombs"
        )
    else:  # joint-availability (9.3, 5.8.2)
        j = _as(JointAvailability, d)
        s.add("availability", [j.base, j.type, j.roll, f"{j.percent}%", f"{j.available} of {j.of}"])


def _combat(s: _Strike, d: Disclosure) -> None:
    """6.1.1: the forces at the level, then each attack's roll and result."""
    f = _as(AirCombatAtLevel, d).fight
    lv = f.level
    for role, key in (("CAP", "cap"), ("escort", "escorts"), ("bomber", "bombers")):
        for e in getattr(f, key):
            t = f"{e.type} green" if e.green else e.type  # 58.2.1
            s.add("forces", [lv, role, t, e.n, e.eliminated, e.aborted])
            elim, ab = ("cap", "cap-ab") if key == "cap" else ("elim", "abort")
            s.lose(elim, {e.type: e.eliminated})
            s.lose(ab, {e.type: e.aborted})
    bounce = f.bounce
    how = f"routine {f.routine}"
    if bounce and bounce.green:
        how += ", bounce: cap's (58.2.1: green fighters in the strike)"
    elif bounce and bounce.avg:
        how += f", bounce: {bounce.to}'s (6.2.3: the AVG)"
    elif bounce:
        how += f", bounce 1D6 {bounce.roll}{_drm(bounce.drm)}: {bounce.to}'s"
    s.notes.append(f"[6.1.1] air combat at {lv}: {how}")
    for st in f.steps:
        s.add(
            "air-combat",
            [
                lv,
                f"{st.attacker} > {st.defender}",
                f"{st.strength}/{st.aps}",
                f"{st.roll}{_drm(st.drm)}",  # 6.2.3: the AVG's +1
                f"{st.aborted_points}/{st.eliminated_points}",
                f"elim {_n(st.eliminated)}; abort {_n(st.aborted)}",
            ],
        )


def _attack(s: _Strike, d: Disclosure) -> None:
    """7.8.1 Steps 2-7 of one wave's attack on one ship."""
    f = _as(AirSurfaceAttack, d)
    a = f.attacked
    torp = a.anti_torpedo
    t = f"{torp.dice[0]}-{torp.dice[1]}v{torp.rating}={torp.torpedo}" if torp else "-"
    # Step 3: each speed-class reduction, said after the result (the column that wraps)
    mods = [m for m, on in (("combined", f.combined), ("no CAP", f.no_cap)) if on]
    adm = f.admiral
    if adm.get("column"):
        mods.append(f"admiral {adm['column']} column(s)")
    if adm.get("drm"):
        mods.append(f"admiral DRM {_signed(int(adm['drm']))}")
    if f.surprise:
        mods.append(f"surprise -{f.surprise}")  # 38.3.1
    result = "SUNK" if a.sunk else f"{a.result}, now D{a.damage}"
    if mods:
        result += f" (SC: {', '.join(mods)})"
    s.add(
        "attacks",
        [
            f.wave,
            f"{a.type} {a.ship}",
            a.speed_class,
            a.anti_ship,
            t,
            f"{a.altitude}{_signed(a.drm)}",
            a.roll,
            f"{a.damage_points}/{a.defence}",
            a.odds,
            a.crt_roll,
            result,
        ],
    )
    hit = "sunk" if a.sunk else "no effect" if a.result == "-" else a.result
    s.results.append(f"{a.type} {a.ship} {hit}")


Teller = Callable[[_Strike, Disclosure], None]


def _revealed(d: Disclosure) -> str:
    return f"[{d.rule}] the target's carriers have a strike plotted this phase"


def _true_report(d: Disclosure) -> str:
    f = _as(SearchReport, d)
    return f"[{d.rule} A] True report on {f.owner} {f.tf}: {f.report}"


def _priority(d: Disclosure) -> str:
    return f"[{d.rule}] target priority: {_as(TargetPriority, d).priority}"


def _sequence(d: Disclosure) -> str:
    f = _as(StrikeSequence, d)
    return f"[{d.rule}] strike sequence: 1D6 {f.roll}{_drm(f.drm)}: {f.result}"


def _said(d: Disclosure) -> str:
    """A Magic chit played in the strike (42.4.1, 42.4.3), told as its sentence."""
    return sentence(d.fact.kind, d.fact.to_json(), None, d.rule)


def _altitudes(d: Disclosure) -> str:
    f = _as(StrikeAltitudes, d)
    levels = ", ".join(f"{lv} {how}" for lv, how in f.levels.items()) or "none"
    return f"[{d.rule} B] altitudes: {levels}"


def _cap_coordination(d: Disclosure) -> str:
    """The CAP's own carrier coordination (8.1.4 "including CAP")."""
    f = _as(CarrierCoordination, d)
    return (
        f"[{d.rule}] CAP carrier coordination, {f.tf} (air rating {f.air_rating}): "
        f"{_cc(f.launch)}: {f.launch.fighters} fighter(s) fly CAP"
    )


def _avg(s: _Strike, d: Disclosure) -> None:
    for lv, c in _as(AvgStrikeComposition, d).levels.items():
        s.notes.append(
            f"[{d.rule}] before the AVG fights, the strike at {lv}: bombers "
            f"{_n(c['bombers'])}; escorts {_n(c['escorts'])}"
        )


def _in_port(d: Disclosure) -> str:
    f = _as(ShipsInPort, d)
    return (
        f"[{d.rule}] in port at {f.port}: the port's AA {f.port_aa} fires too; "
        "torpedoes at half strength"
    )


def _surprise(d: Disclosure) -> str:
    f = _as(InPortSurprise, d)
    return (
        f"[{d.rule}] wave {f.wave} surprise: 1D6 {f.roll}{_drm(f.drm)}: speed class -{f.reduction}"
    )


def _cap_allotted(d: Disclosure) -> str:
    """R135: the owner's own order, what it made."""
    f = _as(CapAllotted, d)
    at = "; ".join(f"{lv} {_n(by)}" for lv, by in f.levels.items()) or "none"
    return f"[{d.rule} B] your CAP order over {f.tf} ({f.order}): {at}"


def _night_contact(s: _Strike, d: Disclosure) -> None:
    f = _as(NightContact, d)
    for x in f.rolls:
        s.add(
            "night-contact",
            [x.type, x.base, f"{x.roll}{_drm(x.drm)}", x.result],
        )
    s.lose("elim", f.destroyed)


def _placement(s: _Strike, d: Disclosure) -> None:
    for p in _as(AirSurfacePlacement, d).ships:
        s.add("placement", [p.ring, p.arc, p.type, "yes" if p.at_least_d2 else "-"])


def _wave_coordination(d: Disclosure) -> str:
    f = _as(WaveCoordination, d)
    roll = "-" if f.roll is None else f.roll
    joined = "joins the primary's" if f.combined else "its own wave"
    return (
        f"[{d.rule}] waves from {f.origin}: {f.between} hexes from the primary {f.primary} "
        f"(which is {f.distance} from the target), 1D6 {roll}: {joined}"
    )


def _wave_entry(s: _Strike, d: Disclosure) -> None:
    """7.7.1: the wave's arc (the elite's choice), its ring and make-up."""
    f = _as(WaveEntry, d)
    aps = ", ".join(f"{a.n} {a.type} {a.role}/{a.mode}" for a in f.aps)
    arc = f"{f.entry_arc}" if f.rolled is None else f"{f.entry_arc} (elite, 1D6 {f.rolled})"
    s.add("waves", [f.wave, arc, f.target_ring, aps])


def _aa_fire(s: _Strike, d: Disclosure) -> None:
    f = _as(AaFire, d)
    x = f.fired
    s.lose("elim", x.eliminated)
    s.lose("abort", x.aborted)
    s.add(
        "aa",
        [
            f.wave,
            f.component,
            x.aa,
            f"{_signed(x.columns)}/{_signed(x.drm)}",
            x.roll,
            f"elim {_n(x.eliminated)}; abort {_n(x.aborted)}"
            + (f" ({'; '.join(f.why)})" if f.why else ""),
        ],
    )


def _ring(s: _Strike, d: Disclosure) -> None:
    f = _as(TargetRingSpeeds, d)
    ships = ", ".join(f"{x.ring} {x.arc} {x.type or '?'} SC{x.speed_class}" for x in f.ships)
    s.add("ring", [f.wave, ships])


def _targeted(s: _Strike, d: Disclosure) -> None:
    f = _as(ShipTargeted, d)
    s.add("targeted", [f.wave, f"{f.ring} {f.arc}", f"{f.type} {f.ship}"])


def _critical_rolls(s: _Strike, d: Disclosure) -> None:
    """16.7: the owner's every roll."""
    f = _as(CriticalHitRolls, d)
    for x in f.rolls:
        s.add(
            "critical",
            [
                f.ship,
                f"{x.dice[0]}-{x.dice[1]}",
                "critical" if x.critical else "-",
                "doubles: told" if x.doubles and x.critical else "-",
                f"D{x.damage}",
            ],
        )
    if any(x.critical for x in f.rolls):
        s.results.append(f"{f.ship} critical hit(s): now D{f.rolls[-1].damage}")


def _critical_hit(s: _Strike, d: Disclosure) -> None:
    """16.7, R100: the striker told of a critical hit on doubles."""
    f = _as(CriticalHit, d)
    a, b = f.dice
    s.add("critical", [f.ship, f"{a}-{b}", "critical", "doubles: told", "?"])
    s.results.append(f"{f.ship} critical hit (doubles {a}-{b})")


def _extended(s: _Strike, d: Disclosure) -> None:
    f = _as(ExtendedRangeLosses, d)
    s.add("extended", [f.type, f.roll, f.rating, f.extra])


def _extreme(s: _Strike, d: Disclosure) -> None:
    """5.15: the return roll, the striker's own."""
    f = _as(ExtremeRangeLosses, d)
    s.add("extreme", [f.type, f.column, f.roll, f"{f.percent}%", f.returning, f.lost])


def _suppression(s: _Strike, d: Disclosure) -> None:
    """7.9: the striker's peel-off (its own), then each wave's suppression roll."""
    if d.fact.kind == AaSuppressors.KIND:
        a = _as(AaSuppressors, d)
        s.notes.append(
            f"[{d.rule}] AA suppression asked of {a.asked} loose escort(s); "
            f"{a.escorts} escort(s) v {a.cap} CAP: {_n(a.peeled)} peel off"
        )
        return
    f = _as(AaSuppression, d)
    x = f.rolled
    s.add("suppression", [f.wave, x.ring, f"{x.adjusted}/{x.aps}", x.roll, f"{x.low}/{x.high}"])


def _noted(line: Callable[[Disclosure], str]) -> Teller:
    """A fact told as one note of the block, the ``line`` it makes."""

    def tell(s: _Strike, d: Disclosure) -> None:
        s.notes.append(line(d))

    return tell


# How each fact a strike's block tells is told: a note, or rows of its tables.
_TOLD: Mapping[str, Teller] = {
    "plotted-strike-revealed": _noted(_revealed),
    "search-report": _noted(_true_report),
    "target-priority": _noted(_priority),
    "strike-sequence": _noted(_sequence),
    "strike-sequence-chit": _noted(_said),
    "planes-on-deck": _noted(_said),
    "strike-altitudes": _noted(_altitudes),
    "carrier-coordination": _noted(_cap_coordination),  # a launch's is told by _launch
    "avg-strike-composition": _avg,
    "ships-in-port": _noted(_in_port),
    "in-port-surprise": _noted(_surprise),
    "cap-allotted": _noted(_cap_allotted),
    "night-contact": _night_contact,
    "air-surface-placement": _placement,
    "air-combat": _combat,
    "wave-coordination": _noted(_wave_coordination),
    "wave-entry": _wave_entry,
    "aa-fire": _aa_fire,
    "target-ring-speeds": _ring,
    "ship-targeted": _targeted,
    "air-surface-attack": _attack,
    "critical-hit-rolls": _critical_rolls,
    "critical-hit": _critical_hit,
    "extended-range-losses": _extended,
    "extreme-range-losses": _extreme,
    "aa-suppressors": _suppression,
    "aa-suppression": _suppression,
}


def _fact(s: _Strike, d: Disclosure) -> None:
    told = _TOLD.get(d.fact.kind)
    if told is not None:
        told(s, d)


# Each table: its caption (with the rule) and its head, in report order.
TABLES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("availability", "Joint strike availability (9.3)", ("base", "type", "1D10", "%", "flown")),
    ("placement", "Placement, face down (7.2.1)", ("ring", "arc", "type", "at least D2")),
    ("forces", "Air combat: who fought (6.1.1)", ("alt", "as", "type", "n", "elim", "abort")),
    (
        "air-combat",
        "Air combat: each attack (6.3, Air-to-Air CRT)",
        ("alt", "attack", "str/APs", "2D6", "ab/el pts", "result"),
    ),
    ("night-contact", "PBY night contact (14.2.3)", ("type", "from", "1D6", "result")),
    ("waves", "Waves (7.7.1, 10.1.1)", ("wave", "arc", "ring", "APs (role/AA mode)")),
    (
        "suppression",
        "AA suppression (7.9.1, Air-to-Air CRT: Low/High AA off)",
        ("wave", "ring", "str/APs", "2D6", "low/high"),
    ),
    ("aa", "AA fire (10.1)", ("wave", "vs", "AA", "col/DRM", "2D6", "result")),
    ("ring", "Target ring, speed classes (7.8.1 Step 1)", ("wave", "ships")),
    ("targeted", "Ships targeted (7.2.1)", ("wave", "at", "ship")),
    (
        "attacks",
        "Attacks (7.8.1: speed class, anti-ship, anti-torpedo 2D6 v rating = torpedo "
        "value, altitude DRM; 1D6 on the Air/Surface Damage Table; damage points v "
        "defence; 1D6 on the Naval CRT)",
        ("wave", "ship", "SC", "AS", "torp", "alt", "dmg", "pts/def", "odds", "CRT", "result"),
    ),
    ("critical", "Critical hits (16.7)", ("ship", "2D6", "critical", "doubles", "damage")),
    ("extended", "Extended range: losses doubled? (6.3.3)", ("type", "1D10", "rating", "extra")),
    (
        "extreme",
        "Extreme range: the return roll (5.15)",
        ("type", "column", "2D6", "lost %", "back", "lost"),
    ),
)


@dataclass(frozen=True)
class Table(Record):
    """One of a strike block's tables (TABLES): its caption with the rule, its head,
    a row a fact (or a fact's part); its JSON by the one codec (records.py)."""

    key: str
    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class StrikeBlock(Record):
    """One strike as a side's report tells it (5.0-12.4, 16.7): its title, notes,
    tables and result; as JSON, the view's ``strikes`` entry."""

    time: str
    title: str
    notes: tuple[str, ...]
    tables: tuple[Table, ...]
    result: str
    told: tuple[str, ...]
    summary: str  # the result in short, for the report's digest


def _block(s: _Strike, side: str | None) -> StrikeBlock:
    target = s.target or "?"
    if side is None:
        title = f"{s.striker} strike on {target}"
    elif s.striker == side:
        title = f"Your strike on {target}"
    else:
        title = f"Enemy ({s.striker}) strike on your {target.split(' ', 1)[-1]}"
    tables = tuple(
        Table(key, caption, head, tuple(tuple(r) for r in s.rows[key]))
        for key, caption, head in TABLES
        if s.rows.get(key)
    )
    lost = s.lost
    result = [
        "; ".join(s.results) or "no ship hit",
        f"strike lost {_n(lost['elim'])} eliminated, {_n(lost['abort'])} aborted",
    ]
    if lost["cap"] or lost["cap-ab"] or s.rows.get("forces"):
        result.append(f"CAP lost {_n(lost['cap'])} eliminated, {_n(lost['cap-ab'])} aborted")
    whole = s.title or f"{s.time}: {title}"
    return StrikeBlock(
        s.time, whole, tuple(s.notes), tables, "; ".join(result), tuple(s.told), _summary(s)
    )


def _summary(s: _Strike) -> str:
    """What came of the strike, in short: the hits, then only the losses there were."""
    lost = s.lost
    said = ["; ".join(s.results) or "no ship hit"]
    for who, elim, abort in (("the strike", "elim", "abort"), ("the CAP", "cap", "cap-ab")):
        parts = [
            f"{n} {what}"
            for n, what in ((_n(lost[elim]), "shot down"), (_n(lost[abort]), "turned back"))
            if n != "-"
        ]
        if parts:
            said.append(f"{who} lost {' and '.join(parts)}")
    return "; ".join(said)


def build(k: Knowledge, recent: Collection[str] | None = None) -> list[dict[str, Any]]:
    """The strikes ``k.side`` saw in the round (``recent``: its game times; None:
    the whole game), in the order they were told, as the view's JSON."""
    strikes: list[_Strike] = []
    current: _Strike | None = None
    cover: list[str] = []  # the owner's cover lines, told before the strike they meet
    cover_told: list[str] = []  # and their sentences
    for d in k.disclosed:
        kind = d.fact.kind
        if kind == STOPPED and (recent is None or d.time in recent):
            current = _stopped(d, cover)  # R123: its own block; a launch opens the next
            current.told = [*cover_told, _sentence(d, k.side)]
            strikes.append(current)
            cover, cover_told = [], []
            continue
        if kind in COVER and (recent is None or d.time in recent):
            cover.append(_cover(d))
            cover_told.append(_sentence(d, k.side))
            continue
        strike_fact = kind in SECTIONED or (
            kind == SearchReport.KIND and _as(SearchReport, d).source == STRIKE_CONTACT
        )
        if not strike_fact or (recent is not None and d.time not in recent):
            continue
        launching = kind in LAUNCH and not (
            kind == CarrierCoordination.KIND and _as(CarrierCoordination, d).cap
        )
        if (
            current is None
            or current.time != d.time
            or (kind == "strike-launched" and current.target and not _announced(current))
        ):
            current = _Strike(d.time)
            strikes.append(current)
        if cover and current.time == d.time:
            current.notes += cover
            current.told += cover_told
            cover, cover_told = [], []
        current.told.append(_sentence(d, k.side))
        if launching:
            _launch(current, d)
            if current.target.startswith("? ") and current.striker in SIDES:
                current.target = f"{enemy_of(current.striker)} {current.target[2:]}"
            continue
        tf = _target_tf(d.fact)
        if not current.target and tf is not None:  # the target TF, the striker's enemy's
            owner = enemy_of(current.striker) if current.striker in SIDES else "?"
            current.target = f"{owner} {tf}"
        _fact(current, d)
    if cover:  # told with no strike after them: a block of their own
        strikes.append(_Strike(strikes[-1].time if strikes else "?"))
        strikes[-1].notes += cover
        strikes[-1].told += cover_told
    return [_block(s, k.side).to_json() for s in strikes]


def _sentence(d: Disclosure, side: str | None) -> str:
    return sentence(d.fact.kind, d.fact.to_json(), side, d.rule)


def _target_tf(f: Fact) -> str | None:
    """The TF a strike's fact names (a fact kept raw: as stored); None: none named."""
    tf = f.to_json().get("tf") if isinstance(f, RawFact) else getattr(f, "tf", None)
    return None if tf is None else str(tf)


def _announced(s: _Strike) -> bool:
    """Whether the block holds only what 12.0-12.1 told the target's side before the
    strike's launch was announced to it (its plotted strike revealed, the Strike
    Sequence roll): the launch that follows is that strike's, not the next one's."""
    return s.striker == "?" and not s.rows and not s.results


def _stopped(d: Disclosure, cover: Sequence[str]) -> _Strike:
    """R123: a strike every AP of which the enemy's cover stopped at its launch."""
    s = _Strike(d.time)
    s.target = "-"  # closed: the next launch opens another block
    base = _as(LaunchIntercepted, d).base
    s.notes = [*cover, f"[{d.rule}] the strike from {base} was stopped at launch"]
    s.title = f"{d.time}: a strike from {base} stopped at launch"
    return s
