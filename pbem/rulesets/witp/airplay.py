"""Air strikes against ships played through the rounds (5.0-5.1, 5.8, 12, 14.2): the
hooks play.py calls. The rules themselves stay in ``air/`` (plot, special,
naval_strike); this module only files the plots and flies them at the right times.

- ``validate`` / ``template``: a ``Tn-airN-allocation`` round (5.0 Step 1): AIRPLOT
  lines (air/plot.py, R90) and the standing ``SPECIAL`` orders (air/special.py, R105),
  judged from the side's Knowledge alone; each refused line names its number, the
  reason and the rule.
- ``file_plot``: the Allocation Segment: each side's accepted plot kept in its private
  part (sealed with its mail, like a naval plot); ``SPECIAL`` lines replace the side's
  standing special strikes (``SPECIAL NONE`` clears them).
- ``strike_segment``: the Strike Segment: three or more carrier strikes first, ranked
  by their admirals' Air Ratings (12.3.2, R115); then the 3.2 winner's strike, then the
  sides alternately, each in the order written (3.1 B); a strike on a carrier TF with
  a strike of its own still on deck is sequenced first (12.0-12.2, R95).
  Plotted Cover CAP over the target's hex and Naval Cover over the TF fly CAP there,
  each rolled once an Air Phase (5.3.2-5.3.6, air/cover.py, R110).
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
from typing import Any

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.ruleset import LineError, Validation
from pbem.rulesets.witp import draws, located, movement
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air import admirals, elite, naval_strike, plot, sequencing, special
from pbem.rulesets.witp.air import avg as avg_rules
from pbem.rulesets.witp.air import cover as cover_rules
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.sequencing import AFTER, BEFORE
from pbem.rulesets.witp.air.ships import SUNK, base_air, ships_of, take_losses, tf_air
from pbem.rulesets.witp.air.tables import air_unit, known_type
from pbem.rulesets.witp.clock import Round, Slot
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, PUBLIC, Knowledge, disclose
from pbem.rulesets.witp.sides import SIDES, enemy_of

AIR_PLOT = "air_plot"  # private[side]: this Air Phase's accepted plot (AirPlot.to_json())
STANDING, SPECIAL = "standing", "special"  # private[side]["standing"]["special"]: R105
WORD = "SPECIAL"
STRUCK = "special_struck"  # moderator: {naval phase: [[side, base, owner:tf], ...]} (5.8.2)


def is_allocation(rnd: Round | None) -> bool:
    """The round of an Air Phase's Allocation Segment (5.0), where strikes are plotted."""
    return rnd is not None and rnd.slots[0].segment.key == "allocation"


# -- the plot -----------------------------------------------------------------------


