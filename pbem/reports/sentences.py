"""Each kind of event as a sentence a wargamer reads: one template a kind.

The templates read only the event's data (already cut to what the audience may
know); a datum the view left out reads as "?" or is left out, never guessed.
A kind without a template falls back to a plain "kind: datum; datum" line
(``plain``), so a new event is never lost; every kind the U.S.N. engine emits
has a template (tests/unit/reports/test_sentences.py checks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.core.sides import SIDES

Data = Mapping[str, Any]


def listed(v: Any) -> str:
    """["CA-1", "CA-2", "DD-1"] -> "CA-1, CA-2 and DD-1"."""
    if isinstance(v, (list, tuple)):
        items = [str(x) for x in v]
        if len(items) <= 1:
            return "".join(items) or "nothing"
        return ", ".join(items[:-1]) + " and " + items[-1]
    return str(v)


def side_name(v: Any) -> str:
    return str(v).capitalize() if v else "A side"


def losses(v: Any) -> str:
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


def points(v: Any) -> str:
    """{"LAC": 2, "NAC": 1} -> "2 LAC, 1 NAC"."""
    if isinstance(v, Mapping):
        return ", ".join(f"{n} {k}" for k, n in v.items() if n) or "none"
    return str(v)


def value(v: Any) -> str:
    if isinstance(v, Mapping):
        return ", ".join(f"{k} {value(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return " ".join(value(x) for x in v) if v else "-"
    return "-" if v is None else str(v)


def plain(kind: str, data: Data) -> str:
    """The fallback: kind, then every datum."""
    parts = [f"{k.replace('_', ' ')} {value(v)}" for k, v in data.items()]
    return kind.replace("-", " ") + (": " + "; ".join(parts) if parts else "")


# --- CRT1 results in words (the rulebook's "Explanation of Effects") ---------------------

CRT1_RESULTS = {
    "Ax": "all attacking units are destroyed (naval and air ground support are not)",
    "DX": "all defending units are destroyed (air ground support is not)",
    "D1": (
        "on Class 1 land the defender is destroyed; on Class 2 land the defender loses "
        "every base in the hex and its coastal defense units, but stays, disentrenched "
        "(destroyed instead if it defends a base or coastal defense unit out of supply)"
    ),
    "D2": (
        "on Class 1 land the defender is destroyed; on Class 2 land it retreats, "
        "disentrenched, to an adjacent land hex in supply (not across an all-sea "
        "hexside), and is destroyed if it has none"
    ),
}


def crt1_cause(cause: str) -> str:
    """A destruction's cause as recorded ("D1", "D2: no retreat") in words."""
    code, _, rest = cause.partition(":")
    if code not in CRT1_RESULTS:
        return cause
    how = f"{'an' if code == 'Ax' else 'a'} {code} result in land combat"
    return f"{how}: {rest.strip()}" if rest else how


# --- the templates ---------------------------------------------------------------------


def _who(d: Data, key: str = "unit") -> str:
    """ "Japanese CV-1", or the unit alone when the view gives no side."""
    unit = d.get(key, "?")
    return f"{side_name(d['side'])} {unit}" if d.get("side") else str(unit)


def _moved(d: Data) -> str:
    path = "-".join(str(h) for h in d.get("path") or []) or "nowhere"
    return f"{_who(d)} moved {path}"


MA_HALVED_ABOVE = 20  # CBT.H: weeks of damage beyond which MA is halved


