"""Events told as a wargamer reads them: sentences, and combats step by step.

Everything here reads only the events of a side's view (already cut to what
the side may know), so a sentence can never say more than its event.
Unknown kinds fall back to a plain "kind: datum; datum" line, so a new event
is never lost, only less well told.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.core.sides import SIDES

Data = Mapping[str, Any]


def _list(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        items = [str(x) for x in v]
        if len(items) <= 1:
            return "".join(items) or "nothing"
        return ", ".join(items[:-1]) + " and " + items[-1]
    return str(v)


def _side(v: Any) -> str:
    return str(v).capitalize() if v else "A side"


def _losses(v: Any) -> str:
    """{"destroyed": {"NAC": 2}, "aborted": {}} -> "2 NAC destroyed"."""
    if not isinstance(v, Mapping):
        return "no losses"
    parts = [
        f"{n} {atype} {what}"
        for what in ("destroyed", "aborted")
        for atype, n in sorted(dict(v.get(what) or {}).items())
        if n
    ]
    return ", ".join(parts) or "no losses"


def _points(v: Any) -> str:
    if isinstance(v, Mapping):
        return ", ".join(f"{n} {k}" for k, n in v.items() if n) or "none"
    return str(v)


def plain(kind: str, data: Data) -> str:
    """The fallback: kind, then every datum."""
    parts = [f"{k.replace('_', ' ')} {_value(v)}" for k, v in data.items()]
    return kind.replace("-", " ") + (": " + "; ".join(parts) if parts else "")


def _value(v: Any) -> str:
    if isinstance(v, Mapping):
        return ", ".join(f"{k} {_value(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return " ".join(_value(x) for x in v) if v else "-"
    return "-" if v is None else str(v)


# --- sentences ------------------------------------------------------------------------


def _moved(d: Data) -> str:
    path = "-".join(str(h) for h in d.get("path") or []) or "nowhere"
    return f"{_side(d.get('side'))} {d.get('unit')} moved {path}"


MA_HALVED_ABOVE = 20  # CBT.H: weeks of damage beyond which MA is halved


def _damaged(d: Data) -> str:
    who = str(d.get("by") or "")
    by = f" from an {who.capitalize()} attack" if who in SIDES else ""
    by = by.replace("an Japanese", "a Japanese") or (f" by {who}" if who else "")
    text = (
        f"{_side(d.get('side'))} {d.get('unit')} at {d.get('hex', '?')} took "
        f"{d.get('weeks')} week(s) of damage{by}: {d.get('total')} weeks in all"
    )
    weeks, total = int(d.get("weeks") or 0), int(d.get("total") or 0)
    # CBT.H: why its numbers change from now on.
    if weeks and total == weeks:
        text += "; from now on its DEF, SA and AA are halved (CBT.H)"
    if total > MA_HALVED_ABOVE >= total - weeks:
        text += "; with more than 20 weeks its MA is halved too (CBT.H)"
    return text


def _air_returned(d: Data) -> str:
    landed = d.get("landed") or {}
    where = ", ".join(f"{n} to {at}" for at, n in dict(landed).items()) or "nowhere"
    return f"{_side(d.get('side'))} {d.get('type')} returned: {where}"


def _supply(d: Data) -> str:
    return f"{_side(d.get('side'))} {d.get('unit')} is out of supply: its strengths are halved"


SENTENCES: dict[str, Callable[[Data], str]] = {
    "moved": _moved,
    "ship-damaged": _damaged,
    "air-returned": _air_returned,
    "unsupplied": _supply,
    "destroyed": lambda d: (
        f"{_side(d.get('side'))} {d.get('unit')} was destroyed"
        + (f" ({d['cause']})" if d.get("cause") else "")
        + (f" by {d['by']}" if d.get("by") else "")
    ),
    "air-lost": lambda d: (
        f"{_side(d.get('side'))} lost {d.get('points')} {d.get('type')} with no place to land"
    ),
    "air-destroyed": lambda d: (
        f"{_side(d.get('side'))} lost {_points(d.get('points'))} air points at {d.get('at')}"
        + (f" ({d['cause']})" if d.get("cause") else "")
    ),
    "air-transfer": lambda d: (
        f"{_side(d.get('side'))} transferred {d.get('points')} {d.get('type')}"
        + (f" from {d['source']}" if d.get("source") else "")
        + (f" to {d['dest']}" if d.get("dest") else "")
    ),
    "reinforcement": lambda d: f"{_side(d.get('side'))} {d.get('unit')} arrived at {d.get('at')}",
    "placed": lambda d: (
        f"{_side(d.get('side'))} placed {d.get('unit') or d.get('air')} at {d.get('at')}"
    ),
    "plot": lambda d: f"{_side(d.get('side'))} plotted: {d.get('order')}",
    "order-failed": lambda d: f'Your order "{d.get("order")}" failed: {d.get("reason")}',
    "repaired": lambda d: (
        f"{_side(d.get('side'))} {d.get('unit')} was repaired one week: {d.get('left')} left"
    ),
    "refuelled": lambda d: f"{_side(d.get('side'))} {d.get('unit')} refuelled",
    "double-speed": lambda d: f"{_side(d.get('side'))} {d.get('unit')} moved at double speed",
    "left-map": lambda d: (
        f"{_side(d.get('side'))} {d.get('unit')} left the map ({d.get('edge')} edge)"
    ),
    "arrived": lambda d: f"{_side(d.get('side'))} {d.get('unit')} arrived at {d.get('at')}",
    "sailed": lambda d: f"{_side(d.get('side'))} {d.get('unit')} sailed for {d.get('entry')}",
    "landed": lambda d: f"{_side(d.get('side'))} landed {_list(d.get('units'))} at {d.get('hex')}",
    "retreated": lambda d: f"{_side(d.get('side'))} {d.get('unit')} retreated to {d.get('to')}",
    "escaped": lambda d: (
        f"{_side(d.get('side'))} {_list(d.get('units'))} escaped the engagement at {d.get('hex')}"
    ),
    "out-of-combat": lambda d: (
        f"{_side(d.get('side'))} {_list(d.get('units'))} stayed out of the engagement "
        f"at {d.get('hex')}"
    ),
    "restacked": lambda d: (
        f"{_side(d.get('side'))} restacked at {d.get('hex')}, top first: {_list(d.get('order'))}"
    ),
    "base-hit": lambda d: (
        f"The {str(d.get('base', '')).lower()} at {d.get('hex')} was hit ({d.get('result')})"
        + (
            f": neutralized until turn {d['neutralized_until']}"
            if d.get("neutralized_until")
            else ""
        )
    ),
    "base-captured": lambda d: (
        f"{_side(d.get('side'))} captured the base at {d.get('hex')}"
        + (f" ({d['name']})" if d.get("name") else "")
    ),
    "base-destroyed": lambda d: f"The base at {d.get('hex')} was destroyed",
    "embarked": lambda d: (
        f"{_side(d.get('side'))} {_list(d.get('cargo'))} embarked on {d.get('transport')}"
        if d.get("side")
        else f"{_list(d.get('cargo'))} embarked on {d.get('transport')}"
    ),
    "entrench": lambda d: f"{_side(d.get('side'))} {d.get('unit')} entrenched",
    "sub-moved": lambda d: f"Submarine {d.get('sub')} moved to {_list(d.get('path'))}",
    "initiative": lambda d: (
        f"{d.get('time')}, {d['segment']}: {_side(d.get('winner'))} won the initiative "
        f"(rolls {_list(['-'.join(map(str, r)) for r in d['rolls']])}) and chose to go "
        f"{d['choice']}: {d['first']} first"
    ),
    "turn-ended": lambda d: f"Game-Turn {d['turn']} ended",
    "cycle-ended": lambda d: f"Cycle {d['cycle']} ended with its Strategic Game-Turn",
}


def sentence(event: Mapping[str, Any]) -> str:
    """One event as a sentence, with its rule."""
    kind = str(event.get("kind", "event"))
    data = event.get("data") or {}
    tell = SENTENCES.get(kind)
    try:
        text = tell(data) if tell else plain(kind, data)
    except (KeyError, TypeError, ValueError, AttributeError):
        text = plain(kind, data)
    return text + "." + (f" [{event['rule']}]" if event.get("rule") else "")


# Kinds told once for many: "Air returned: ..." rather than five lines.
GROUPED = {"air-returned", "moved", "plot", "repaired", "refuelled", "placed"}


def _together(run: list[Mapping[str, Any]]) -> None:
    """Units that did the same thing (same event but for the unit) become one event."""
    merged: dict[str, dict[str, Any]] = {}
    for e in run:
        data = dict(e.get("data") or {})
        unit = data.pop("unit", None)
        key = repr(sorted(data.items()))
        if key in merged and unit is not None:
            merged[key]["data"]["units"].append(unit)
        else:
            merged[key] = {**e, "data": {**data, "units": [unit] if unit is not None else []}}
    if len(merged) < len(run):
        for m in merged.values():
            units = m["data"].pop("units")
            if units:
                m["data"]["unit"] = _list(units)
        run[:] = list(merged.values())


def happened(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """Sentences in order; consecutive repeats of a grouped kind told as one line."""
    out: list[str] = []
    run: list[Mapping[str, Any]] = []

    def flush() -> None:
        _together(run)
        if len(run) == 1:
            out.append(sentence(run[0]))
        elif run:
            kind = str(run[0].get("kind"))
            rule = run[0].get("rule")
            parts = []
            for e in run:
                tell = SENTENCES.get(kind)
                parts.append(
                    tell(e.get("data") or {}) if tell else plain(kind, e.get("data") or {})
                )
            head = f"{kind.replace('-', ' ').capitalize()} ({len(run)}): "
            out.append(head + "; ".join(parts) + "." + (f" [{rule}]" if rule else ""))
        run.clear()

    for e in events:
        same = run and e.get("kind") == run[0].get("kind") and e.get("rule") == run[0].get("rule")
        if run and not same:
            flush()
        if e.get("kind") in GROUPED:
            run.append(e)
        else:
            out.append(sentence(e))
    flush()
    return out


# --- combats --------------------------------------------------------------------------


def _why(value: Any, reasons: Any) -> str:
    """A strength and why it is not the printed one: "6 (CA-1 halved: damaged [CBT.H])"."""
    if isinstance(reasons, (list, tuple)) and reasons:
        return f"{value} ({'; '.join(str(r) for r in reasons)})"
    return str(value)


def fire_lines(f: Mapping[str, Any], table: str = "CRT4", what: str = "Fire") -> list[str]:
    """One attack on CRT3/CRT4 then CRT5: strengths (and why one was changed), odds,
    each die and what it decided."""
    who = f"{_side(f['side'])} fire" if f.get("side") else what
    head = (
        f"{who} at {f.get('target')}: attack {_why(f.get('attack'), f.get('attack_why'))} "
        f"against defense {_why(f.get('defense'), f.get('defense_why'))}, "
        f"odds {f.get('odds')} on {table}"
    )
    if not f.get("die"):
        return [head + ": no die rolled, no effect."]
    lines = [head + "."]
    number = f.get("damage_number") or 0
    lines.append(
        f"  Die {f['die']} ({table}, damage number): "
        + (f"damage number {number}." if number else "no damage number, no effect.")
    )
    if number:
        result = str(f.get("result"))
        told = {"X": "X, destroyed", "-": "no damage"}.get(result, f"{result} weeks of damage")
        lines.append(f"  Die {f.get('die_crt5')} (CRT5, weeks of damage): {told}.")
    return lines


def _dogfight(cap: Any) -> list[str]:
    if not isinstance(cap, Mapping):
        return ["No CAP engaged."]
    dice = list(cap.get("dice") or [None, None])
    return [
        f"CAP: air-to-air strength {cap.get('cap')} against the strike's {cap.get('strike')} (CRT2).",
        f"  Die {dice[0]} (CAP fire at the strike): strike: {_losses(cap.get('strike_losses'))}.",
        f"  Die {dice[1] if len(dice) > 1 else '?'} (strike fire at the CAP): "
        f"CAP: {_losses(cap.get('cap_losses'))}.",
    ]


def _flak(aa: Any) -> list[str]:
    if not isinstance(aa, Mapping):
        return ["No anti-aircraft fire (AA below 1)."]
    return [
        f"AA: strength {_why(aa.get('aa'), aa.get('aa_why'))} (CRT2). "
        f"Die {aa.get('die')} (AA fire): strike: {_losses(aa.get('losses'))}."
    ]


def _attacks(attack: Any, table: str = "CRT3") -> list[str]:
    """Air bombardment of ships and bases (CRT3; CD units CRT4), strafing (CRT2),
    bombing of land units (CRT1: told as its own bombardment)."""
    if isinstance(attack, Mapping) and "odds" in attack:
        attack = [attack]
    if isinstance(attack, (list, tuple)):
        out: list[str] = []
        for f in attack:
            out += fire_lines(f, table, "Bombs") if isinstance(f, Mapping) else [str(f)]
        return out or ["No attack was made."]
    if not isinstance(attack, Mapping):
        return ["No target was found: no attack was made."]
    if "cut_off" in attack:
        return [
            "Bombing (CRT1, below): the unit is "
            + ("cut off from supply." if attack["cut_off"] else "not cut off.")
        ]
    if "grounded" in attack:
        return ["No aircraft on the ground to strafe."]
    if "die" in attack:
        return [f"Strafing: die {attack['die']} (CRT2): {_points(attack.get('destroyed'))} "
                "destroyed on the ground."]  # fmt: skip
    return [f"Bombing: {plain('', attack).lstrip(': ')}."]


TARGETS = {
    "STRAFE": "the aircraft on the ground (strafing)",
    "AIRBASE": "the air base",
    "NAVALBASE": "the naval base",
    "PORT": "the ships in port",
    "LAND": "land units",
    "CD": "the coast defence",
}


def _air_strike(d: Data) -> tuple[str, list[str]]:
    target = (
        f"ship group {d.get('group')} ({_list(d.get('ships'))})"
        if "group" in d
        else TARGETS.get(str(d.get("target")), str(d.get("target", "?")).lower())
    )
    kind = f"{d['type']} " if d.get("type") else ""
    title = f"{_side(d.get('attacker') or d.get('side'))} {kind}air strike on {target} at {d.get('hex')}"
    lines = [f"Attacking: {_list(d.get('flights'))}."]
    table = "CRT4" if d.get("target") == "CD" else "CRT3"
    lines += _dogfight(d.get("cap")) + _flak(d.get("aa")) + _attacks(d.get("attack"), table)
    return title, lines


def _surface(d: Data) -> tuple[str, list[str]]:
    engaged = d.get("engaged") or {}
    title = f"Surface engagement at {d.get('hex')}, {_side(d.get('attacker'))} attacking"
    lines = [f"{_side(s)} engaged: {_list(u)}." for s, u in dict(engaged).items()]
    for f in d.get("fire") or []:
        lines += fire_lines(f, "CRT4")
    lines.append("Both sides fire before losses are taken (NM.SURF.5).")
    return title, lines


def _land(d: Data) -> tuple[str, list[str]]:
    title = f"Land combat at {d.get('hex')}, {_side(d.get('attacker'))} attacking"
    lines = [
        f"Attackers {_list(d.get('attackers'))}, strength "
        f"{_why(d.get('attack'), d.get('attack_why'))}; defenders "
        f"{_list(d.get('defenders'))}, strength {_why(d.get('defense'), d.get('defense_why'))}.",
        f"CRT1 column {d.get('column')}. Die {d.get('roll')} (CRT1 result): {d.get('result')}.",
    ]
    return title, lines


def _bombardment(d: Data) -> tuple[str, list[str]]:
    title = (
        f"{_side(d.get('attacker'))} naval bombardment of {d.get('target')} at {d.get('hex')}"
        f" by {_list(d.get('by'))}"
    )
    if "fire" in d:
        lines = fire_lines(d["fire"], "CRT4")
        if isinstance(d.get("counter_fire"), Mapping):
            lines += ["Counter-fire of the coast defence:", *fire_lines(d["counter_fire"], "CRT4")]
        if "cd_destroyed" in d:
            lines.append(
                "The coast defence was destroyed."
                if d["cd_destroyed"]
                else "The coast defence survived."
            )
        return title, lines
    return title, [
        f"Attack {_why(d.get('attack'), d.get('attack_why'))} against defense "
        f"{_why(d.get('defense'), d.get('defense_why'))} (CRT1). "
        f"Die {d.get('die')} (CRT1 result): {d.get('result')}"
        + (": the unit is cut off from supply." if d.get("cut_off") else ".")
    ]


def _ground_support(d: Data) -> tuple[str, list[str]]:
    role = "attack" if "attack" in d else "defense"
    title = f"{_side(d.get('attacker') or d.get('side'))} ground support ({role}) at {d.get('hex')}"
    lines = [f"Flying: {_list(d.get('flights'))}.", *_dogfight(d.get("cap"))]
    lines.append(f"Bombardment strength added to the {role}: {d.get(role)}.")
    return title, lines


def _sub(d: Data) -> tuple[str, list[str]]:
    return f"Submarine attack on {d.get('ship')}", fire_lines(
        d.get("fire") or {}, "CRT4", "Torpedoes"
    )


def _roll_only(d: Data) -> tuple[str, list[str]]:
    return "Indian Ocean raid losses", [f"Die {d.get('roll')}: {_value(d.get('lost'))} NAC lost."]


def _zone(d: Data) -> tuple[str, list[str]]:
    rolls, totals = dict(d.get("rolls") or {}), dict(d.get("totals") or {})
    lines = [f"{_side(s)}: die {rolls.get(s)}, total {t}." for s, t in sorted(totals.items())]
    return f"Zone {d.get('zone')}, won by {d.get('winner') or 'nobody (a tie)'}", lines


COMBATS: dict[str, Callable[[Data], tuple[str, list[str]]]] = {
    "air-strike": _air_strike,
    "surface-engagement": _surface,
    "land-combat": _land,
    "bombardment": _bombardment,
    "ground-support": _ground_support,
    "submarine-attack": _sub,
    "indian-ocean-losses": _roll_only,
    "zone-fought": _zone,  # the demo ruleset (DEMO.FIGHT)
}


def combat(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """A combat as the rulebook resolves it, or None when the kind is not a combat."""
    tell = COMBATS.get(str(event.get("kind")))
    if tell is None:
        return None
    try:
        title, lines = tell(event.get("data") or {})
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        title, lines = str(event.get("kind")), [plain("", event.get("data") or {}).lstrip(": ")]
    return {"kind": event.get("kind"), "rule": event.get("rule"), "title": title, "lines": lines}
