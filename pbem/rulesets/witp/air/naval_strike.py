"""7.1 One naval strike, from launch to critical hits: (state, strike, dice) ->
(state, events). Every fact a side learns goes through ``knowledge.disclose`` with
its rule and audience (witp-hidden-info 4.1-4.2, 6):

- 5.0 launch: the launching base, or a carrier's launch hex only: both sides;
- 8.1.4 carrier coordination, 9.3 joint-strike availability and 7.10.1 land-based
  torpedo arming (R127): the striker's own rolls;
- 12.0 a plotted strike at the target revealed, and the 12.1 sequence: both;
- 7.1 A the True report on the target: the striker (and owner);
- 7.3 the target priority: both;
- 7.2.1 placement, face down: ring, arc, type, "at least D2" (at night nothing but
  the arc, 14.2.2): the striker;
- 7.1 B the altitudes used and whether each is escorted, no numbers or types: the
  naval player;
- 6.2.2 the strike's exact altitude components, before the AVG fights it: the
  naval player;
- 7.1 B the owner's plotted CAP order and the CAP it placed at each level (R135):
  the owner;
- 6.x air combat, the elements as they fight (R11): both;
- 14.2.3 the PBYs' night contact rolls (R136): both;
- 7.7, 10.1.1 each wave's entry arc and target ring, and through AA its make-up: both;
- 7.8.1 speed classes in the target ring and a ship's identity once targeted: the
  striker; the attacks' dice and results: both;
- 16.7 critical hits: every roll to the owner, a doubles critical to the striker;
- 38.3.1 a TF in port, its port and the port's AA, and each wave's surprise roll:
  both;
- 6.3.3 extended-range loss doubling: the striker's own;
- 5.15 the extreme-range return roll: the striker's own (the moderator's stream).

The owner's choices follow the doctrine (rulings.air-doctrine, R92) with each side's
standing ``air_doctrine`` over it; a striker's choice reads only what that side has
been told.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.sides import JAPANESE, SIDES
from pbem.rulesets.witp import chits, draws
from pbem.rulesets.witp.air import (
    aa,
    altitude,
    attack,
    availability,
    avg,
    capsplit,
    combat,
    coordination,
    critical,
    display,
    elite,
    extreme,
    port,
    sequencing,
    suppression,
    torpedo,
    training,
)
from pbem.rulesets.witp.air import cover as cover_rules
from pbem.rulesets.witp.air import entry as entry_arc
from pbem.rulesets.witp.air import night as night_rules
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.ships import (
    CARRIER_TYPES,
    mark_by_type,
    ships_of,
    take_losses,
    tf_air,
)
from pbem.rulesets.witp.air.tables import DOCTRINE, ROLES, air_unit, known_type, value
from pbem.rulesets.witp.hexgrid import distance
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, disclose

LEVELS = ("L", "M", "H")


def doctrine(state: Mapping[str, Any], side: str) -> dict[str, Any]:
    base = dict(value(state[PUBLIC], DOCTRINE))
    base.update(state[PRIVATE][side].get("standing", {}).get("air_doctrine", {}))
    return base


def _shrink(stacks: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """``keep`` of the stacks' APs, each type cut in proportion (rounded up, in order)."""
    total = sum(int(s["n"]) for s in stacks)
    out, left = [], keep
    for s in stacks:
        k = min(left, math.ceil(int(s["n"]) * keep / total)) if total else 0
        left -= k
        out.append({**s, "n": k})
    return [s for s in out if s["n"] > 0]


def _launch(
    st: dict[str, Any],
    strike: Mapping[str, Any],
    ratings: Mapping[str, Ratings],
    dice: Dice,
    time: str,
) -> tuple[list[dict[str, Any]], list[Event]]:
    """5.0, 8.1.4, 5.10: the parts that reach the target, with their APs."""
    public, side = st[PUBLIC], strike["side"]
    own = st[PRIVATE][side]
    events: list[Event] = []
    parts = []
    for i, part in enumerate(strike["parts"]):
        where = part["hex"] if part["carrier"] else part["base"]
        fact = {"kind": "strike-launched", "side": side, "from": where, "carrier": part["carrier"]}
        events.append(disclose(st, fact, SIDES, time, "5.0"))
        bombers, arming = torpedo.at_launch(public, own, part, dice, f"{side} {part['base']} 7.10")
        if arming:  # 7.10.1, R127: the launching side's own roll
            events.append(disclose(st, arming, [side], time, "7.10.1"))
        escorts = [dict(e) for e in part["escorts"]]
        if part["carrier"]:
            r = ratings.get(side) or coordination.rate(public, None, dice, f"{side} CTF")
            ships = ships_of(own, own["tfs"][part["base"]])
            f, b = sum(e["n"] for e in escorts), sum(e["n"] for e in bombers)
            cc = coordination.launch(public, ships, r, f, b, dice, f"{side} {part['base']} CC")
            escorts, bombers = _shrink(escorts, cc.fighters), _shrink(bombers, cc.bombers)
            fact = {
                "kind": "carrier-coordination",
                "tf": part["base"],
                "air_rating": r.air,
                **cc.to_json(),
            }
            events.append(disclose(st, fact, [side], time, "8.1.4"))
        if i > 0 or part.get("apat"):  # a Joint Strike's following base (5.10, 9.3), a
            # base's successive special strike (5.8.2): the APAT, at the range flown
            kept = []
            for e in bombers + escorts:
                n, roll, pct = availability.available(
                    public, e["n"], part["mp"], "joint-following", dice, f"{side} joint {e['type']}"
                )
                fact = {
                    "kind": "joint-availability",
                    "base": part["base"],
                    "type": e["type"],
                    "roll": roll,
                    "percent": pct,
                    "available": n,
                    "of": e["n"],
                }
                events.append(disclose(st, fact, [side], time, "9.3"))
                kept.append({**e, "n": n})
            nb = len(bombers)
            bombers = [e for e in kept[:nb] if e["n"]]
            escorts = [e for e in kept[nb:] if e["n"]]
        day = not strike.get("night")  # 7.11.5: the night elite's bonuses at night only
        bombers = elite.split(own, str(part["base"]), bombers, day)  # 7.11
        escorts = elite.split(own, str(part["base"]), escorts, day)
        bombers = training.split(own, str(part["base"]), bombers)  # 58.2.1
        if not part["carrier"]:
            escorts = avg.mark(public, str(part["base"]), escorts)  # 6.2.3
        escorts = training.split(own, str(part["base"]), escorts)
        parts.append({**part, "elements": bombers, "escorts": escorts})
    return parts, events


