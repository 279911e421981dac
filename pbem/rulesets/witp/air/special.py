"""5.8 Special strikes against ships in the Naval Phase, as standing orders.

By mail the enemy's pause (5.8: "to allow the enemy player the opportunity to launch
a special strike against the moving TF") becomes a standing order, judged when it is
filed from the side's Knowledge (docs/witp-rulings.md R105):

    SPECIAL <id> FROM <base|TFn> <n>x<type>[/<role>][@<alt>] ...
            [ESCORT <n>x<type>@<alt> LOOSE|CLOSE] [AGAINST ANY|<type>[,<type>...]]
            [RANGE NORMAL|EXTENDED] [NIGHT]

``launches`` is asked each time an enemy TF, moving, enters a hex (the caller halts it
there while the strikes resolve, 5.8): it returns the strikes the orders launch, as
AirStrike values (air/strikes.py), judged from what the side knows: the TF must be
contacted and not last reported a dummy (5.8, 5.1.6, 13.6.4); by day the orders
without NIGHT, at night only those with it: night-rated bombers, unescorted, at a
Located TF moving at night (16.6.1, 14.2.2, R113); one special strike from a base against a TF in a Naval Phase (5.8.2); a
base's later special strike against another TF goes through the APAT (5.8.2), and
APs aborted in an earlier one stay home (5.8.2).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from pbem.core.errors import IllegalOrderError, OrderError, OrderSyntaxError
from pbem.core.refusals import line_error
from pbem.core.ruleset import LineError
from pbem.core.sides import Side
from pbem.rulesets.witp.air import altitude
from pbem.rulesets.witp.air.plot import charted, element, fighter, hex_mp
from pbem.rulesets.witp.air.ships import base_air
from pbem.rulesets.witp.air.strikeplot import Distance
from pbem.rulesets.witp.air.strikes import (
    AirElement,
    AirStrike,
    SpecialOrder,
    StrikePart,
    StrikeTarget,
)
from pbem.rulesets.witp.air.tables import ROLES, Pack, air_unit, value
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.taskforces import Parts


def standing(parts: Parts, side: str) -> list[SpecialOrder]:
    """The side's standing special strikes (its standing orders keep them until it
    files others, R105), from the round's Work or the side's Knowledge."""
    return list(parts.part(side).orders().specials())


def _escort(pack: Pack, words: Sequence[str]) -> AirElement:
    """``ESCORT <n>x<type>@<alt> LOOSE|CLOSE`` (``words``: the two after ESCORT)."""
    n, t, _r, alt = element(words[0])
    posture = words[1].lower()
    if posture not in ("loose", "close") or alt is None:
        raise OrderSyntaxError("ESCORT <n>x<type>@<alt> LOOSE|CLOSE (5.3.1)")
    fighter(pack, t, "escort", "escort")
    return AirElement(t, n, "F", alt, posture=posture)


def _bombers(pack: Pack, word: str) -> AirElement:
    n, t, role, alt = element(word)
    unit = charted(pack, t)
    role = role or unit.roles[0]
    if role not in unit.roles or role not in value(pack, ROLES)["naval"]:
        raise IllegalOrderError(f"{t} as {role} flies no naval strike", rule="5.6")
    flown = altitude.approach(role, unit.air.altitude, alt)
    if alt and alt != flown:
        raise IllegalOrderError(f"{role} APs approach at {flown}, not {alt}", rule="7.1")
    return AirElement(t, n, role, flown)


def _line(knowledge: Knowledge, side: str, words: Sequence[str]) -> SpecialOrder:
    if len(words) < 4 or words[1].upper() != "FROM":
        raise OrderSyntaxError(
            "SPECIAL <id> FROM <base|TFn> <n>x<type>... [ESCORT ...] [AGAINST ...] [RANGE ...]"
        )
    pack = knowledge.pack
    try:
        label, _hex, air, carrier = base_air(knowledge, side, words[2])
    except KeyError:
        raise IllegalOrderError(
            f"{words[2]} is none of your air bases or carrier TFs", rule="5.8"
        ) from None
    order = SpecialOrder(words[0].upper(), label, carrier)
    used: dict[str, int] = {}  # APs by type, in the line's order
    rest, i = list(words[3:]), 0
    while i < len(rest):
        w = rest[i].upper()
        if w == "ESCORT" and i + 2 < len(rest):
            escort = _escort(pack, rest[i + 1 : i + 3])
            order = replace(order, escorts=(*order.escorts, escort))
            used[escort.type] = used.get(escort.type, 0) + escort.n
            i += 3
        elif w == "AGAINST" and i + 1 < len(rest):
            order = replace(order, against=tuple(x.upper() for x in rest[i + 1].split(",") if x))
            i += 2
        elif w == "NIGHT":  # 14.2.2: flown only at a TF moving at night
            order, i = replace(order, night=True), i + 1
        elif w == "RANGE" and i + 1 < len(rest) and rest[i + 1].upper() in ("NORMAL", "EXTENDED"):
            order, i = replace(order, range=rest[i + 1].lower()), i + 2
        else:
            bombers = _bombers(pack, rest[i])
            order = replace(order, elements=(*order.elements, bombers))
            used[bombers.type] = used.get(bombers.type, 0) + bombers.n
            i += 1
    _check(pack, order, used, air)
    return order


def _check(
    pack: Pack,
    order: SpecialOrder,
    used: Mapping[str, int],
    air: Mapping[str, int],
) -> None:
    """The whole order: bombers named, the APs ``used`` there, night-rated and
    unescorted at night, escorts at their bombers' altitudes."""
    if not order.elements:
        raise OrderSyntaxError("a special strike names its bombers")
    for t, n in used.items():
        if n > int(air.get(t, 0)):
            raise IllegalOrderError(f"{order.base} has {air.get(t, 0)} {t}, not {n}", rule="5.8")
    if order.night:
        if order.escorts:
            raise IllegalOrderError("night strikes fly unescorted", rule="14.2.2")
        for e in order.elements:
            if not air_unit(pack, e.type).night_rated:
                raise IllegalOrderError(
                    f"{e.type} is not night-rated: no night strike against ships", rule="14.2.2"
                )
    alts = {e.alt for e in order.elements}
    if any(e.alt not in alts for e in order.escorts):
        raise IllegalOrderError("escorts cover their own bombers' altitude only", rule="5.0")


