"""Events told as a wargamer reads them: sentences, and combats step by step.

Everything here reads only the events of a side's view (already cut to what
the side may know), so a sentence can never say more than its event.
Unknown kinds fall back to a plain "kind: datum; datum" line, so a new event
is never lost, only less well told.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.reports.sentences import (
    CRT1_RESULTS,
    SENTENCES,
    TOGETHER,
    Data,
    listed,
    losses,
    plain,
    points,
    side_name,
    value,
)


def sentence(event: Mapping[str, Any]) -> str:
    """One event as a sentence, with its rule (a combat: its title, then its steps)."""
    kind = str(event.get("kind", "event"))
    data = event.get("data") or {}
    tell = SENTENCES.get(kind)
    told = combat(event) if tell is None else None
    if told is not None:
        steps = " ".join(line.strip() for line in told["lines"])
        text = f"{told['title']}: {steps}".rstrip(".")
    else:
        try:
            text = tell(data) if tell else plain(kind, data)
        except (KeyError, TypeError, ValueError, AttributeError):
            text = plain(kind, data)
    return text + "." + (f" [{event['rule']}]" if event.get("rule") else "")


# Kinds told once for many: "Allied aircraft returned: ..." rather than five lines.
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
                m["data"]["unit"] = listed(units)
        run[:] = list(merged.values())


def _told_together(run: list[Mapping[str, Any]]) -> list[str]:
    """A run of one grouped kind: one sentence a side where the kind has one
    (TOGETHER), else one sentence an event, units alike told together."""
    kind, rule = str(run[0].get("kind")), run[0].get("rule")
    tell = TOGETHER.get(kind)
    if tell is not None and len(run) > 1:
        try:
            lines = tell([e.get("data") or {} for e in run])
        except (KeyError, TypeError, ValueError, AttributeError):
            lines = []
        if lines:
            return [line + "." + (f" [{rule}]" if rule else "") for line in lines]
    _together(run)
    return [sentence(e) for e in run]


def happened(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """Sentences in order; consecutive repeats of a grouped kind told together."""
    out: list[str] = []
    run: list[Mapping[str, Any]] = []
    for e in events:
        same = run and e.get("kind") == run[0].get("kind") and e.get("rule") == run[0].get("rule")
        if run and not same:
            out += _told_together(run)
            run = []
        if e.get("kind") in GROUPED:
            run.append(e)
        else:
            out.append(sentence(e))
    if run:
        out += _told_together(run)
    return out


# --- combats --------------------------------------------------------------------------


class Glossary:
    """CRT1 result codes in words: in full the first time a report shows each,
    after that by reference (one glossary per report)."""

    def __init__(self) -> None:
        self.told: set[str] = set()

    def crt1(self, code: str) -> str:
        meaning = CRT1_RESULTS.get(code)
        if meaning is None:
            return code
        if code in self.told:
            return f"{code} (as above)"
        self.told.add(code)
        return f"{code}: {meaning} [CRT1.{code.upper()}]"


@dataclass(frozen=True, slots=True)
class How:
    """What a combat's telling needs besides its data: the rule that resolved it,
    and the report's glossary."""

    rule: str
    glossary: Glossary


def _why(amount: Any, reasons: Any) -> str:
    """A strength and why it is not the printed one: "6 (CA-1 halved: damaged [CBT.H])"."""
    if isinstance(reasons, (list, tuple)) and reasons:
        return f"{amount} ({'; '.join(str(r) for r in reasons)})"
    return str(amount)


def fire_lines(f: Mapping[str, Any], table: str = "CRT4", what: str = "Fire") -> list[str]:
    """One attack on CRT3/CRT4 then CRT5: strengths (and why one was changed), odds,
    each die and what it decided."""
    who = f"{side_name(f['side'])} fire" if f.get("side") else what
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
        f"  Die {dice[0]} (CAP fire at the strike): strike: {losses(cap.get('strike_losses'))}.",
        f"  Die {dice[1] if len(dice) > 1 else '?'} (strike fire at the CAP): "
        f"CAP: {losses(cap.get('cap_losses'))}.",
    ]


def _flak(aa: Any) -> list[str]:
    if not isinstance(aa, Mapping):
        return ["No anti-aircraft fire (AA below 1)."]
    return [
        f"AA: strength {_why(aa.get('aa'), aa.get('aa_why'))} (CRT2). "
        f"Die {aa.get('die')} (AA fire): strike: {losses(aa.get('losses'))}."
    ]


BOMBED_FROM = {"AM.BOMBLAND": "the air", "NM.BOMBLAND": "the sea"}