def _split(text: str) -> tuple[str, str, list[int]]:
    """(AIRPLOT text, SPECIAL text, numbers of ``SPECIAL NONE`` lines): each keeps
    every line number, the other kind's lines blanked."""
    air, spec, none = [], [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        head = words[0].upper() if words else ""
        if head == WORD and [w.upper() for w in words[1:]] == ["NONE"]:
            none.append(number)
            air.append("")
            spec.append("")
        elif head == WORD:
            air.append("")
            spec.append(raw)
        else:
            air.append(raw)
            spec.append("")
    return "\n".join(air), "\n".join(spec), none


def judge(
    knowledge: Knowledge, side: str, text: str
) -> tuple[plot.AirPlot, list[dict[str, Any]], list[LineError]]:
    """The accepted air plot, the standing special strikes filed, and every refused
    line, in line order."""
    air, spec, _none = _split(text)
    accepted, errors = plot.judge(knowledge, side, air)
    specials, spec_errors = special.judge(knowledge, side, spec)
    return accepted, specials, sorted(errors + spec_errors, key=lambda e: e.line)


def validate(knowledge: Knowledge, side: str, text: str) -> Validation:
    """5.0 Step 1, R90, R105: every line judged; the accepted lines as written."""
    _plot, _specials, errors = judge(knowledge, side, text)
    refused = {e.line for e in errors}
    lines = [
        (n, raw.split("#", 1)[0].strip())
        for n, raw in enumerate(text.splitlines(), start=1)
        if raw.split("#", 1)[0].strip()
    ]
    accepted: list[str] = []
    for n, line in lines:
        passing = line.upper() == "PASS"
        if n in refused or line.upper() == "AIRPLOT" or (passing and "PASS" in accepted):
            continue  # a refused line, the optional header, a PASS said twice
        accepted.append("PASS" if passing else line)
    return Validation(tuple(accepted), tuple(errors))


def file_plot(state: dict[str, Any], side: str, lines: Sequence[str], slot: Slot) -> list[Event]:
    """The Allocation Segment: the side's plot, secret (its own private part)."""
    text = "\n".join(lines)
    knowledge = Knowledge.of(state, side)
    accepted, specials, _errors = judge(knowledge, side, text)
    own = state[PRIVATE][side]
    own[AIR_PLOT] = {"time": slot.time, **accepted.to_json()}
    _air, spec, none = _split(text)
    if none or spec.strip():
        own.setdefault(STANDING, {})[SPECIAL] = specials  # R105: replaced as a set
    return []


# -- the Strike Segment -----------------------------------------------------------


def _carrier_strikes_from(state: Mapping[str, Any], owner: str, tf: str) -> list[str]:
    """Ids of ``owner``'s plotted strikes with a part launching from carrier TF ``tf``."""
    strikes = state[PRIVATE][owner].get(AIR_PLOT, {}).get("strikes", {})
    return [
        sid
        for sid, s in strikes.items()
        if any(p["carrier"] and p["base"] == tf for p in s["parts"])
    ]


def _committed(state: Mapping[str, Any], owner: str, tf: str) -> dict[str, int]:
    """5.3, 12.1.2: the TF's fighters plotted on other missions this phase fly no CAP."""
    out: dict[str, int] = {}
    p = state[PRIVATE][owner].get(AIR_PLOT, {})
    for s in p.get("strikes", {}).values():
        for part in s["parts"]:
            if part["base"] == tf:
                for e in part["escorts"]:
                    out[e["type"]] = out.get(e["type"], 0) + int(e["n"])
    for c in p.get("covers", {}).values():
        if c["base"] == tf:
            out[c["type"]] = out.get(c["type"], 0) + int(c["n"])
    return out


def _aboard(state: Mapping[str, Any], side: str, strike: Mapping[str, Any]) -> dict[str, Any]:
    """The strike with each part cut to the APs its base still holds (losses since
    the plot, a carrier sunk under its air group: 7.8.1 Step 7)."""
    own = state[PRIVATE][side]
    parts = []
    for part in strike["parts"]:
        try:
            _label, _hex, air, _carrier = base_air(own, str(part["base"]))
        except KeyError:
            continue  # the TF is gone
        left = dict(air)
        cut: dict[str, list[dict[str, Any]]] = {"elements": [], "escorts": []}
        for key in ("elements", "escorts"):
            for e in part[key]:
                n = min(int(e["n"]), int(left.get(e["type"], 0)))
                left[e["type"]] = int(left.get(e["type"], 0)) - n
                if n:
                    cut[key].append({**e, "n": n})
        if cut["elements"]:
            parts.append({**part, **cut})
    return {**strike, "parts": parts}


class _Segment:
    """One Strike Segment's strikes, flown one at a time (3.1 B, 12.0-12.2)."""

    def __init__(self, state: dict[str, Any], slot: Slot, dice: Dice) -> None:
        self.state, self.slot, self.dice = state, slot, dice
        self.secret = draws.round_secret(state, f"{slot.time}/strikes")
        self.flown: set[tuple[str, str]] = set()
        self.launched: dict[tuple[str, str], dict[str, Any]] = {}  # aloft before they fly
        self.over: dict[tuple[str, str], int] = {}  # each cover's APs over its target

    def cover(self, owner: str, tf: str, hexid: str) -> tuple[list[dict[str, Any]], list[Event]]:
        """5.3.2-5.3.4, R102, R110: the owner's plotted Cover over ``hexid`` and Naval
        Cover over ``tf`` still flying; each rolled on the APAT before its first combat,
        once this Air Phase (5.3.3), the roll told its owner alone."""
        plotted = self.state[PRIVATE][owner].get(AIR_PLOT, {}).get("covers", {}).values()
        flights = [f for f in plotted if cover_rules.over(f, tf, hexid)]
        events: list[Event] = []
        for f in flights:
            if (owner, f["id"]) not in self.over:
                n, told = cover_rules.roll(self.state[PUBLIC], f, self.dice)
                self.over[(owner, f["id"])] = n
                fact = {"kind": "cover-availability", "tf": tf, **told}
                rule = cover_rules.RULE[str(f["kind"])]
                events.append(disclose(self.state, fact, [owner], self.slot.time, rule))
        return [f for f in flights if self.over[(owner, f["id"])] > 0], events

    def cover_losses(
        self, owner: str, flights: Sequence[Mapping[str, Any]], losses: Mapping[str, list[int]]
    ) -> None:
        """R110: the cover's share of the CAP's losses, flight by flight in plot order;
        the eliminated leave their base, neither they nor the aborted cover again (5.3.6)."""
        own = self.state[PRIVATE][owner]
        for t, (eliminated, aborted, *best) in losses.items():
            mine = [f for f in flights if f["type"] == t]
            up = [self.over[(owner, f["id"])] for f in mine]
            dead = cover_rules.split(eliminated, up)
            home = cover_rules.split(aborted, [n - d for n, d in zip(up, dead, strict=True)])
            lost_best = cover_rules.split(sum(best), [self.elite_over(owner, f) for f in mine])
            for f, d, a, b in zip(mine, dead, home, lost_best, strict=True):
                self.over[(owner, f["id"])] -= d + a
                elite.lose(own, str(f["base"]), t, min(b, d))  # 7.11.2
                take_losses(own, str(f["base"]), t, d)

    def covering(self, owner: str, flight: Mapping[str, Any]) -> dict[str, Any]:
        """A covering flight over the target: {type, n} and its elite (7.11), if any."""
        out = {"type": flight["type"], "n": self.over[(owner, flight["id"])]}
        if avg_rules.is_avg(self.state[PUBLIC], str(flight["base"]), str(flight["type"])):
            out[avg_rules.KEY] = True  # 6.2.3: the AVG's P-40s
        best = self.elite_over(owner, flight)
        return {**out, elite.KEY: best} if best else out

    def elite_over(self, owner: str, flight: Mapping[str, Any]) -> int:
        """7.11, R111: a covering flight's elite APs, up to the elite its base holds."""
        base, t = str(flight["base"]), str(flight["type"])
        return min(
            self.over[(owner, flight["id"])], elite.held(self.state[PRIVATE][owner], base, t)
        )

    def strikes(self, side: str) -> dict[str, Any]:
        out: dict[str, Any] = self.state[PRIVATE][side].get(AIR_PLOT, {}).get("strikes", {})
        return out

    def fly(self, side: str, sid: str) -> list[Event]:
        key = (side, sid)
        if key in self.flown:
            return []
        self.flown.add(key)
        st, time = self.state, self.slot.time
        strike = self.launched.pop(key, None) or _aboard(st, side, self.strikes(side)[sid])
        if not strike["parts"]:
            fact: dict[str, Any] = {
                "kind": "strike-not-flown",
                "strike": sid,
                "why": "no APs left to fly it",
            }
            return [disclose(st, fact, [side], time, "5.1.1")]
        owner, tf = strike["target"]["owner"], strike["target"]["tf"]
        if strike.get("night") and stationary(st, owner, tf) < NIGHT_STATIONARY:
            fact = {"kind": "strike-not-flown", "strike": sid, "why": NIGHT_WHY}
            return [disclose(st, fact, [side], time, "14.2.2")]
        target = st[PRIVATE][owner].get(tfs.TFS, {}).get(tf)
        if target is None or not ships_of(st[PRIVATE][owner], target):
            fact = {
                "kind": "strike-found-nothing",
                "strike": sid,
                "tf": tf,
                "hex": strike["target"]["hex"],
            }
            return [disclose(st, fact, [side], time, "7.1")]
        strike = {**strike, "target": {**strike["target"], "hex": target["hex"]}}
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
                    self.launched[(owner, s)] = _aboard(st, owner, self.strikes(owner)[s])
                after = theirs
        flights, cover_events = self.cover(owner, tf, str(target["hex"]))
        events += cover_events
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
        )
        self.cover_losses(owner, flights, losses)
        for s in after:
            events += self.fly(owner, s)
        return events