def _damaged(d: Data) -> str:
    who = str(d.get("by") or "")
    by = f" from an {who.capitalize()} attack" if who in SIDES else ""
    by = by.replace("an Japanese", "a Japanese") or (f" by {who}" if who else "")
    text = (
        f"{side_name(d.get('side'))} {d.get('unit')} at {d.get('hex', '?')} took "
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
    kind = f"{d['type']} " if d.get("type") else ""
    where = ", ".join(f"{n} {kind}to {at}" for at, n in dict(landed).items()) or "nowhere"
    return f"{side_name(d.get('side'))} aircraft returned: {where}"


def _destroyed(d: Data) -> str:
    cause = str(d.get("cause") or "")
    text = f"{_who(d)} was destroyed"
    if cause:
        text += f" ({crt1_cause(cause)})"
    return text + (f" by {d['by']}" if d.get("by") else "")


BASES = {"AIRBASE": "air base", "NAVALBASE": "naval base", "air": "air base", "naval": "naval base"}


def _base(d: Data) -> str:
    raw = str(d.get("base") or "base")
    return BASES.get(raw, raw.lower())


def _base_hit(d: Data) -> str:
    """NM.BOMBBASE / AM.BASE.RESOLVE: the CRT5 result and what it did to the base."""
    result = str(d.get("result", "?"))
    told = "X" if result == "X" else f"{result} weeks"
    text = f"The {_base(d)} at {d.get('hex')} was hit (CRT5 result {told})"
    effects = []
    if d.get("neutralized_until"):
        effects.append(f"it is neutralized through Game-Turn {d['neutralized_until']}")
    if result == "X" and d.get("base") == "AIRBASE":
        effects.append(f"X costs it 5 capacity: {d.get('air_capacity', '?')} left")
    if result == "X" and d.get("naval_destroyed"):
        effects.append("X destroys the naval base")
    return text + (": " + "; ".join(effects) if effects else "")


def _base_building(d: Data) -> str:
    who = f"{side_name(d.get('side'))} {d.get('engineer', '?')}"
    where = f"the {_base(d)} at {d.get('hex')}"
    if d.get("completed"):
        return f"{who} also worked on {where}, already completed this Game-Turn"
    if "success" not in d:
        return f"{who} worked on {where}"
    outcome = "succeeded" if d.get("success") else "failed"
    return f"{who} tried to build {where}: die {d.get('roll', '?')}, {outcome}"


def _base_done(verb: str) -> Callable[[Data], str]:
    def tell(d: Data) -> str:
        text = f"{side_name(d.get('side'))} {verb} the {_base(d)} at {d.get('hex')}"
        if d.get("base") in ("air", "AIRBASE") and d.get("capacity") is not None:
            text += f" (air capacity {d['capacity']})"
        return text + (f" with {d['engineer']}" if d.get("engineer") else "")

    return tell


def _sabotage(d: Data) -> str:
    outcome = "wrecked it" if d.get("success") else "failed"
    return (
        f"{_who(d)} sabotaged its own {_base(d)} at {d.get('hex')}: "
        f"die {d.get('roll', '?')}, {outcome}"
    )


def _refuelled(d: Data) -> str:
    ships = d.get("ships") or d.get("unit")
    by = f" from the oiler {d['oiler']}" if d.get("oiler") else ""
    return f"{side_name(d.get('side'))} {listed(ships)} refuelled{by}"


def _entrench(d: Data) -> str:
    if d.get("success") is False:
        return f"{_who(d)} failed to entrench (die {d.get('roll', '?')})"
    roll = f" (die {d['roll']})" if d.get("roll") is not None else ""
    return f"{_who(d)} entrenched{roll}"


def _reinforcement(d: Data) -> str:
    what = d.get("unit") or d.get("air") or "?"
    return f"{side_name(d.get('side'))} {what} arrived at {d.get('at')}"


def _left_map(d: Data) -> str:
    text = f"{_who(d)} left the map ({d.get('edge')} edge)"
    if d.get("box"):
        text += f": {d['box']} off-map box(es) to the U.S. West Coast"
    if d.get("nac"):
        text += f", carrying {d['nac']} NAC"
    return text


def _sub_moved(d: Data) -> str:
    forced = " (forced off its station)" if d.get("forced") else ""
    path = "-".join(str(h) for h in d.get("path") or []) or "nowhere"
    return f"Submarine {d.get('sub')} moved {path}{forced}"


def _found_nothing(d: Data) -> str:
    flights = f" ({listed(d['flights'])})" if d.get("flights") else ""
    return (
        f"{side_name(d.get('side'))} strike{flights} found no {d.get('target', 'target')} "
        f"at {d.get('hex')} and returned without attacking"
    )


def _retargeted(d: Data) -> str:
    return (
        f"{side_name(d.get('side'))} strike on {d.get('named')} at {d.get('hex')}: "
        f"{d.get('named')} is not there, so the unit with the lowest defence, "
        f"{d.get('target')}, was bombed"
    )


SENTENCES: dict[str, Callable[[Data], str]] = {
    "moved": _moved,
    "ship-damaged": _damaged,
    "air-returned": _air_returned,
    "unsupplied": lambda d: f"{_who(d)} is out of supply: its strengths are halved",
    "destroyed": _destroyed,
    "air-lost": lambda d: (
        f"{side_name(d.get('side'))} lost {d.get('points')} {d.get('type')} with no place to land"
    ),
    "air-destroyed": lambda d: (
        f"{side_name(d.get('side'))} lost {points(d.get('points'))} air points at {d.get('at')}"
        + (f" ({d['cause']})" if d.get("cause") else "")
    ),
    "air-losses": lambda d: (
        f"{side_name(d.get('side'))} lost {points(d.get('losses'))} on the ground at "
        f"{d.get('at')}" + (f" to {side_name(d['by'])} bombardment" if d.get("by") else "")
    ),
    "air-transfer": lambda d: (
        f"{side_name(d.get('side'))} transferred {d.get('points')} {d.get('type')}"
        + (f" from {d['source']}" if d.get("source") else "")
        + (f" to {d['dest']}" if d.get("dest") else "")
    ),
    "air-embarked": lambda d: (
        f"{side_name(d.get('side'))} embarked {d.get('points')} new NAC on {d.get('dest')} "
        "at the U.S. West Coast"
    ),
    "reinforcement": _reinforcement,
    "placed": lambda d: (
        f"{side_name(d.get('side'))} placed {d.get('unit') or d.get('air')} at {d.get('at')}"
    ),
    "variable-deployment": lambda d: (
        f"Allied variable deployment: die {d.get('roll', '?')}, {listed(d.get('units'))} "
        f"at {d.get('hex')}"
    ),
    "plot": lambda d: f"{side_name(d.get('side'))} plotted: {d.get('order')}",
    "order-failed": lambda d: f'Your order "{d.get("order")}" failed: {d.get("reason")}',
    "standing-orders": lambda d: (
        f"{side_name(d.get('side'))} standing orders in force: {'; '.join(d.get('orders') or [])}"
    ),
    "repaired": lambda d: f"{_who(d)} was repaired one week: {d.get('left')} left",
    "refuelled": _refuelled,
    "double-speed": lambda d: f"{_who(d)} moved at double speed",
    "move-stopped": lambda d: (
        f"{side_name(d.get('side'))} {d['message']}"
        if d.get("message")
        else f"{_who(d)} stopped at {d.get('hex')}"
    ),
    "left-map": _left_map,
    "arrived": lambda d: f"{_who(d)} arrived at {d.get('at')}",
    "sailed": lambda d: f"{_who(d)} sailed for {d.get('entry')}",
    "dropped": lambda d: f"{_who(d)} dropped by parachute on {d.get('to')}",
    "landed": lambda d: (
        f"{side_name(d.get('side'))} landed {listed(d.get('units'))} at {d.get('hex')}"
    ),
    "landing-prepared": lambda d: (
        f"{listed(d.get('cargo'))} aboard {d.get('transport')} at {d.get('at')} will land "
        "in the land attack phase"
    ),
    "re-embarked": lambda d: (
        f"{side_name(d.get('side'))} {listed(d.get('units'))} went back aboard {d.get('transport')}"
    ),
    "embarked": lambda d: (
        f"{side_name(d.get('side'))} {listed(d.get('cargo'))} embarked on {d.get('transport')}"
        if d.get("side")
        else f"{listed(d.get('cargo'))} embarked on {d.get('transport')}"
    ),
    "debarked": lambda d: (
        f"{listed(d.get('cargo'))} went ashore from {d.get('transport')} at {d.get('at')}"
    ),
    "emergency-supply": lambda d: (
        f"{d.get('ship')} brought emergency supply to {listed(d.get('units'))} at {d.get('at')}"
    ),
    "emergency-transport": lambda d: (
        f"{d.get('ship')} carried {d.get('unit')} to {d.get('to')} by emergency transport"
    ),
    "retreated": lambda d: f"{_who(d)} retreated to {d.get('to')} (a D2 result)",
    "left-game": lambda d: (
        f"{_who(d)} retreated to {d.get('to')} and is out of the game (a D2 result)"
    ),
    "escaped": lambda d: (
        f"{side_name(d.get('side'))} {listed(d.get('units'))} escaped the engagement at "
        f"{d.get('hex')}" + (f" to {d['to']}" if d.get("to") else "")
    ),
    "turned-to-fight": lambda d: (
        f"{side_name(d.get('side'))} {listed(d.get('units'))} at {d.get('hex')} turned to "
        f"fight {listed(d.get('against'))}"
    ),
    "out-of-combat": lambda d: (
        f"{side_name(d.get('side'))} {listed(d.get('units'))} stayed out of the engagement "
        f"at {d.get('hex')}"
    ),
    "restacked": lambda d: (
        f"{side_name(d.get('side'))} restacked at {d.get('hex')}, top first: "
        f"{listed(d.get('order'))}"
    ),
    "strike-found-nothing": _found_nothing,
    "strike-retargeted": _retargeted,
    "base-hit": _base_hit,
    "base-captured": lambda d: (
        f"{side_name(d.get('side'))} captured the base at {d.get('hex')}"
        + (f" ({d['name']})" if d.get("name") else "")
        + ("; it needs repair before use" if d.get("needs_repair") else "")
    ),
    "base-usable": lambda d: (
        f"The {side_name(d.get('side'))} base at {d.get('hex')}"
        + (f" ({d['name']})" if d.get("name") else "")
        + " can be used now"
    ),
    "base-destroyed": lambda d: f"The base at {d.get('hex')} was destroyed",
    "base-building": _base_building,
    "base-repair": lambda d: (
        f"{side_name(d.get('side'))} began repairing the {_base(d)} at {d.get('hex')}"
    ),
    "base-built": _base_done("built"),
    "base-repaired": _base_done("repaired"),
    "sabotage": _sabotage,
    "defending": lambda d: f"{_who(d)} now defends its base",
    "not-defending": lambda d: f"{_who(d)} no longer defends its base",
    "entrench": _entrench,
    "disentrenched": lambda d: f"{_who(d)} left its entrenchment",
    "broken-down": lambda d: f"{_who(d)} broke down into {listed(d.get('into'))}",
    "combined": lambda d: (
        f"{side_name(d.get('side'))} {listed(d.get('units'))} combined into {d.get('into')}"
    ),
    "replacement-due": lambda d: f"A replacement for {_who(d)} is due on Game-Turn {d.get('turn')}",
    "withdrawn": lambda d: f"{_who(d)} was withdrawn from the game",
    "withdrawal-missed": lambda d: (
        f"{_who(d)} was not withdrawn: it is at {d.get('at')}, not at the U.S. West Coast"
    ),
    "withdrawn-damaged": lambda d: f"{_who(d)} was withdrawn for repair",
    "indian-ocean-raid": lambda d: (
        f"The Indian Ocean raid is complete: {listed(d.get('carriers'))} came back"
    ),
    "combat-deferred": lambda d: f"Step {d.get('step')}'s combat waits for its orders",
    "sub-moved": _sub_moved,
    "sub-station": lambda d: f"Submarine {d.get('sub')} went on station at {d.get('hex')}",
    "sub-station-lost": lambda d: (
        f"Submarine {d.get('sub')} must leave its station at {d.get('hex')}"
    ),
    "turn-end": lambda d: f"Game-Turn {d.get('turn')} ended",
    # War in the Pacific (its facts as events)
    "initiative": lambda d: (
        f"{d.get('time')}, {d['segment']}: {side_name(d.get('winner'))} won the initiative "
        f"(rolls {listed(['-'.join(map(str, r)) for r in d['rolls']])}) and chose to go "
        f"{d['choice']}: {d['first']} first"
    ),
    "turn-ended": lambda d: f"Game-Turn {d['turn']} ended",
    "cycle-ended": lambda d: f"Cycle {d['cycle']} ended with its Strategic Game-Turn",
}


# --- events told together --------------------------------------------------------------


def _by_side(run: Sequence[Data]) -> dict[str, list[Data]]:
    out: dict[str, list[Data]] = {}
    for d in run:
        out.setdefault(str(d.get("side") or ""), []).append(d)
    return out


def _returned_together(run: Sequence[Data]) -> list[str]:
    """SEQ.5L: every flight of a side that came back, one line a side: the points
    landing at one place added up by type ("8 NAC to CV-2; 6 LAC and 4 LBAC to 0212")."""
    lines = []
    for side, datas in _by_side(run).items():
        landed: dict[str, dict[str, int]] = {}
        for d in datas:
            kind = str(d.get("type") or "air points")
            for at, n in dict(d.get("landed") or {}).items():
                there = landed.setdefault(str(at), {})
                there[kind] = there.get(kind, 0) + int(n)
        where = [
            f"{listed([f'{n} {k}' for k, n in kinds.items()])} to {at}"
            for at, kinds in landed.items()
        ]
        lines.append(f"{side_name(side)} aircraft returned: {'; '.join(where) or 'none'}")
    return lines


def _plotted_together(run: Sequence[Data]) -> list[str]:
    return [
        f"{side_name(side)} plotted: {'; '.join(str(d.get('order')) for d in datas)}"
        for side, datas in _by_side(run).items()
    ]


# Kinds whose run of events reads better as one sentence a side.
TOGETHER: dict[str, Callable[[Sequence[Data]], list[str]]] = {
    "air-returned": _returned_together,
    "plot": _plotted_together,
}