def _cut_off(b: Data, rule: str) -> str:
    """NM.BOMBLAND / AM.BOMBLAND: only DX counts, and it cuts the unit off."""
    code, target = str(b.get("result")), b.get("target", "the unit")
    if b.get("cut_off") or code == "DX":
        return (
            f"DX: {target} is deprived of supply for one full Game-Turn "
            f"(the only result a bombardment of land units applies) [{rule}]"
        )
    return (
        f"{code}: no effect (bombing land units from {BOMBED_FROM.get(rule, 'the sea')} "
        f"applies only DX, which would deprive {target} of supply) [{rule}]"
    )


def _crt1_bombing(b: Data, rule: str, head: str = "Attack") -> list[str]:
    """A bombardment of a land unit on CRT1 (NM.BOMBLAND, AM.BOMBLAND)."""
    return [
        f"{head} {_why(b.get('attack'), b.get('attack_why'))} against defense "
        f"{_why(b.get('defense'), b.get('defense_why'))} (CRT1).",
        f"  Die {b.get('die')} (CRT1 result): {_cut_off(b, rule)}.",
    ]


def _attacks(attack: Any, table: str, bombing: Any) -> list[str]:
    """Air bombardment of ships and bases (CRT3; CD units CRT4), strafing (CRT2),
    bombing of land units (CRT1, from its bombardment record)."""
    if isinstance(attack, Mapping) and "odds" in attack:
        attack = [attack]
    if isinstance(attack, (list, tuple)):
        out: list[str] = []
        for f in attack:
            out += fire_lines(f, table, "Bombs") if isinstance(f, Mapping) else [str(f)]
        return out or ["No attack was made."]
    if not isinstance(attack, Mapping):
        return ["No target was found: no attack was made."]
    if isinstance(bombing, Mapping):
        return _crt1_bombing(bombing, "AM.BOMBLAND", f"Bombs at {bombing.get('target')}: attack")
    if "cut_off" in attack:
        state = "deprived of supply (DX)" if attack["cut_off"] else "not deprived of supply"
        return [f"Bombing (CRT1): the land unit is {state} [AM.BOMBLAND]."]
    if "grounded" in attack:
        return ["No aircraft on the ground to strafe."]
    if "die" in attack:
        return [f"Strafing: die {attack['die']} (CRT2): {points(attack.get('destroyed'))} "
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


def _air_strike(d: Data, _how: How) -> tuple[str, list[str]]:
    bombing = d.get("bombing")
    if "group" in d:
        target = f"ship group {d.get('group')} ({listed(d.get('ships'))})"
    elif isinstance(bombing, Mapping):
        target = f"the land unit {bombing.get('target')}"
    else:
        target = TARGETS.get(str(d.get("target")), str(d.get("target", "?")).lower())
    kind = f"{d['type']} " if d.get("type") else ""
    who = side_name(d.get("attacker") or d.get("side"))
    title = f"{who} {kind}air strike on {target} at {d.get('hex')}"
    lines = [f"Attacking: {listed(d.get('flights'))}."]
    table = "CRT4" if d.get("target") == "CD" else "CRT3"
    lines += _dogfight(d.get("cap"))
    if d.get("aa") is None and d.get("target") in ("LAND", "CD"):
        lines.append("No anti-aircraft fire: land and coastal defense units fire none.")
    else:
        lines += _flak(d.get("aa"))
    return title, lines + _attacks(d.get("attack"), table, bombing)


def _surface(d: Data, _how: How) -> tuple[str, list[str]]:
    engaged = d.get("engaged") or {}
    title = f"Surface engagement at {d.get('hex')}, {side_name(d.get('attacker'))} attacking"
    lines = [f"{side_name(s)} engaged: {listed(u)}." for s, u in dict(engaged).items()]
    for f in d.get("fire") or []:
        lines += fire_lines(f, "CRT4")
    lines.append("Both sides fire before losses are taken (NM.SURF.5).")
    return title, lines


def _land(d: Data, how: How) -> tuple[str, list[str]]:
    title = f"Land combat at {d.get('hex')}, {side_name(d.get('attacker'))} attacking"
    made_up = (
        " This CRT1 entry is reconstructed: the printed table is incomplete, and pbem"
        " completes it in the progression of the printed cells."
        if d.get("reconstructed")
        else ""
    )
    lines = [
        f"Attackers {listed(d.get('attackers'))}, strength "
        f"{_why(d.get('attack'), d.get('attack_why'))}; defenders "
        f"{listed(d.get('defenders'))}, strength {_why(d.get('defense'), d.get('defense_why'))}.",
        f"CRT1 column {d.get('column')}. Die {d.get('roll')} (CRT1 result): "
        f"{how.glossary.crt1(str(d.get('result')))}.{made_up}",
    ]
    return title, lines


def _bombardment(d: Data, how: How) -> tuple[str, list[str]]:
    rule = how.rule or "NM.BOMBLAND"
    what = "air bombing" if rule == "AM.BOMBLAND" else "naval bombardment"
    target = TARGETS.get(str(d.get("target")), str(d.get("target")))
    title = (
        f"{side_name(d.get('attacker'))} {what} of {target} at {d.get('hex')}"
        f" by {listed(d.get('by'))}"
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
    return title, _crt1_bombing(d, rule)


def _ground_support(d: Data, _how: How) -> tuple[str, list[str]]:
    role = "attack" if "attack" in d else "defense"
    title = (
        f"{side_name(d.get('attacker') or d.get('side'))} ground support ({role}) at {d.get('hex')}"
    )
    lines = [f"Flying: {listed(d.get('flights'))}.", *_dogfight(d.get("cap"))]
    lines.append(f"Bombardment strength added to the {role}: {d.get(role)}.")
    return title, lines


def _sub(d: Data, _how: How) -> tuple[str, list[str]]:
    return f"Submarine attack on {d.get('ship')}", fire_lines(
        d.get("fire") or {}, "CRT4", "Torpedoes"
    )


def _own_subs(d: Data, _how: How) -> tuple[str, list[str]]:
    """SUB.C / SUB.D: the Japanese side's record: which subs, the reductions."""
    cut = dict(d.get("reductions") or {})
    lines = [
        "Reductions for the escorts (SUB.D): "
        + (", ".join(f"{s} -{n}" for s, n in cut.items()) or "none")
        + "."
    ]
    title = f"Japanese submarine attack at {d.get('hex')} by {listed(d.get('subs'))}"
    return title, lines + fire_lines(d.get("fire") or {}, "CRT4", "Torpedoes")


def _roll_only(d: Data, _how: How) -> tuple[str, list[str]]:
    return "Indian Ocean raid losses", [f"Die {d.get('roll')}: {value(d.get('lost'))} NAC lost."]


def _zone(d: Data, _how: How) -> tuple[str, list[str]]:
    rolls, totals = dict(d.get("rolls") or {}), dict(d.get("totals") or {})
    lines = [f"{side_name(s)}: die {rolls.get(s)}, total {t}." for s, t in sorted(totals.items())]
    return f"Zone {d.get('zone')}, won by {d.get('winner') or 'nobody (a tie)'}", lines


COMBATS: dict[str, Callable[[Data, How], tuple[str, list[str]]]] = {
    "air-strike": _air_strike,
    "surface-engagement": _surface,
    "land-combat": _land,
    "bombardment": _bombardment,
    "ground-support": _ground_support,
    "submarine-attack": _sub,
    "sub-attack": _own_subs,
    "indian-ocean-losses": _roll_only,
    "zone-fought": _zone,  # the demo ruleset (DEMO.FIGHT)
}


def combat(event: Mapping[str, Any], glossary: Glossary | None = None) -> dict[str, Any] | None:
    """A combat as the rulebook resolves it, or None when the kind is not a combat."""
    tell = COMBATS.get(str(event.get("kind")))
    if tell is None:
        return None
    how = How(str(event.get("rule") or ""), glossary or Glossary())
    try:
        title, lines = tell(event.get("data") or {}, how)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        title, lines = str(event.get("kind")), [plain("", event.get("data") or {}).lstrip(": ")]
    return {"kind": event.get("kind"), "rule": event.get("rule"), "title": title, "lines": lines}


def _land_strike_at(e: Mapping[str, Any]) -> Any:
    """The hex of an air strike on land units, else None."""
    d = e.get("data") or {}
    if e.get("kind") == "air-strike" and d.get("target") == "LAND":
        return d.get("hex")
    return None


def _bombings(events: Sequence[Mapping[str, Any]]) -> dict[int, Mapping[str, Any]]:
    """AM.BOMBLAND: the CRT1 record of each air strike on land units, by the
    strike's place in ``events`` (the record comes just before its strike)."""
    out: dict[int, Mapping[str, Any]] = {}
    for i, e in enumerate(events):
        if e.get("kind") != "bombardment" or e.get("rule") != "AM.BOMBLAND":
            continue
        at = (e.get("data") or {}).get("hex")
        strike = next(
            (j for j in range(i + 1, len(events)) if _land_strike_at(events[j]) == at), None
        )
        if strike is not None and strike not in out:
            out[strike] = e
    return out


def combats(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The report's combats in order, each result code explained the first time; an
    air strike on land units told once, with its bombing on CRT1."""
    glossary = Glossary()
    bombings = _bombings(events)
    merged = {id(b) for b in bombings.values()}
    out = []
    for i, e in enumerate(events):
        if id(e) in merged:
            continue
        if i in bombings:
            data = {**(e.get("data") or {}), "bombing": bombings[i].get("data") or {}}
            e = {**e, "data": data}
        told = combat(e, glossary)
        if told is not None:
            out.append(told)
    return out