def _ratings(
    state: dict[str, Any], strike: Mapping[str, Any], dice: Dice, time: str
) -> tuple[dict[str, Ratings], list[Event]]:
    """8.1, 8.8, R112: the carrier admirals' ratings on both sides of ``strike``: the
    striker's leading carrier TF's and the target TF's (rolled the first time)."""
    side, owner = str(strike["side"]), str(strike["target"]["owner"])
    lead = next((str(p["base"]) for p in strike["parts"] if p["carrier"]), None)
    out: dict[str, Ratings] = {}
    events: list[Event] = []
    for who, tf in ((side, lead), (owner, str(strike["target"]["tf"]))):
        if tf is None:
            continue
        r, told = admirals.ratings(state, who, tf, dice, time)
        events += told
        if r is not None:
            out[who] = r
    return out, events


def strike_segment(state: dict[str, Any], slot: Slot, first: str, dice: Dice) -> list[Event]:
    """3.1 B: the strikes plotted in this Air Phase, the 3.2 winner's first, then the
    sides alternately, each side's in the order written; three or more carrier
    strikes go before, by admiral (12.3.2)."""
    seg = _Segment(state, slot, dice)
    queues = {side: list(seg.strikes(side)) for side in SIDES}
    events: list[Event] = []
    ranked, events = _carrier_ranking(state, seg, dice, slot.time)
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
    return events + end_of_phase(state, slot)


