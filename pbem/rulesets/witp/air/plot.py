"""The Air Strike Plot (5.0 Step 1, 5.1, 5.3, 5.10, 4.4.1): AIRPLOT lines, one order
a line (docs/witp-rulings.md R90, in the style of the TF mission cards of docs/witp-orders.md).

    STRIKE <id> FROM <base|TFn> <n>x<type>[/<role>][@<alt>] ... TARGET <TFm>
           [PRIORITY GENERAL|<ship type>] [RETURN <base>] [NIGHT]
    ESCORT <id> FROM <base|TFn> <n>x<type>@<alt> LOOSE|CLOSE [SUPPRESS <k>]   (7.9)
    COVER <id> FROM <base|TFn> <n>x<type> OVER <hex>            (5.3.2)
    NAVALCOVER <id> FROM <base|TFn> <n>x<type> OVER <TFn>       (5.3.4)
    EMERGENCY <id> FROM <base|TFn> <n>x<type> OVER <hex|TFn>    (5.3.5, R122)
    TRANSFER <id> <n>x<type> FROM <base> TO <base|TFn>          (4.4.1)
    RECIPROCAL BEFORE|AFTER | ENTRY <id> ROLLED|FEWEST         (air/choices.py)
    MAGIC STRIKE-SEQUENCE-2|1 <id> +n|-n | MAGIC PLANES-ON-DECK <id> WAVE <k> <chit> <chit>
                                                                (air/magic.py, 42.4)
    CAP <TFn> <L|M|H>:<share> ...                               (7.1 B, R135)
    PASS

A second STRIKE line with the same id from another base makes a Joint Strike, the
first base its lead (5.10). Lines are judged from the side's Knowledge only: its own
bases, TFs and air points, the public Located markers and the reports it was told
(5.1.6 through located.strike_target_problem), and the public charts. Each refused
line names its number, the reason and the rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from pbem.core.errors import IllegalOrderError, OrderError, OrderSyntaxError
from pbem.core.refusals import line_error
from pbem.core.ruleset import LineError
from pbem.core.sides import Side, enemy_of
from pbem.rulesets.witp.air import altitude, capsplit, choices, magic, suppression
from pbem.rulesets.witp.air import night as night_rules
from pbem.rulesets.witp.air.ships import base_air
from pbem.rulesets.witp.air.strikeplot import AirPlot, Context, Distance
from pbem.rulesets.witp.air.strikes import (
    AirElement,
    AirStrike,
    AirTransfer,
    CoverFlight,
    CoverKind,
    StrikePart,
    StrikeTarget,
    SuppressionAsk,
)
from pbem.rulesets.witp.air.tables import EXTREME, ROLES, AirUnit, Pack, air_unit, known_type, value
from pbem.rulesets.witp.hexgrid import distance, parse_hex
from pbem.rulesets.witp.known import Knowledge

_ELEMENT = re.compile(r"^(\d+)[xX]([A-Za-z0-9-]+)(?:/([A-Za-z]{1,2}))?(?:@([LMHlmh]))?$")
TROPICAL_MP = 6  # the Coral Sea is Tropical: 6 MP a hex (tables-stage1 movement-area cost)


def _illegal(msg: str, rule: str) -> IllegalOrderError:
    return IllegalOrderError(msg, rule=rule)


def element(word: str) -> tuple[int, str, str | None, str | None]:
    """``<n>x<type>[/<role>][@<alt>]`` (5.0): the APs, type, role and altitude written
    (shared with the standing special orders, air/special.py)."""
    m = _ELEMENT.match(word)
    if not m or int(m.group(1)) < 1:
        raise OrderSyntaxError(f"{word!r} is not <n>x<type>[/<role>][@<alt>], e.g. 3xSBD-3/D")
    role = m.group(3).upper() if m.group(3) else None
    return int(m.group(1)), m.group(2), role, m.group(4).upper() if m.group(4) else None


def _base(ctx: Context, name: str) -> tuple[str, str, dict[str, int], bool]:
    try:
        label, hexid, air, carrier = base_air(ctx.knowledge, ctx.side, name)
    except KeyError:
        raise _illegal(f"{name} is none of your air bases or carrier TFs", "5.0") from None
    if hexid is None:
        raise _illegal(f"{label} is not on the map", "4.3")
    return label, hexid, air, carrier


def charted(pack: Pack, t: str) -> AirUnit:
    """4.1: the Air Point Chart values of ``t``; an order for a type without them is
    refused."""
    if not known_type(pack, t):
        raise _illegal(f"no Air Point Chart values for {t}", "4.1")
    return air_unit(pack, t)


def fighter(pack: Pack, t: str, mission: str, does: str) -> AirUnit:
    """5.3: ``t``'s values, if it may fly the ``mission`` (its roles in the pack's
    table: "escort", "cap") that only fighters ``does``."""
    unit = charted(pack, t)
    if not set(unit.roles) & set(value(pack, ROLES)[mission]):
        raise _illegal(f"{t} is no fighter: only fighters {does}", "5.3")
    return unit


def _allocate(
    ctx: Context, plot: AirPlot, base: str, air: Mapping[str, int], n: int, t: str
) -> None:
    """5.1.1: an AP flies one strike (or mission) a phase."""
    charted(ctx.pack, t)
    have = int(air.get(t, 0))
    used = plot.allocated.get((base, t), 0)
    if used + n > have:
        raise _illegal(
            f"{base} has {have} {t} and {used} are already plotted; {n} more are too many",
            "5.1.1",
        )
    plot.allocated[(base, t)] = used + n


def _reach(ctx: Context, t: str, mp: int, role: str | None) -> str:
    """5.0, 5.15: the range an AP type strikes at, or refused; torpedoes have their own
    (shorter) range (5.14.1)."""
    unit = air_unit(ctx.pack, t)
    rng = unit.range
    if role == "T" and mp > unit.torpedo_range:
        raise _illegal(
            f"{t} carry torpedoes only {unit.torpedo_range} MP; the target is {mp} MP away",
            "5.14.1",
        )
    if mp <= rng.normal:
        return "normal"
    if mp <= rng.extended:
        return "extended"
    if mp <= rng.extended + int(value(ctx.pack, EXTREME)):
        return "extreme"
    raise _illegal(f"{t} cannot reach {mp} MP (extended range {rng.extended} + 6)", "5.15")


def _target(ctx: Context, word: str) -> StrikeTarget:
    enemy = enemy_of(ctx.side)
    tf = word.upper().replace(" ", "")
    if not re.fullmatch(r"TF\d{1,2}", tf):
        raise OrderSyntaxError(f"TARGET names an enemy TF marker (TF1-TF60), not {word!r}")
    problem = ctx.knowledge.strike_target_problem(enemy, tf)
    if problem:
        rule = problem[problem.rindex("(") + 1 : -1]
        raise _illegal(problem[: problem.rindex("(")].strip(), rule)
    marker = ctx.knowledge.located[f"{enemy}:{tf}"]
    return StrikeTarget(Side(enemy), tf, str(marker.hex))


@dataclass(frozen=True, slots=True)
class _StrikeLine:
    """A STRIKE line's words after FROM's base: its elements, target and options."""

    elements: tuple[str, ...]
    target: StrikeTarget
    priority: str | None  # None: the doctrine chooses (R92)
    return_base: str | None
    night: bool


def _strike_line(ctx: Context, rest: Sequence[str]) -> _StrikeLine:
    upper = [w.upper() for w in rest]
    if "TARGET" not in upper:
        raise OrderSyntaxError("a naval strike names its TARGET TF (5.0: not merely the hex)")
    cut = upper.index("TARGET")
    elements_words, opts = rest[:cut], rest[cut + 1 :]
    if not elements_words or not opts:
        raise OrderSyntaxError("STRIKE <id> FROM <base|TFn> <n>x<type>... TARGET <TFn>")
    target = _target(ctx, opts[0])
    priority: str | None = None
    ret, night = None, False
    i = 1
    while i < len(opts):
        w = opts[i].upper()
        if w == "PRIORITY" and i + 1 < len(opts):
            priority = "general" if opts[i + 1].upper() == "GENERAL" else opts[i + 1].upper()
            i += 2
        elif w == "RETURN" and i + 1 < len(opts):
            ret = opts[i + 1]
            i += 2
        elif w == "NIGHT":
            night = True
            i += 1
        else:
            raise OrderSyntaxError(f"{opts[i]!r}: after TARGET come PRIORITY, RETURN, NIGHT")
    if night and (moved := night_rules.seen_moving(ctx.knowledge, target.owner, target.tf)):
        raise _illegal(  # R137: only what this side saw; else R109 decides in flight
            f"you saw {target.tf} move at {moved}: a night strike in an Air Phase needs "
            "a TF that stayed put two Naval Phases",
            "14.2.2",
        )
    return _StrikeLine(tuple(elements_words), target, priority, ret, night)


def _bombers(ctx: Context, word: str, mp: int, night: bool) -> AirElement:
    """One element of a strike: its type's role, approach altitude and range (5.0,
    5.6, 7.1, 14.2.2, 5.15)."""
    pack = ctx.pack
    n, t, role, alt = element(word)
    unit = charted(pack, t)
    role = role or unit.roles[0]
    if role not in unit.roles:
        raise _illegal(f"{t} cannot fly as {role} (its roles: {'/'.join(unit.roles)})", "4.2.2")
    if role not in value(pack, ROLES)["naval"]:
        raise _illegal(f"{role} APs do not fly naval strikes; B, D, FB or T do", "5.6")
    rated = unit.air.altitude
    flown = altitude.approach(role, rated, alt)
    if alt and alt != flown:
        raise _illegal(f"{role} APs approach at {flown}, not {alt}", "7.1")
    if role == "B" and rated and alt and alt != rated:
        raise _illegal(f"level bombers attack at their rated altitude {rated}", "7.1")
    if night and not unit.night_rated:
        raise _illegal(f"{t} is not night-rated: no night strike against ships", "14.2.2")
    return AirElement(t, n, role, flown, range=_reach(ctx, t, mp, role))


def _strike(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    if len(words) < 5 or words[1].upper() != "FROM":
        raise OrderSyntaxError("STRIKE <id> FROM <base|TFn> <n>x<type>... TARGET <TFn>")
    sid = words[0].upper()
    label, hexid, air, carrier = _base(ctx, words[2])
    line = _strike_line(ctx, words[3:])
    target = line.target
    mp = ctx.mp(hexid, target.hex)
    elements = []
    for w in line.elements:
        element = _bombers(ctx, w, mp, line.night)
        _allocate(ctx, plot, label, air, element.n, element.type)
        elements.append(element)
    part = StrikePart(label, hexid, carrier, mp, tuple(elements))
    flown = " ".join(line.elements)
    old = plot.air_strikes.get(sid)
    if old is not None:
        if old.target != target:
            raise _illegal(f"strike {sid} already has the target {old.target.tf}", "5.10")
        if any(p.base == label for p in old.parts):
            raise _illegal(f"{label} already flies in strike {sid}: one line a base", "5.1.7")
        plot.air_strikes[sid] = replace(old, parts=(*old.parts, part))  # Joint Strike (5.10)
        return f"STRIKE {sid} FROM {label} {flown} (joint, following)"
    for other_id, other in plot.air_strikes.items():
        if other.target == target and any(p.base == label for p in other.parts):
            raise _illegal(
                f"{label} already strikes {target.tf} in {other_id}: one strike a base a target",
                "5.1.7",
            )
    plot.air_strikes[sid] = AirStrike(
        sid, Side(ctx.side), target, line.priority, line.return_base, line.night, parts=(part,)
    )
    return f"STRIKE {sid} FROM {label} {flown} TARGET {target.tf}"


def _escort(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    words, ask = suppression.asked(words)  # 7.9: [SUPPRESS <k>]
    if len(words) != 5 or words[1].upper() != "FROM":
        raise OrderSyntaxError(
            "ESCORT <id> FROM <base|TFn> <n>x<type>@<alt> LOOSE|CLOSE [SUPPRESS <k>]"
        )
    sid, posture = words[0].upper(), words[4].lower()
    strike = plot.air_strikes.get(sid)
    if strike is None:
        raise _illegal(f"no strike {sid} plotted above this line", "5.3.1")
    if strike.night:
        raise _illegal("no escort flies at night", "14.0")
    label, _hex, air, _carrier = _base(ctx, words[2])
    at = next((i for i, p in enumerate(strike.parts) if p.base == label), None)
    if at is None:
        raise _illegal(f"{label} flies no part of strike {sid}", "5.1.7")
    part = strike.parts[at]
    if posture not in ("loose", "close"):
        raise OrderSyntaxError("escort posture is LOOSE or CLOSE (5.3.1)")
    n, t, _role, alt = element(words[3])
    pack = ctx.pack
    unit = fighter(pack, t, "escort", "escort")
    if alt is None:
        raise _illegal("an escort's plot gives its altitude", "5.3.1")
    if alt not in {e.alt for e in part.elements}:
        raise _illegal(
            f"no bombers of {sid} fly at {alt}: escorts cover their own altitude only", "5.0"
        )
    if not altitude.may_fly(pack, unit.air.normal, unit.air.altitude, alt):
        raise _illegal(f"{t} may not fly at {alt}: its strength would be zero", "5.2.3")
    suppression.check_asked(ask, n, posture)
    reach = _reach(ctx, t, part.mp, None)
    _allocate(ctx, plot, label, air, n, t)
    # 7.9: the line's own id, kept when the escort is split (8.1.4, 7.11)
    asked = SuppressionAsk(ask, f"{sid}/{label}/{len(part.escorts)}") if ask else None
    escort = AirElement(t, n, "F", alt, posture=posture, range=reach, suppress=asked)
    parts = list(strike.parts)
    parts[at] = replace(part, escorts=(*part.escorts, escort))
    plot.air_strikes[sid] = replace(strike, parts=tuple(parts))
    more = f" SUPPRESS {ask}" if ask else ""
    return f"ESCORT {sid} FROM {label} {words[3]} {posture.upper()}{more}"


def _cover(ctx: Context, plot: AirPlot, words: Sequence[str], naval: bool) -> str:
    if len(words) != 6 or words[1].upper() != "FROM" or words[4].upper() != "OVER":
        what = "<TFn>" if naval else "<hex>"
        raise OrderSyntaxError(
            f"{'NAVALCOVER' if naval else 'COVER'} <id> FROM <base|TFn> <n>x<type> OVER {what}"
        )
    cid = words[0].upper()
    if cid in plot.cover_flights:
        raise _illegal(f"cover {cid} is already plotted", "5.3.2")
    label, hexid, air, carrier = _base(ctx, words[2])
    n, t, _role, alt = element(words[3])
    fighter(ctx.pack, t, "cap", "fly CAP")
    display = ctx.knowledge.part(ctx.side).task_forces()
    if naval:
        tf = words[5].upper().replace(" ", "")
        over = display.get(tf)
        if over is None or over.dummy or over.hex is None:
            raise _illegal(
                f"{words[5]} is none of your TFs on the map: Naval Cover protects your own TF",
                "5.3.4",
            )
        over_hex, over_label = str(over.hex), tf
    else:
        try:
            over_hex = over_label = parse_hex(words[5])
        except ValueError:
            raise OrderSyntaxError(f"{words[5]!r} is not a hex") from None
    mp = ctx.mp(hexid, over_hex)
    reach = _reach(ctx, t, mp, None)
    _allocate(ctx, plot, label, air, n, t)
    kind = CoverKind.NAVAL_COVER if naval else CoverKind.COVER
    plot.cover_flights[cid] = CoverFlight(
        cid, kind, label, hexid, carrier, t, n, alt, over_label, over_hex, mp, reach
    )
    return f"{'NAVALCOVER' if naval else 'COVER'} {cid} FROM {label} {words[3]} OVER {over_label}"


def _emergency(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    """5.3.5, R122: emergency Cover CAP over a hex (2R) or Naval Cover over one of
    your TFs (4R), flown only when an enemy strike comes there."""
    if len(words) != 6 or words[1].upper() != "FROM" or words[4].upper() != "OVER":
        raise OrderSyntaxError("EMERGENCY <id> FROM <base|TFn> <n>x<type> OVER <hex|TFn>")
    naval = bool(re.fullmatch(r"TF\d{1,2}", words[5].upper()))
    text = _cover(ctx, plot, words, naval)
    cid = words[0].upper()
    c = plot.cover_flights[cid]
    if naval and c.over == c.base:
        del plot.cover_flights[cid]
        raise _illegal(f"{c.base}'s fighters fly CAP over it unplotted, not emergency cover", "5.3")
    kind = CoverKind.EMERGENCY_NAVAL_COVER if naval else CoverKind.EMERGENCY_COVER
    plot.cover_flights[cid] = replace(c, kind=kind)
    return "EMERGENCY " + text.split(" ", 1)[1]


def _transfer(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    if len(words) != 6 or words[2].upper() != "FROM" or words[4].upper() != "TO":
        raise OrderSyntaxError("TRANSFER <id> <n>x<type> FROM <base> TO <base|TFn>")
    tid = words[0].upper()
    n, t, _role, _alt = element(words[1])
    label, hexid, air, _carrier = _base(ctx, words[3])
    dest, dest_hex, _air, dest_carrier = _base(ctx, words[5])
    if dest == label:
        raise _illegal("a transfer goes to another base", "4.4")
    unit = charted(ctx.pack, t)
    mp = ctx.mp(hexid, dest_hex)
    limit = unit.transfer_range
    if mp > limit:
        raise _illegal(f"{t} transfer {limit} MP; {dest} is {mp} MP away", "4.4")
    _allocate(ctx, plot, label, air, n, t)  # 4.4.2: no strike from the origin as well
    plot.air_transfers[tid] = AirTransfer(tid, t, n, label, dest, mp, dest_carrier)
    return f"TRANSFER {tid} {words[1]} FROM {label} TO {dest}"


def _cap(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    """7.1 B, R135: the shares by which the CAP over one's own TF is allotted to the
    altitudes a strike announces (secret: the striker sees only what fights, 6.1)."""
    if len(words) < 2:
        raise OrderSyntaxError("CAP <TFn> <L|M|H>:<share> ..., e.g. CAP TF3 H:2 M:1", rule="7.1")
    tf = words[0].upper()
    entry = ctx.knowledge.part(ctx.side).task_forces().get(tf)
    if entry is None or entry.dummy or entry.hex is None:
        raise _illegal(f"{words[0]} is none of your TFs on the map: CAP flies over your own", "5.3")
    try:
        shares = capsplit.parse(words[1:])
    except ValueError as e:
        raise OrderSyntaxError(f"CAP {tf}: {e}", rule="7.1") from None
    if tf in plot.caps:
        raise _illegal(f"the CAP over {tf} is already allotted above: one line a TF", "7.1")
    plot.caps[tf] = shares
    return f"CAP {tf} {capsplit.text(shares)}"


JUDGES: dict[str, Callable[[Context, AirPlot, Sequence[str]], str]] = {
    "STRIKE": _strike,
    "ESCORT": _escort,
    "COVER": lambda c, p, w: _cover(c, p, w, False),
    "NAVALCOVER": lambda c, p, w: _cover(c, p, w, True),
    "EMERGENCY": _emergency,
    "TRANSFER": _transfer,
    "CAP": _cap,
    "PASS": lambda c, p, w: "PASS",
    "RECIPROCAL": choices.reciprocal,  # 12.3.2 Step 2 (R125)
    "ENTRY": choices.entry,  # 7.7.1 (R126)
    "MAGIC": magic.judge,  # 42.4.1, 42.4.3
}


def hex_mp(mp_per_hex: int = TROPICAL_MP) -> Distance:
    """MP between hexes at a flat cost a hex (the movement area's, 2.1.4)."""
    return lambda a, b: distance(a, b) * mp_per_hex


def judge(
    knowledge: Knowledge, side: str, text: str, mp: Distance | None = None
) -> tuple[AirPlot, list[LineError]]:
    """The accepted plot and every refused line (number, text, reason, rule)."""
    ctx = Context(knowledge, side, mp or hex_mp())
    plot, errors = AirPlot(), []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        head = words[0].upper()
        if head == "AIRPLOT":
            continue
        before = dict(plot.allocated)
        try:
            fn = JUDGES.get(head)
            if fn is None:
                raise OrderSyntaxError(
                    f"{words[0]!r} is not an air order: STRIKE, ESCORT, COVER, NAVALCOVER,"
                    " EMERGENCY, TRANSFER, CAP, RECIPROCAL, ENTRY, MAGIC or PASS"
                )
            fn(ctx, plot, words[1:])
        except OrderError as e:
            plot.allocated = before  # a refused line allocates nothing
            errors.append(line_error(number, raw.strip(), e))
    return plot, errors