def air_stacks(
    public: Mapping[str, Any], group: Sequence[Mapping[str, Any]], level: str, *, bombers: bool
) -> list[combat.Stack]:
    """``group``'s APs flying at ``level`` as air combat stacks (5.2, 7.11); shared
    with air/intercept.py (R123)."""
    out = []
    for e in group:
        if e["alt"] != level or int(e["n"]) < 1:
            continue
        t, best, green = str(e["type"]), bool(e.get(elite.KEY)), bool(e.get(training.KEY))
        air = air_unit(public, t)["air"]
        base = int(air["extended" if e.get("range", "normal") != "normal" else "normal"])
        base += elite.air_combat(public, t) if best else 0  # 7.11: elite A6M +1
        if bombers:
            d = altitude.bomber_strength(
                public,
                base,
                air.get("altitude"),
                level,
                elite=best and elite.any_altitude(public, t),
            )
            rf = int(air.get("return_fire", 0))
            if green:  # 58.2.1: halved, rounded up, not below 2 (return fire 1)
                d, rf = training.air_combat(d, bomber=True), training.return_fire(rf)
            out.append(combat.Stack(t, int(e["n"]), rf, d, False, elite=best, green=green))
        else:
            s = altitude.fighter_strength(public, base, air.get("altitude"), level)
            s = training.air_combat(s, bomber=False) if green else s  # 58.2.1
            fly = bool(e.get(avg.KEY))  # 6.2.3
            hf = "HF" in air_unit(public, t)["roles"]  # 4.2.1: -1 against enemy F types
            out.append(
                combat.Stack(t, int(e["n"]), s, s, True, elite=best, green=green, avg=fly, heavy=hf)
            )
    return out


def cap_levels(
    public: Mapping[str, Any],
    cap: Mapping[str, int],
    levels: Sequence[str],
    shares: Mapping[str, int] | None = None,
) -> list[dict[str, Any]]:
    """The owner's plotted ``CAP`` shares over the levels used (7.1 B, R135), else the
    doctrine (R92): the CAP split evenly over the levels used, the lowest first;
    each AP only where it may fly (5.2.3)."""
    out: list[dict[str, Any]] = []
    for t, n in sorted(cap.items()):
        air = air_unit(public, t)["air"]
        ok = [
            lv
            for lv in levels
            if altitude.may_fly(public, int(air["normal"]), air.get("altitude"), lv)
        ]
        dealt = capsplit.deal(n, ok, shares or {})
        for k, lv in enumerate(ok):
            share = n // len(ok) + (1 if k < n % len(ok) else 0)
            share = dealt.get(lv, 0) if dealt else share
            if share:
                out.append({"type": t, "n": share, "alt": lv, "range": "normal"})
    return out


def _elite_first(cap: Sequence[Mapping[str, Any]], best: Mapping[str, int]) -> list[dict[str, Any]]:
    """7.11: each type's ``best`` elite CAP APs marked, level by level, lowest first."""
    return mark_by_type(cap, best, elite.KEY)


def stacks_told(stacks: Sequence[combat.Stack]) -> list[dict[str, Any]]:
    """Air combat stacks as a report tells them (6.1.1)."""
    return [s.to_json() for s in stacks]