def _carrier_ranking(
    state: dict[str, Any], seg: _Segment, dice: Dice, time: str
) -> tuple[list[tuple[str, str]], list[Event]]:
    """12.3.2, R115: with three or more carrier strikes plotted, their order by the
    admirals' Air Ratings (rolled now if not yet, told their own side, R112); fewer:
    none (3.1 B alternation)."""
    plotted = [
        (side, sid, strike)
        for side in SIDES
        for sid, strike in seg.strikes(side).items()
        if any(p["carrier"] for p in strike["parts"])
    ]
    if len(plotted) < 3:
        return [], []
    events: list[Event] = []
    rated: list[tuple[str, str, float | None]] = []
    for side, sid, strike in plotted:
        airs: list[int | None] = []
        for p in strike["parts"]:
            if p["carrier"]:
                r, told = admirals.ratings(state, side, str(p["base"]), dice, time)
                events += told
                airs.append(r.air if r is not None else None)
        rated.append((side, sid, sequencing.joint_rating(airs)))
    order = sequencing.rank(rated, dice, "12.3.2 equal Air Ratings")
    for side in SIDES:  # its own strikes' order only: the enemy's ratings stay hidden
        fact = {"kind": "carrier-strike-order", "strikes": [x for s, x in order if s == side]}
        events.append(disclose(state, fact, [side], time, "12.3.2"))
    return order, events


def end_of_phase(state: dict[str, Any], slot: Slot) -> list[Event]:
    """The Air Phase's plot is spent; CAP aborted this phase may fly again (5.3.6);
    sunk ships leave the display."""
    for side in SIDES:
        own = state[PRIVATE][side]
        own.pop(AIR_PLOT, None)
        own.pop("cap_aborted", None)
    return clear_sunk(state, slot)


# 14.2.2: a night strike in an Air Phase needs a TF stationary two consecutive Naval Phases.
STATIONARY = "stationary"  # moderator: {"owner:TF": consecutive Naval Phases not moved}
NIGHT_STATIONARY = 2
NIGHT_WHY = "its target has not stayed put two Naval Phases: no night strike in an Air Phase"


def stationary(state: Mapping[str, Any], owner: str, tf: str) -> int:
    return int(state.get(MODERATOR, {}).get(STATIONARY, {}).get(f"{owner}:{tf}", 0))