def judge(knowledge: Knowledge, side: str, text: str) -> tuple[list[SpecialOrder], list[LineError]]:
    """The standing special-strike orders accepted, and the lines refused."""
    orders, errors = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        try:
            if words[0].upper() != "SPECIAL":
                raise OrderSyntaxError(f"{words[0]!r}: a standing special strike begins SPECIAL")
            orders.append(_line(knowledge, side, words[1:]))
        except OrderError as e:
            errors.append(line_error(number, raw.strip(), e))
    return orders, errors


def _reported_types(knowledge: Knowledge, owner: str, tf: str) -> set[str]:
    report = knowledge.last_report(owner, tf) or ""
    return {w.strip(",;").upper() for w in report.split() if w.strip(",;").isalpha()} - {
        "TOTAL",
        "DAMAGE",
    }


def launches(
    knowledge: Knowledge,
    side: str,
    orders: Sequence[SpecialOrder],
    owner: str,
    tf: str,
    hexid: str,
    *,
    night: bool,
    struck: Collection[tuple[str, str]] = (),
    aborted: Mapping[tuple[str, str], int] | None = None,
    mp: Distance | None = None,
) -> list[AirStrike]:
    """The special strikes ``side``'s standing orders launch at ``owner``'s TF ``tf``,
    moving into ``hexid``. ``struck``: (base, TF) pairs already struck this Naval Phase;
    ``aborted``: APs by (base, type) aborted in earlier special strikes (5.8.2)."""
    # 16.6.1: nothing flies at night but 14.2.2's night strikes (NIGHT orders, R113),
    # and those fly only at night
    orders = [o for o in orders if o.night == night]
    if not orders:
        return []
    if knowledge.strike_target_problem(owner, tf) is not None:
        return []  # 5.8, 13.6.4
    reported = _reported_types(knowledge, owner, tf)
    dist = mp or hex_mp()
    out: list[AirStrike] = []
    busy = {b for b, _t in struck}
    for order in orders:
        base = order.base
        if (base, tf) in struck or any(s.parts[0].base == base for s in out):
            continue  # 5.8.2: one a base a TF (and one launch a base a hex entered)
        if "ANY" not in order.against and not reported & set(order.against):
            continue
        try:
            _label, home, air, carrier = base_air(knowledge, side, base)
        except KeyError:
            continue
        d = dist(str(home), hexid)
        gone = aborted or {}
        elements: list[AirElement] = []
        escorts: list[AirElement] = []
        for group, target in ((order.elements, elements), (order.escorts, escorts)):
            for e in group:
                unit = air_unit(knowledge.pack, e.type)
                limit = unit.range.at(order.range)
                if e.role == "T":
                    limit = min(limit, unit.torpedo_range)
                n = min(e.n, int(air.get(e.type, 0)) - gone.get((base, e.type), 0))
                if d <= limit and n > 0:
                    reach = "normal" if d <= unit.range.normal else "extended"
                    target.append(replace(e, n=n, range=reach))
        if not elements:
            continue
        # 5.8.2: a successive special strike from the base flies through the APAT
        part = StrikePart(base, home, carrier, d, tuple(elements), tuple(escorts), base in busy)
        at = StrikeTarget(Side(owner), tf, hexid)
        out.append(AirStrike(order.id, Side(side), at, night=night, special=True, parts=(part,)))
    return out