def _wave_aps(
    public: Mapping[str, Any], stacks: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    out = []
    for e in stacks:
        if int(e["n"]) < 1:
            continue
        role, flown = str(e["role"]), str(e["alt"])
        out.append(
            {
                **e,
                "aa_mode": altitude.aa_mode(role, flown),
                "attack_alt": altitude.attack_altitude(role, flown),
            }
        )
    return out


def _choose_target(
    public: Mapping[str, Any], seen: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any]:
    """The doctrine (R92) from what the striker was told: the type first in 7.3.2's
    order, then the slowest, then the first position."""
    return min(
        seen,
        key=lambda s: (
            display.priority_rank(public, str(s["type"])),
            int(s["speed_class"]),
            str(s["ring"]),
            int(s["arc"]),
        ),
    )


def resolve(
    state: Mapping[str, Any],
    strike: Mapping[str, Any],
    dice: Dice,
    secret: Dice,
    time: str,
    *,
    ratings: Mapping[str, Ratings] | None = None,
    target_plotted: bool = False,
    cover: Sequence[Mapping[str, Any]] = (),
    cover_losses: dict[str, list[int]] | None = None,
    committed: Mapping[str, int] | None = None,
    coastwatcher_alerted: bool = False,
    unlocated_carriers: bool = False,
    cap_split: Mapping[str, int] | None = None,
) -> tuple[dict[str, Any], list[Event]]:
    """Resolve ``strike`` (a plot.AirPlot strike) against its target TF.

    ``dice``: the open stream (every roll here is open but the critical-hit rolls);
    ``secret``: the moderator's stream for the owner's critical-hit rolls (16.7);
    ``ratings``: the CTF commanders' rolled ratings by side (none: leaderless, 8.8);
    ``target_plotted``: the target's carriers have a strike plotted this phase (12.0);
    ``cover``: Cover/Naval Cover over the TF that the APAT let through ({type, n,
    elite}, 9.2; ``elite``: how many of them are elite, 7.11);
    ``cover_losses``: filled with the cover's share of the CAP's losses by type
    ({type: [eliminated, aborted, elite eliminated]}, R110: the TF's own fighters
    take them first);
    ``committed``: the TF's fighters flying other missions this phase, by type (5.3);
    ``cap_split``: the owner's plotted CAP shares by level (7.1 B, R135; None: R92).
    CAP aborted here is kept in the owner's ``cap_aborted`` (by TF and type) and flies
    no later CAP this phase (5.1.1, 5.3.6); the caller clears it when the phase ends."""
    st = copy.deepcopy(dict(state))
    events = resolve_into(
        st,
        strike,
        dice,
        secret,
        time,
        ratings=ratings,
        target_plotted=target_plotted,
        cover=cover,
        cover_losses=cover_losses,
        committed=committed,
        coastwatcher_alerted=coastwatcher_alerted,
        unlocated_carriers=unlocated_carriers,
        cap_split=cap_split,
    )
    return st, events


def sequence_strike(
    st: dict[str, Any],
    strike: Mapping[str, Any],
    dice: Dice,
    time: str,
    *,
    ratings: Mapping[str, Ratings] | None = None,
    unlocated_carriers: bool = False,
) -> tuple[str, list[Event]]:
    """12.0-12.3: the target's plotted strike revealed to both, the striker's Strike
    Sequence roll with the Air-rating DRM; (the result, the events)."""
    ratings = ratings or {}
    side, naval, tf_id = strike["side"], strike["target"]["owner"], strike["target"]["tf"]
    both = [side, naval]
    events = [disclose(st, {"kind": "plotted-strike-revealed", "tf": tf_id}, both, time, "12.0")]
    sa, ta = ratings.get(side), ratings.get(naval)
    roll, drm, seq = sequencing.sequence(
        st[PUBLIC],
        dice,
        f"strike sequence {tf_id}",
        striker_air=sa.air if sa else None,
        target_air=ta.air if ta else None,
        unlocated_carriers=unlocated_carriers,
    )
    fact = {"kind": "strike-sequence", "tf": tf_id, "roll": roll, "drm": drm, "result": seq}
    events.append(disclose(st, fact, both, time, "12.1"))
    return seq, events


def resolve_into(
    st: dict[str, Any],
    strike: Mapping[str, Any],
    dice: Dice,
    secret: Dice,
    time: str,
    *,
    ratings: Mapping[str, Ratings] | None = None,
    target_plotted: bool = False,
    cover: Sequence[Mapping[str, Any]] = (),
    cover_losses: dict[str, list[int]] | None = None,
    committed: Mapping[str, int] | None = None,
    coastwatcher_alerted: bool = False,
    unlocated_carriers: bool = False,
    cap_split: Mapping[str, int] | None = None,
) -> list[Event]:
    """``resolve`` on ``st`` itself (a state the caller owns: the rounds' working copy,
    which a TF moving through a special strike still refers to)."""
    ratings = ratings or {}
    public = st[PUBLIC]
    side, naval, tf_id = strike["side"], strike["target"]["owner"], strike["target"]["tf"]
    both = [side, naval]
    own_n = st[PRIVATE][naval]
    tf = own_n["tfs"][tf_id]
    night = bool(strike.get("night"))
    parts, events = _launch(st, strike, ratings, dice, time)

    # 12.0-12.3 strike sequencing against a carrier TF with its own plotted strike
    if target_plotted:
        _seq, seq_events = sequence_strike(
            st, strike, dice, time, ratings=ratings, unlocated_carriers=unlocated_carriers
        )
        events += seq_events

    # 7.1 A the True report, then the target priority (7.3)
    ships = ships_of(own_n, tf)
    report = chits.Report.of_ships(ships)
    fact = {
        "kind": "search-report",
        "owner": naval,
        "tf": tf_id,
        "report": report.text(),
        "source": "strike-contact",
    }
    events.append(disclose(st, fact, both, time, "7.1"))
    mine = doctrine(st, side)
    priority = strike.get("priority") or "general"
    if (
        strike.get("priority") is None  # none plotted: the doctrine chooses (R92)
        and mine["target_priority"] == "specific-carriers-else-general"
        and not night
    ):
        carriers = [t for t in CARRIER_TYPES if report.types.get(t)]
        priority = carriers[0] if carriers else "general"
    if night:
        priority = "general"  # 14.2.2: placed as for a General priority
    events.append(
        disclose(
            st, {"kind": "target-priority", "tf": tf_id, "priority": priority}, both, time, "7.3"
        )
    )

    # 7.2 placement, face down
    positions = display.place(public, ships, priority)
    by_name = {str(s["name"]): s for s in ships}
    seen = [
        {
            "ring": p[0],
            "arc": p[1],
            "type": "?" if night else by_name[n]["type"],
            "at_least_d2": False if night else int(by_name[n].get("damage", 0)) >= 2,
        }
        for n, p in sorted(
            positions.items(),
            # by position and type, never by name: the counters are face down
            key=lambda kv: (
                display.RINGS.index(kv[1][0]),
                kv[1][1],
                str(by_name[kv[0]]["type"]),
                int(by_name[kv[0]].get("damage", 0)) >= 2,
            ),
        )
    ]
    events.append(
        disclose(
            st,
            {"kind": "air-surface-placement", "tf": tf_id, "ships": seen},
            [side],
            time,
            "14.2.2" if night else "7.2.1",
        )
    )

    # 10.1.2, 38.3.1 ships in port: the port's AA fires too, torpedoes halved, surprise
    in_port = port.in_port(tf)
    if in_port:
        fact = {"kind": "ships-in-port", "tf": tf_id, "port": in_port}
        fact["port_aa"] = port.port_aa(public, in_port)
        events.append(disclose(st, fact, both, time, "38.3.1"))

    # 7.1 B the altitudes used, and whether escorted
    bombers = [e for p in parts for e in p["elements"]]
    escorts = [e for p in parts for e in p["escorts"]]
    levels = [lv for lv in LEVELS if any(e["alt"] == lv for e in bombers)]
    occupied = {
        lv: ("escorted" if any(e["alt"] == lv for e in escorts) else "unescorted") for lv in levels
    }
    events.append(
        disclose(
            st, {"kind": "strike-altitudes", "tf": tf_id, "levels": occupied}, both, time, "7.1"
        )
    )

    # 6.x air combat, level by level, against the TF's CAP (5.3) and Naval Cover
    grounded = own_n.setdefault("cap_aborted", {}).setdefault(tf_id, {})
    busy = committed or {}
    cap_air = {
        t: n - busy.get(t, 0) - int(grounded.get(t, 0))
        for t, n in tf_air(own_n, tf).items()
        if known_type(public, t)  # F and HF fly CAP (4.2.1); floatplanes: none
        and set(air_unit(public, t)["roles"]) & set(value(public, ROLES)["cap"])
    }
    cap_air = {t: n for t, n in cap_air.items() if n > 0}
    if night:
        cap_air = {}  # 14.0: only night fighters fly CAP at night (none in 1942)
    if cap_air and any(s["type"] in CARRIER_TYPES for s in ships):
        r = ratings.get(naval) or coordination.rate(public, None, dice, f"{naval} CTF")
        cc = coordination.launch(
            public, ships, r, sum(cap_air.values()), 0, dice, f"{naval} {tf_id} CAP CC"
        )
        cap_air = {
            s["type"]: s["n"]
            for s in _shrink([{"type": t, "n": n} for t, n in sorted(cap_air.items())], cc.fighters)
        }
        fact = {
            "kind": "carrier-coordination",
            "tf": tf_id,
            "air_rating": r.air,
            "cap": True,
            **cc.to_json(),
        }
        events.append(disclose(st, fact, [naval], time, "8.1.4"))
    own_left = dict(cap_air)  # R110: the TF's own fighters take the CAP's losses first
    # 7.11, R111: the CAP's elite; a strike flies its base's elite first, so the TF's
    # elite left for CAP are those its committed strikes did not take
    best = {
        t: min(n, max(0, elite.held(own_n, tf_id, t) - busy.get(t, 0))) for t, n in cap_air.items()
    }
    avg_cap: dict[str, int] = {}  # 6.2.3: the AVG's P-40s among the cover
    for c in cover:
        if c.get(avg.KEY):
            avg_cap[str(c["type"])] = avg_cap.get(str(c["type"]), 0) + int(c["n"])
        cap_air[str(c["type"])] = cap_air.get(str(c["type"]), 0) + int(c["n"])
        best[str(c["type"])] = best.get(str(c["type"]), 0) + int(c.get(elite.KEY, 0))
    theirs = doctrine(st, naval)
    cap = _elite_first(cap_levels(public, cap_air, levels, cap_split), best)
    green_cap = {  # 58.2.1: the TF's green its strikes did not take
        t: training.cap_green(own_n, tf_id, t, n, busy.get(t, 0)) for t, n in own_left.items()
    }
    cap = training.mark(cap, green_cap)
    green_lost: dict[str, int] = {}  # 58.2.1: green APs eliminated, by type
    green_strike = training.strike_has_green_fighters(escorts) and not any(green_cap.values())
    cap = avg.mark_cap(cap, avg_cap)
    if any(e.get(avg.KEY) for e in cap):  # 6.2.2: told the strike before the AVG fights
        fact = {"kind": "avg-strike-composition", "tf": tf_id}
        fact["levels"] = avg.composition(bombers, escorts)
        events.append(disclose(st, fact, [naval], time, "6.2.2"))
    if cap_split and cap:  # R135: the owner's order and what it made, his alone
        dealt: dict[str, dict[str, int]] = {lv: {} for lv in levels}
        for e in cap:  # an elite stack and a regular of one type: counted together
            at = dealt[str(e["alt"])]
            at[str(e["type"])] = at.get(str(e["type"]), 0) + int(e["n"])
        fact = {"kind": "cap-allotted", "tf": tf_id, "order": capsplit.text(cap_split)}
        events.append(disclose(st, {**fact, "levels": dealt}, [naval], time, "7.1"))
    # 7.9 loose escorts in excess of the CAP peel off to suppress AA, as plotted
    escorts, peeled, asked = suppression.peel_off(parts, sum(int(c["n"]) for c in cap))
    if asked:
        events.append(disclose(st, {**asked, "tf": tf_id}, [side], time, "7.9"))
    bomber_hit_by_cap = False
    eliminated: dict[str, int] = {}
    elite_lost: dict[str, int] = {}  # 7.11.2: elite APs eliminated, by type
    survivors: list[dict[str, Any]] = []
    for lv in levels:
        cs = air_stacks(public, cap, lv, bombers=False)
        loose = air_stacks(
            public, [e for e in escorts if e["posture"] == "loose"], lv, bombers=False
        )
        close = air_stacks(
            public, [e for e in escorts if e["posture"] == "close"], lv, bombers=False
        )
        bs = air_stacks(public, bombers, lv, bombers=True)
        sb = ratings[side].bounce if side in ratings else 0
        cb = ratings[naval].bounce if naval in ratings else 0
        fight = combat.resolve_level(
            public,
            lv,
            cs,
            loose,
            close,
            bs,
            dice,
            striker_bonus=sb,
            cap_bonus=cb,
            cap_choice=str(theirs["cap_attacks"]),
            green_strike=green_strike,
        )
        if fight.routine != "none":
            fact = {
                "kind": "air-combat",
                "tf": tf_id,
                "level": lv,
                "routine": fight.routine,
                "bounce": fight.bounce,
                "steps": fight.steps,
                "cap": stacks_told(cs),
                "escorts": stacks_told(loose + close),
                "bombers": stacks_told(bs),
            }
            events.append(disclose(st, fact, both, time, "6.1.1"))
        bomber_hit_by_cap |= any(
            s["attacker"] == "cap" and s["defender"] == "bombers" for s in fight.steps
        )
        for s in loose + close + bs:
            eliminated[s.type] = eliminated.get(s.type, 0) + s.eliminated
            if s.elite:
                elite_lost[s.type] = elite_lost.get(s.type, 0) + s.eliminated
            if s.green:
                green_lost[s.type] = green_lost.get(s.type, 0) + s.eliminated
        for s in sorted(cs, key=lambda s: not s.elite):  # the elite are the TF's own first
            have = own_left.get(s.type, 0)
            e_own, a_own, e_cover, a_cover = cover_rules.own_first(have, s.eliminated, s.aborted)
            own_left[s.type] = have - e_own - a_own
            if s.elite and e_own:
                elite.lose(own_n, tf_id, s.type, e_own)  # 7.11.2
            if s.green and e_own:
                training.lose(own_n, tf_id, s.type, e_own)  # 58.2.1
            take_losses(own_n, tf_id, s.type, e_own)
            if a_own:
                grounded[s.type] = int(grounded.get(s.type, 0)) + a_own
            if cover_losses is not None and (e_cover or a_cover):
                spent = cover_losses.setdefault(s.type, [0, 0, 0])
                spent[0] += e_cover
                spent[1] += a_cover
                spent[2] += e_cover if s.elite else 0  # 7.11.2: elite lost by the cover
        for s in bs:  # the surviving bombers go on (6.1.1); which part they came from
            left = s.surviving
            for p in parts:
                for e in p["elements"]:
                    same = e["type"] == s.type and bool(e.get(elite.KEY)) == s.elite
                    same = same and bool(e.get(training.KEY)) == s.green
                    if same and e["alt"] == lv and left > 0:
                        k = min(left, int(e["n"]))
                        survivors.append(
                            {
                                **e,
                                "n": k,
                                "base": p["base"],
                                "hex": p["hex"],
                                "carrier": p["carrier"],
                            }
                        )
                        left -= k
    no_cap = not bomber_hit_by_cap  # 7.8.1 Step 3 note **

    if night:  # 14.2.3, R136: each US PBY rolls for contact before the display
        survivors, pby_events = _night_contact(st, strike, parts, survivors, dice, time)
        events += pby_events

    # 7.5-7.6 waves: one a launching hex; another hex joins the primary's by 7.6.2
    waves, wave_events = _waves(st, survivors, strike, dice, time, night)
    events += wave_events
    joined = suppression.attach(waves, peeled)  # 7.9.1: the suppressors' waves
    damaged: dict[str, int] = {}
    reached_inner = False
    for w, wave in enumerate(waves):
        aps = _wave_aps(public, wave)
        if not aps:
            continue
        bombers_n = sum(int(a["n"]) for a in aps)
        escort_aps = _wave_aps(public, joined.get(w, []))
        aps += escort_aps  # 7.9.1: fired at with (or as) the wave's Low component
        rolled = dice.d6(f"wave {w + 1} entry")
        entry = entry_arc.choose(public, positions, rolled, priority, side, strike, aps)  # 7.7.1
        ring = display.target_ring(positions, entry, public, priority)
        arcs = display.path(public, entry, ring)
        fact = {
            "kind": "wave-entry",
            "tf": tf_id,
            "wave": w + 1,
            "entry_arc": entry,
            **({"rolled": rolled} if entry_arc.elite_majority(aps) and side == JAPANESE else {}),
            "target_ring": ring,
            "aps": [
                {"type": a["type"], "n": a["n"], "role": a["role"], "mode": a["aa_mode"]}
                for a in aps
            ],
        }
        events.append(disclose(st, fact, both, time, "7.7.1"))
        surprise = 0
        if in_port:
            surprise, told_surprise = _surprise(st, strike, parts, w, dice, time)
            events.append(told_surprise)
        firers = (
            aa.night_firers(positions, arcs, ring) if night else display.on_path(positions, arcs)
        )
        fire_ships = [by_name[n] for n in firers if int(by_name[n].get("damage", 0)) < 5]
        small = 0
        if w == 0 and bombers_n <= 2:
            _pair, small = aa.small_first_wave(dice, "small first wave")
        suppressed = None
        if escort_aps:  # 7.9.1: the suppressors fire before any AA
            suppressed = suppression.roll(
                public, escort_aps, ring, dice, f"wave {w + 1} AA suppression"
            )
            fact = {"kind": "aa-suppression", "tf": tf_id, "wave": w + 1, **suppressed}
            events.append(disclose(st, fact, both, time, "7.9.1"))
        for mode in ("L", "M", "H", "DB"):
            comp = [a for a in aps if a["aa_mode"] == mode and int(a["n"]) > 0]
            if not comp:
                continue
            cols, drm, why = aa.modifiers(
                public,
                [a for a in aps if not a.get(suppression.KEY)],
                comp,
                night=night,
                later_wave_after_inner=reached_inner and w > 0,
                coastwatcher_alerted=coastwatcher_alerted,
                small_first_wave_drm=small,
            )
            fuse, fused = suppression.proximity(public, fire_ships, mode)  # 10.1.1
            cut = suppression.reduction(public, mode, suppressed)
            why += ([fused] if fused else []) + ([f"AA suppressed -{cut}"] if cut else [])
            res = aa.fire(
                public,
                max(0, aa.strength(public, fire_ships, mode, night=night) - cut)
                + port.port_fire(public, in_port, night=night),  # R131: not suppressed
                comp,
                cols,
                drm + fuse,
                dice,
                f"wave {w + 1} AA {mode}",
            )
            lost_by, back_by = dict(res["eliminated"]), dict(res["aborted"])
            for a in aps:
                if a["aa_mode"] != mode:
                    continue
                t = str(a["type"])
                lost = min(int(a["n"]), lost_by.get(t, 0))
                back = min(int(a["n"]) - lost, back_by.get(t, 0))
                lost_by[t], back_by[t] = lost_by.get(t, 0) - lost, back_by.get(t, 0) - back
                a["n"] = int(a["n"]) - lost - back
                eliminated[t] = eliminated.get(t, 0) + lost
                if a.get(elite.KEY):
                    elite_lost[t] = elite_lost.get(t, 0) + lost
                if a.get(training.KEY):
                    green_lost[t] = green_lost.get(t, 0) + lost
            fact = {
                "kind": "aa-fire",
                "tf": tf_id,
                "wave": w + 1,
                "component": mode,
                "why": why,
                **{k: res[k] for k in ("aa", "columns", "drm", "roll", "eliminated", "aborted")},
            }
            events.append(disclose(st, fact, both, time, "10.1"))
        # the suppressors make no attack on a ship (7.9.1, R117)
        aps = [a for a in aps if int(a["n"]) > 0 and not a.get(suppression.KEY)]
        if not aps:
            continue
        in_ring = [
            n
            for n in display.in_ring(positions, arcs, ring)
            if int(by_name[n].get("damage", 0)) < 5
        ]
        if not in_ring:
            continue
        told = [
            {
                "ring": positions[n][0],
                "arc": positions[n][1],
                "type": by_name[n]["type"],
                "speed_class": attack.current_speed_class(public, by_name[n], 0),
                "name": n,
            }
            for n in in_ring
        ]
        # face down: told by position, type and speed; the names stay hidden
        told.sort(key=lambda t: (t["ring"], t["arc"], str(t["type"]), t["speed_class"], t["name"]))
        fact = {
            "kind": "target-ring-speeds",
            "tf": tf_id,
            "wave": w + 1,
            "ships": [
                {k: v for k, v in t.items() if k != "name" and (k != "type" or not night)}
                for t in told
            ],
        }
        events.append(disclose(st, fact, [side], time, "7.8.1"))
        pick = _choose_target(
            public, [{**t, "type": t["type"] if not night else "?"} for t in told]
        )
        name = next(
            t["name"]
            for t in told
            if t["ring"] == pick["ring"]
            and t["arc"] == pick["arc"]
            and t["speed_class"] == pick["speed_class"]
            and (night or t["type"] == pick["type"])
        )
        ship = by_name[name]
        fact = {
            "kind": "ship-targeted",
            "tf": tf_id,
            "wave": w + 1,
            "ring": positions[name][0],
            "arc": positions[name][1],
            "ship": name,
            "type": ship["type"],
            "class": ship.get("class", ""),
        }
        events.append(disclose(st, fact, [side], time, "7.2.1"))
        column, drm = _admiral(ratings.get(side), w, waves, parts)
        before = int(ship.get("damage", 0))
        rec = attack.resolve(
            public,
            ship,
            aps,
            dice,
            f"wave {w + 1} attack on {name}",
            is_combined=attack.combined(aps, public),
            no_cap=no_cap,
            column=column,
            drm=drm,
            surprise=surprise,
            in_port=in_port is not None,
        )
        rec.update(
            wave=w + 1,
            combined=attack.combined(aps, public),
            no_cap=no_cap,
            admiral={"column": column, "drm": drm},
            surprise=surprise,
        )
        events.append(
            disclose(st, {"kind": "air-surface-attack", "tf": tf_id, **rec}, both, time, "7.8.1")
        )
        if int(ship["damage"]) > before:
            damaged[name] = before
        reached_inner |= w == 0 and ring in ("inner", "core")

    # 16.7 critical hits, rolled by the owner as each damaged ship leaves the display
    for name in sorted(damaged):
        ship = by_name[name]
        if int(ship["damage"]) >= 5 or not critical.rolls_for(public, ship):
            continue
        rolls = critical.roll(
            public, ship, draws.fork(secret, f"critical {time} {tf_id} {name}"), f"critical {name}"
        )
        events.append(
            disclose(
                st,
                {
                    "kind": "critical-hit-rolls",
                    "tf": tf_id,
                    "ship": name,
                    "rolls": rolls,
                    "damage": int(ship["damage"]),
                },
                [naval],
                time,
                "16.7",
            )
        )
        for crit in critical.told_to_enemy(rolls):
            events.append(
                disclose(
                    st,
                    {"kind": "critical-hit", "tf": tf_id, "ship": name, "dice": crit["dice"]},
                    [side],
                    time,
                    "16.7",
                )
            )

    # 6.3.3 extended range: eliminations may double on return; then the losses
    doubled: dict[str, int] = {}
    events += _extended_losses(st, strike, parts, eliminated, dice, time, doubled)
    gone = {t: eliminated.get(t, 0) + doubled.get(t, 0) for t in set(eliminated) | set(doubled)}
    events += extreme.losses(st, strike, parts, gone, secret, time)  # 5.15 the return roll
    _elite_losses(st[PRIVATE][side], parts, elite_lost)
    _green_losses(st[PRIVATE][side], parts, green_lost)
    return events


def _surprise(
    st: dict[str, Any],
    strike: Mapping[str, Any],
    parts: Sequence[Mapping[str, Any]],
    w: int,
    dice: Dice,
    time: str,
) -> tuple[int, Event]:
    """38.3.1: the striker's In-Port Surprise roll for wave ``w``, open to both; the
    speed-class reduction and its disclosure."""
    side, tf_id = strike["side"], strike["target"]["tf"]
    located = port.located_launcher(st[PUBLIC].get("located", {}), side, parts)
    got = port.surprise(st[PUBLIC], dice, w, located, f"wave {w + 1} surprise")
    fact = {"kind": "in-port-surprise", "tf": tf_id, "wave": w + 1, **got}
    told = disclose(st, fact, [side, strike["target"]["owner"]], time, "38.3.1")
    return int(got["reduction"]), told


def _night_contact(
    st: dict[str, Any],
    strike: Mapping[str, Any],
    parts: Sequence[Mapping[str, Any]],
    survivors: list[dict[str, Any]],
    dice: Dice,
    time: str,
) -> tuple[list[dict[str, Any]], list[Event]]:
    """14.2.3: the PBYs' contact rolls, told to both (open dice); those destroyed
    leave their base (not air combat nor AA losses: no 6.3.3 doubling)."""
    mp_of = {str(p["base"]): int(p["mp"]) for p in parts}
    c = night_rules.contact(st[PUBLIC], survivors, mp_of, dice)
    if not c.rolls:
        return survivors, []
    side, tf_id = strike["side"], strike["target"]["tf"]
    for r in c.rolls:
        if r["result"] == night_rules.DESTROYED:
            take_losses(st[PRIVATE][side], r["base"], r["type"], 1)
    fact = {"kind": "night-contact", "tf": tf_id, "rolls": c.rolls, "destroyed": c.destroyed}
    both = [side, strike["target"]["owner"]]
    return c.going_on, [disclose(st, fact, both, time, "14.2.3")]


def _admiral(
    r: Ratings | None,
    w: int,
    waves: Sequence[Sequence[Mapping[str, Any]]],
    parts: Sequence[Mapping[str, Any]],
) -> tuple[int, int]:
    """8.1.5: a column shift and a + DRM for the first wave (the doctrine); a
    negative DRM falls on the largest wave. Carrier strikes only."""
    if r is None or not any(p["carrier"] for p in parts):
        return 0, 0
    sizes = [sum(int(a["n"]) for a in wave) for wave in waves]
    largest = sizes.index(max(sizes)) if sizes else 0
    column = r.column if w == 0 else 0
    drm = r.drm if (r.drm > 0 and w == 0) or (r.drm < 0 and w == largest) else 0
    return column, drm


def _waves(
    st: dict[str, Any],
    survivors: list[dict[str, Any]],
    strike: Mapping[str, Any],
    dice: Dice,
    time: str,
    night: bool,
) -> tuple[list[list[dict[str, Any]]], list[Event]]:
    """7.5, 7.6 and the doctrine (R92): one wave a launching hex, the primary's
    joined by another hex's when 7.6.2 allows; at night one AP a wave (14.2.2)."""
    if night:
        return [[{**a, "n": 1}] for a in survivors for _ in range(int(a["n"]))], []
    by_hex: dict[str, list[dict[str, Any]]] = {}
    for a in survivors:
        by_hex.setdefault(str(a["hex"]), []).append(a)
    if len(by_hex) < 2:
        return list(by_hex.values()), []
    target = str(strike["target"]["hex"])
    order = sorted(by_hex, key=lambda h: (distance(h, target), h))
    primary, waves, events = order[0], [by_hex[order[0]]], []
    a_hexes = distance(primary, target)
    for h in order[1:]:
        b = distance(h, primary)
        roll = dice.d6(f"coordination {h}") if b > a_hexes else None
        ok = attack.may_combine(a_hexes, b, roll)
        fact = {
            "kind": "wave-coordination",
            "from": h,
            "primary": primary,
            "between": b,
            "distance": a_hexes,
            "roll": roll,
            "combined": ok,
        }
        events.append(disclose(st, fact, [strike["side"]], time, "7.6.2"))
        if ok:
            waves[0] = waves[0] + by_hex[h]
        else:
            waves.append(by_hex[h])
    return waves, events


def _elite_losses(
    own: Mapping[str, Any], parts: Sequence[Mapping[str, Any]], lost: Mapping[str, int]
) -> None:
    """7.11.2: the elite APs eliminated leave their bases' elite counts."""
    for t, n in lost.items():
        for p in parts:
            k = min(n, sum(int(e["n"]) for e in p["elements"] + p["escorts"] if e["type"] == t))
            k = min(k, elite.held(own, str(p["base"]), t))
            elite.lose(own, str(p["base"]), t, k)
            n -= k


def _green_losses(
    own: Mapping[str, Any], parts: Sequence[Mapping[str, Any]], lost: Mapping[str, int]
) -> None:
    """58.2.1: the green APs eliminated leave their bases' green counts."""
    for t, n in lost.items():
        for p in parts:
            k = min(n, training.held(own, str(p["base"]), t))
            training.lose(own, str(p["base"]), t, k)
            n -= k


def _extended_losses(
    st: dict[str, Any],
    strike: Mapping[str, Any],
    parts: Sequence[Mapping[str, Any]],
    eliminated: Mapping[str, int],
    dice: Dice,
    time: str,
    doubled: dict[str, int],
) -> list[Event]:
    public, side = st[PUBLIC], strike["side"]
    own = st[PRIVATE][side]
    events: list[Event] = []
    for t, lost in sorted(eliminated.items()):
        if lost < 1:
            continue
        flown = [e for p in parts for e in p["elements"] + p["escorts"] if e["type"] == t]
        launched = sum(int(e["n"]) for e in flown)
        extra = 0
        if any(e.get("range", "normal") != "normal" for e in flown):
            roll = draws.d10(dice, f"extended range {t}") % 10  # 0 reads zero (6.3.3)
            rating = int(air_unit(public, t)["air"]["extended"])
            if roll > rating:
                extra = min(lost, launched - lost)
            events.append(
                disclose(
                    st,
                    {
                        "kind": "extended-range-losses",
                        "type": t,
                        "roll": roll,
                        "rating": rating,
                        "extra": extra,
                    },
                    [side],
                    time,
                    "6.3.3",
                )
            )
        doubled[t] = extra
        left = lost + extra
        for p in parts:
            n = sum(int(e["n"]) for e in p["elements"] + p["escorts"] if e["type"] == t)
            left -= take_losses(own, p["base"], t, min(left, n))
    return events