def after_naval_execution(state: dict[str, Any], slot: Slot) -> list[Event]:
    """The Execution Segment played: each TF's count of Naval Phases without moving
    (14.2.2, the moderator's: movement is hidden), then sunk ships leave the display."""
    counts = state.setdefault(MODERATOR, {}).setdefault(STATIONARY, {})
    for side in SIDES:
        for tf, entry in state[PRIVATE][side].get(tfs.TFS, {}).items():
            key = f"{side}:{tf}"
            counts[key] = 0 if entry.get("log") else int(counts.get(key, 0)) + 1
    return clear_sunk(state, slot)


def clear_sunk(state: dict[str, Any], slot: Slot) -> list[Event]:
    """7.8.1 Step 7: a sunk ship leaves its TF's box; a TF with none afloat leaves the
    map, its Located chit with it (the owner is told; the enemy sees the chit go)."""
    events: list[Event] = []
    for side in SIDES:
        own = state[PRIVATE][side]
        ships = own.get(tfs.SHIPS, {})
        for tf in sorted(own.get(tfs.TFS, {}), key=tfs.marker_number):
            entry = own[tfs.TFS][tf]
            if entry.get("dummy"):
                continue
            afloat = [s for s in entry["ships"] if int(ships[s].get("damage", 0)) < SUNK]
            if afloat == entry["ships"]:
                continue
            entry["ships"] = afloat
            if afloat:
                continue
            del own[tfs.TFS][tf]
            fact = {"kind": "tf-sunk", "tf": tf}
            events.append(disclose(state, fact, [side], slot.time, "7.8.1"))
            events += located.remove(state, side, tf, slot, "no ship afloat", "7.8.1")
    return events


# -- special strikes in the Naval Phase (5.8, R105) ---------------------------------

# The naval Execution Segment being played (5.8's special strikes fly in it): its
# slot and open dice, set by play.py around movement (a context variable, as
# searchplay's, so that games adjudicated side by side never see each other's).
_EXECUTING: ContextVar[tuple[Slot, Dice] | None] = ContextVar("witp_executing", default=None)


def executing(slot: Slot | None, dice: Dice | None) -> None:
    """play.py marks the naval Execution Segment (None, None: it is over)."""
    _EXECUTING.set((slot, dice) if slot is not None and dice is not None else None)


def entered(state: dict[str, Any], owner: str, tf: str, step: Mapping[str, Any]) -> list[Event]:
    """movement.ON_ENTER: the enemy's standing special strikes at ``owner``'s TF."""
    running = _EXECUTING.get()
    if running is None:
        return []
    slot, dice = running
    side = enemy_of(owner)
    orders = state[PRIVATE][side].get(STANDING, {}).get(SPECIAL, ())
    if not orders or state[PRIVATE][owner].get(tfs.TFS, {}).get(tf) is None:
        return []
    phase = slot.time.rsplit("/", 1)[0]
    log = state.setdefault(MODERATOR, {}).setdefault(STRUCK, {}).setdefault(phase, [])
    struck = [(b, t.split(":", 1)[1]) for s, b, t in log if s == side and t.startswith(f"{owner}:")]
    knowledge = Knowledge.of(state, side)
    launches = special.launches(
        knowledge,
        side,
        orders,
        owner,
        tf,
        str(step["hex"]),
        night=bool(step.get("night")),
        struck=struck,
    )
    events: list[Event] = []
    secret = draws.round_secret(state, f"{slot.time}/special")
    for strike in launches:
        base = str(strike["parts"][0]["base"])
        log.append([side, base, f"{owner}:{tf}"])
        fact = {"kind": "special-strike", "strike": strike["id"], "tf": tf, "hex": str(step["hex"])}
        events.append(disclose(state, fact, SIDES, slot.time, "5.8"))
        ratings, told = _ratings(state, strike, dice, slot.time)
        events += told
        events += naval_strike.resolve_into(
            state,
            strike,
            dice,
            secret,
            slot.time,
            committed=_committed(state, owner, tf),
            ratings=ratings,
        )
    return events


movement.ON_ENTER.append(entered)


# -- the order form -----------------------------------------------------------------


def template(rnd: Round, knowledge: Knowledge, side: str) -> str:
    """The Allocation Segment's form: the words, your air bases and carrier TFs with
    their APs, the enemy TFs you may strike (and those you may not, with the rule)."""
    head = rnd.slots[0]
    own = knowledge.own(side)
    public = knowledge.public
    out = [
        f"# {rnd.name}: {head.phase.title}, {head.segment.title} ({head.phase.rule}, {head.segment.rule})",
        "# Air Strike Plot: one order a line (docs/witp-orders.md, R90). PASS plots none.",
        "#   STRIKE <id> FROM <base|TFn> <n>x<type>[/<role>][@<alt>] ... TARGET <TFn>"
        " [PRIORITY GENERAL|<type>] [RETURN <base>] [NIGHT]",
        "#   ESCORT <id> FROM <base|TFn> <n>x<type>@<alt> LOOSE|CLOSE",
        "#   COVER <id> FROM <base|TFn> <n>x<type> OVER <hex> | NAVALCOVER <id> FROM ... OVER <TFn>",
        "#   TRANSFER <id> <n>x<type> FROM <base> TO <base|TFn>",
        "# Standing special strikes (5.8, R105; kept until you file others, SPECIAL NONE clears):",
        "#   SPECIAL <id> FROM <base|TFn> <n>x<type>... [ESCORT <n>x<type>@<alt> LOOSE|CLOSE]"
        " [AGAINST ANY|<types>] [RANGE NORMAL|EXTENDED] [NIGHT]",
        "#",
        "# Your air bases and carrier TFs (APs by type; MP = hexes x 6 in the Tropics):",
    ]
    for name, b in sorted(own.get("air_bases", {}).items()):
        aps = ", ".join(f"{n}x{t}" for t, n in sorted(b["air_points"].items()) if int(n) > 0)
        out.append(f"#   {name.replace(' ', '_')} at {b['hex']}: {aps or 'no APs'}")
    for tf in sorted(own.get(tfs.TFS, {}), key=tfs.marker_number):
        entry = own[tfs.TFS][tf]
        air = tf_air(own, entry) if not entry.get("dummy") else {}
        if air and entry.get("hex"):
            aps = ", ".join(f"{n}x{t}" for t, n in sorted(air.items()) if int(n) > 0)
            out.append(f"#   {tf} (carrier TF) at {entry['hex']}: {aps or 'no APs'}")
    out.append("# Air types (range normal/extended MP, torpedo MP, roles):")
    types = {t for b in own.get("air_bases", {}).values() for t in b["air_points"]}
    types |= {
        t for e in own.get(tfs.TFS, {}).values() if not e.get("dummy") for t in tf_air(own, e)
    }
    for t in sorted(t for t in types if known_type(public, t)):  # search-only types: none
        u = air_unit(public, t)
        out.append(
            f"#   {t}: {u['range']['normal']}/{u['range']['extended']} MP, "
            f"torpedo {u.get('torpedo_range', 0)} MP, roles {'/'.join(u['roles'])}"
        )
    enemy = enemy_of(side)
    marks = sorted(
        (m for m in public.get(located.KEY, {}).values() if m["owner"] == enemy),
        key=lambda m: tfs.marker_number(m["tf"]),
    )
    out.append("# Enemy TFs Located (5.1.6: a strike needs a Located TF not reported a dummy):")
    for m in marks:
        problem = located.strike_target_problem(knowledge, enemy, m["tf"])
        report = located.last_report(knowledge, enemy, m["tf"]) or "no report"
        may = f"NOT a target: {problem}" if problem else "target"
        out.append(f"#   {m['tf']} at {m['hex']}: {may}; last report: {report}")
    if not marks:
        out.append("#   none")
    kept = own.get(STANDING, {}).get(SPECIAL, ())
    out.append("# Special strikes in force: " + (", ".join(str(o["id"]) for o in kept) or "none"))
    out += ["PASS", ""]
    return "\n".join(out)
