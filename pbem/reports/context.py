"""From a side's view to a report's template context.

The view (``Ruleset.view``) is already cut to what the audience may know;
this module only arranges it for reading: events as sentences, combats as
tables of numbers, forces by hex, what is known of the enemy, the score, and
what is expected next. Nothing here looks at the game state itself, so a
report can never say more than its view.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from pbem.core.sequence import phase_label
from pbem.reports import narrate
from pbem.reports.sentences import listed


@dataclass(frozen=True, slots=True)
class Header:
    """What the lifecycle knows about the report, apart from the view."""

    game_id: str
    ruleset: str
    ruleset_title: str
    scenario: str
    audience: str  # a side, or "omniscient"
    side: str | None  # None: moderator, observer of both sides, or game over
    title: str
    phase: Mapping[str, Any] | None = None  # next phase: turn, name, title, sides, deadline...
    previous: Mapping[str, Any] | None = None  # the phase just adjudicated (seed, commitments)
    outcome: Mapping[str, Any] | None = None
    order_form: str = ""
    # What the game rests on: "rules" (ruleset version, data fingerprint, pbem release)
    # and "corrections" (the moderator's per-game data given at CREATE, by item).
    rests_on: Mapping[str, Any] | None = None


def view_text(value: Any, indent: int = 0) -> str:
    """A readable plain-text rendering of a JSON view (for rulesets without templates)."""
    pad = "  " * indent
    if isinstance(value, Mapping):
        lines = []
        for k, v in value.items():
            if isinstance(v, (Mapping, list, tuple)) and v:
                lines.append(f"{pad}{k}:")
                lines.append(view_text(v, indent + 1))
            else:
                lines.append(f"{pad}{k}: {v if v not in ({}, [], ()) else '-'}")
        return "\n".join(lines)
    if isinstance(value, (list, tuple)):
        return "\n".join(
            f"{pad}-\n{view_text(v, indent + 1)}"
            if isinstance(v, (Mapping, list, tuple))
            else f"{pad}- {v}"
            for v in value
        )
    return f"{pad}{value}"


def is_combat(event: Mapping[str, Any]) -> bool:
    return narrate.combat(event) is not None


def dice_check(game_id: str, prev: Mapping[str, Any]) -> dict[str, str]:
    """How a player recomputes the phase's dice from the revealed seed (pbem/core/dice.py):
    roll n is the first byte below 252 of HMAC-SHA256(seed, "pbem-dice-v1|game|turn|
    phase|n|attempt"), attempts 0, 1, ..., mod 6 plus 1."""
    seed, turn, phase = prev.get("seed"), prev.get("turn"), prev.get("phase")
    return {
        "commitment": (
            f"python3 -c \"import hashlib; print(hashlib.sha256(bytes.fromhex('{seed}'))"
            '.hexdigest())"'
        ),
        "rolls": (
            'python3 -c "import hmac, hashlib\n'
            f"s = bytes.fromhex('{seed}')\n"
            "for n in range(30):\n"
            " print(n, next(b % 6 + 1 for a in range(99) for b in hmac.new(s, "
            f"f'pbem-dice-v1|{game_id}|{turn}|{phase}|{{n}}|{{a}}'.encode(), "
            'hashlib.sha256).digest() if b < 252))"'
        ),
    }


def _previous(prev: Mapping[str, Any] | None, side: str | None) -> dict[str, Any] | None:
    """Commitments are public; a nonce only goes to its own side (with the nonce
    and the commitment, short order sets could be guessed by brute force)."""
    if prev is None:
        return None
    nonces = dict(prev.get("nonces", {}))
    if side is not None:
        nonces = {s: n for s, n in nonces.items() if s == side}
    return {**prev, "nonces": nonces}


FOG_MODES = {
    "open": "open (the rulebook's: only what its rules hide is hidden)",
    "double-blind": "double-blind (enemy units shown only where you see them)",
}


def _option(k: str, v: Any) -> str:
    if v is True:
        return k.replace("_", " ")
    return f"{k.replace('_', ' ')}={v}"


def rules_in_play(view: Mapping[str, Any]) -> dict[str, str] | None:
    """The fog mode and optional rules in force, for every report's heading."""
    options = view.get("options")
    fog = view.get("fog")
    if not isinstance(options, Mapping) and not isinstance(fog, Mapping):
        return None
    mode = str(fog.get("mode", "open")) if isinstance(fog, Mapping) else "open"
    extra = [
        _option(str(k), v)
        for k, v in dict(options or {}).items()
        if k not in ("fog", "double_blind") and v not in (False, None, "", "off", "no", "false")
    ]
    return {"fog": FOG_MODES.get(mode, mode), "optional": ", ".join(extra) or "none"}


def heading(h: Header) -> str:
    """Name both the phase reported on and the next one (the title names only the next)."""
    prev, nxt = h.previous, h.phase
    if prev is None:
        return h.title
    done = f"{phase_label(prev.get('turn'), prev.get('phase'))} adjudicated"
    if nxt is None:
        return f"{h.game_id}: {done}; game over" if h.outcome else f"{h.game_id}: {done}"
    return f"{h.game_id}: {done}; next {phase_label(nxt.get('turn'), nxt.get('name'))}"


def map_title(h: Header) -> str:
    """The picture's title: the position it shows, after the phase just adjudicated
    (the report's title names the next phase too, which the picture does not show)."""
    prev, nxt = h.previous, h.phase
    if prev is not None:
        done = f"{h.game_id}: the map after {phase_label(prev.get('turn'), prev.get('phase'))}"
        return done + ("; game over" if h.outcome else "")
    if nxt is not None:
        return f"{h.game_id}: the map before {phase_label(nxt.get('turn'), nxt.get('name'))}"
    return h.title


_STATES_VP = re.compile(r"victory points|\bVP\b", re.IGNORECASE)


def final_scores(outcome: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """One set of final totals: when the verdict already states the victory points
    (U.S.N.: exact, objectives included; War in the Pacific: "1 VP", "1/3 VP"), its
    scores, kept in the unit the ruleset counts in (WitP's sixths of a VP), are not
    printed again beside them."""
    if not outcome or _STATES_VP.search(str(outcome.get("summary", ""))):
        return None
    scores = outcome.get("scores")
    return scores if isinstance(scores, Mapping) else None


def base_context(h: Header, view: Mapping[str, Any]) -> dict[str, Any]:
    events = [e for e in view.get("events", ()) if isinstance(e, Mapping)]
    owes = bool(h.order_form)
    return {
        "title": heading(h),
        "rules_in_play": rules_in_play(view),
        "game": {
            "id": h.game_id,
            "ruleset": h.ruleset,
            "ruleset_title": h.ruleset_title,
            "scenario": h.scenario,
        },
        "audience": h.audience,
        "side": h.side,
        "previous": _previous(h.previous, h.side),
        "dice_check": dice_check(h.game_id, h.previous) if h.previous else None,
        "outcome": h.outcome,
        "final_scores": final_scores(h.outcome),
        "phase": h.phase,
        "owes": owes,
        "order_form": h.order_form,
        "rests_on": h.rests_on,
        "view": view,
        # Called by the templates that show it (a ruleset without its own body block):
        # a large view's text is not worth making for the others.
        "view_text": partial(view_text, view),
        "happened": narrate.happened([e for e in events if not is_combat(e)]),
        "combats": narrate.combats(events),
    }


# --- per ruleset -------------------------------------------------------------

Sections = Callable[[Mapping[str, Any], Header], dict[str, Any]]


def demo_sections(view: Mapping[str, Any], h: Header) -> dict[str, Any]:
    """Raid: squadrons, the zones fought, the score."""
    forces = view.get("your_forces", {})
    zones = []
    for e in view.get("events", ()):
        if e.get("kind") != "zone-fought":
            continue
        d = e["data"]
        sides = sorted(d["totals"])
        zones.append(
            {
                "zone": d["zone"],
                "sides": sides,
                "strength": {s: d["strength"][s][d["zone"]] for s in sides},
                "rolls": d["rolls"],
                "totals": d["totals"],
                "winner": d["winner"] or "nobody (a tie)",
            }
        )
    return {
        "squadrons": {
            s: sorted(sq.items()) for s, sq in sorted(forces.items()) if isinstance(sq, Mapping)
        },
        "zones": zones,
        "score": dict(view.get("score", {})),
        "standing": view.get("standing", {}),
        "turn": view.get("turn"),
    }


# SUP.G / SEQ.10: a ship whose Game-Turns at sea reach its endurance at the end of
# the turn is lost. The warning the turn before and the turn it happens, in the
# forces table's notes (short: one table line a ship) and, for the audience's own
# ships, once for each place above the table (``_fuel_warnings``).
FUEL_NOTES = {"refuel": "out of fuel next turn (SUP.G)", "lost": "out of fuel this turn (SUP.G)"}
FUEL_WARNINGS = {
    "refuel": "will be lost at the end of next Game-Turn unless refuelled (SUP.G)",
    "lost": "will be lost at the end of this Game-Turn unless refuelled (SUP.G)",
}


def _fuel_state(fuel: Any) -> str:
    """ "lost" this turn, "refuel" by next turn, or "" (SUP.G)."""
    if not isinstance(fuel, Mapping):
        return ""
    left = int(fuel.get("endurance", 0)) - int(fuel.get("turns_at_sea", 0))
    if left <= 1:
        return "lost"
    if left == 2:
        return "refuel"
    return ""


def _fuel_warnings(forces: Sequence[Mapping[str, Any]], sides: bool) -> list[str]:
    """One warning a place and fuel state, naming its ships ("CA-1 and CV-2 at 0862
    must refuel ..."); ``sides``: name each ship's side (both sides' forces)."""
    found: dict[tuple[str, str, str], list[str]] = {}
    for place in forces:
        for u in place["units"]:
            if u.get("fuel_state"):
                key = (str(u.get("side") or "") if sides else "", place["at"], u["fuel_state"])
                found.setdefault(key, []).append(str(u["id"]))
    return [
        f"{side.capitalize() + ' ' if side else ''}{listed(ships)} at {at} {FUEL_WARNINGS[state]}"
        for (side, at, state), ships in found.items()
    ]


def _damage(u: Mapping[str, Any]) -> str:
    """Own ships: weeks of damage. The enemy's weeks are hidden, only "damaged" shows."""
    if "damage" in u:
        return f"{u['damage']}w" if u.get("damage") else "-"
    return "yes" if u.get("damaged") else "-"


def _unit_line(u: Mapping[str, Any], own: bool) -> dict[str, Any]:
    """A row of a forces table; the fuel warning of an ``own`` ship is told above
    the table, an enemy ship's in its notes."""
    fuel = u.get("fuel")
    state = _fuel_state(fuel)
    note = "" if own else FUEL_NOTES.get(state, "")
    return {
        "id": u.get("id", "?"),
        "side": u.get("side"),
        "type": u.get("type", "?"),
        "at": u.get("at", "?"),
        "fuel": f"{fuel['turns_at_sea']}/{fuel['endurance']}" if isinstance(fuel, Mapping) else "",
        "fuel_state": state,
        "damage": _damage(u),
        "supplied": u.get("supplied"),
        "in_base": u.get("in_base"),
        "aboard": u.get("aboard"),
        "stack": "",
        "notes": ", ".join(
            n
            for n, on in (
                ("in base", u.get("in_base")),
                ("entrenched", u.get("entrenched")),
                (
                    "UNSUPPLIED: no attack or move, defense halved (SUP.E)",
                    u.get("supplied") is False,
                ),
                ("damaged: DEF, SA, AA halved (CBT.H)", u.get("damaged")),
                (note, note),
            )
            if on
        ),
    }


def _stack_order(lines: list[dict[str, Any]], raw: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """STK.G: ships at sea top first, numbered, with the air-attack group of each
    pair from the top (STK.G.AIR, the g of STRIKE ... SHIPS g); then ships in base,
    then everything else."""
    at_sea = [
        (r.get("stack", 0), ln["id"], ln)
        for ln, r in zip(lines, raw, strict=True)
        if "stack" in r and not r.get("in_base") and not ln.get("aboard")
    ]
    ordered = [ln for _s, _i, ln in sorted(at_sea, key=lambda t: (t[0], str(t[1])))]
    for n, ln in enumerate(ordered):
        ln["stack"] = f"{n + 1} g{n // 2 + 1}"
    rest = [ln for ln in lines if ln not in ordered]
    return ordered + sorted(rest, key=lambda ln: (not ln.get("in_base"), str(ln["id"])))


def _by_place(units: Sequence[Mapping[str, Any]], own: bool = True) -> list[dict[str, Any]]:
    """Units by hex, in stack order; cargo listed in its transport's hex (NM.TRANS:
    it moves with it)."""
    where = {(u.get("side"), u.get("id")): u.get("at") for u in units}
    places: dict[tuple[str, str], list[tuple[dict[str, Any], Mapping[str, Any]]]] = {}
    for u in units:
        line = _unit_line(u, own)
        carrier = str(u.get("aboard") or "")
        if carrier or str(line["at"]).startswith("aboard "):
            carrier = carrier or str(line["at"])[len("aboard ") :]
            line["at"] = where.get((u.get("side"), carrier), line["at"])
            line["aboard"] = carrier
            line["notes"] = ", ".join(x for x in (f"aboard {carrier}", line["notes"]) if x)
        places.setdefault((str(line["at"]), str(u.get("side"))), []).append((line, u))
    out: list[dict[str, Any]] = []
    for (at, _side), pairs in sorted(places.items()):
        lines = _stack_order([p[0] for p in pairs], [p[1] for p in pairs])
        if out and out[-1]["at"] == at:
            out[-1]["units"] += lines
        else:
            out.append({"at": at, "units": lines})
    return out


def _subs(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """GEN.REC.C: the submarines, secret to the Allies, as lines of their own side's forces."""
    return [
        {
            "id": sub.get("id"), "side": "japanese", "type": "SUB", "at": sub.get("at"),
            "fuel": "", "fuel_state": "", "damage": "-", "stack": "",
            "notes": (
                f"on station ({sub.get('phases_on_station', 0)} phases)"
                if sub.get("on_station") else "not on station"
            ) + ", secret (GEN.REC.C)",
        }
        for sub in view.get("subs", ())
        if isinstance(sub, Mapping)
    ]  # fmt: skip


def _bases(view: Mapping[str, Any], forces: list[dict[str, Any]]) -> dict[str, Any]:
    """A mini-game's theatre only (and any base where the side has units); the rest of
    the Pacific is counted, not listed."""
    where = {p["at"] for p in forces} | {
        u.get("at") for u in view.get("enemy_units", ()) if isinstance(u, Mapping)
    }
    bases = [b for b in view.get("bases", ()) if isinstance(b, Mapping)]
    shown = [b for b in bases if b.get("theatre", True) or b.get("hex") in where]
    return {"bases": shown, "bases_elsewhere": len(bases) - len(shown)}


def usn_sections(view: Mapping[str, Any], h: Header) -> dict[str, Any]:
    """U.S.N.: own forces by hex (fuel, damage, supply), the enemy as known, VP."""
    own = view.get("own_units") or view.get("units") or []
    side = h.side
    air = view.get("air", {})
    own_air = [
        {"side": s, "at": loc, **pts}
        for s, locs in sorted(air.items())
        if side is None or s == side
        for loc, pts in sorted(locs.items())
    ]
    enemy_air = [
        {"side": s, "at": loc, **pts}
        for s, locs in sorted(air.items())
        if side is not None and s != side
        for loc, pts in sorted(locs.items())
    ]
    fog = view.get("fog", {})
    forces = _by_place(own)
    for sub in _subs(view):
        place = next((p for p in forces if p["at"] == sub["at"]), None)
        if place is None:
            forces.append({"at": sub["at"], "units": [sub]})
            forces.sort(key=lambda p: str(p["at"]))
        else:
            place["units"].append(sub)
    return {
        "forces": forces,
        "fuel_warnings": _fuel_warnings(forces, sides=side is None),
        "sub_log": list(view.get("sub_log", ())),
        "own_air": own_air,
        "enemy": _by_place(view.get("enemy_units", []), own=False),
        "enemy_air": enemy_air,
        "last_known": list(fog.get("last_known", [])),
        "mode": fog.get("mode", "open"),
        **_bases(view, forces),
        "vp": {k: f"{float(v):g}" for k, v in view.get("vp", {}).items()},
        "standing": view.get("standing", []),
        "turn": view.get("turn"),
        "round": view.get("round"),
    }


# WitP's search report sections (pbem/rulesets/witp/searchview.py), in report order.
WITP_SEARCH_SECTIONS = (
    "searches",
    "contacts",
    "latest",
    "located",
    "found",
    "own_located",
    "revealed",
    "standing",
)


def witp_sections(view: Mapping[str, Any], h: Header) -> dict[str, Any]:
    """War in the Pacific: the game clock, the open initiative rolls, the forces the
    view holds, the search sections, the round's naval strikes (each a block of
    notes and tables, pbem/rulesets/witp/strikeview.py), what was told to this side
    alone, and the illustrative values the report rests on."""
    initiative = [
        {
            "time": i.get("time"),
            "segment": i.get("segment"),
            "rolls": ", ".join(f"{j}-{a}" for j, a in i.get("rolls", ())),
            "winner": i.get("winner"),
            "choice": i.get("choice"),
            "first": i.get("first"),
        }
        for i in view.get("initiative", ())
        if isinstance(i, Mapping)
    ]
    search = view.get("search", {})
    search = search if isinstance(search, Mapping) else {}
    forces = [
        {
            **f,
            "ships": ", ".join(f"{s['type']} {s['name']}" for s in f.get("ships", ())) or "dummy",
            "moves": list(f.get("moves", ())),
        }
        for f in view.get("forces", ())
        if isinstance(f, Mapping)
    ]
    return {
        "clock": dict(view.get("clock", {})),
        "initiative": initiative,
        "forces": forces,
        "told_you": list(view.get("told_you", ())),
        "illustrative": list(view.get("illustrative", ())),
        "packs": ", ".join(view.get("packs", ())),
        "search": {key: list(search.get(key, ())) for key in WITP_SEARCH_SECTIONS},
        "strikes": [
            {**b, "tables": [t for t in b.get("tables", ()) if isinstance(t, Mapping)]}
            for b in view.get("strikes", ())
            if isinstance(b, Mapping)
        ],
    }


SECTIONS: dict[str, Sections] = {"demo": demo_sections, "usn": usn_sections, "witp": witp_sections}


def report_context(h: Header, view: Mapping[str, Any]) -> dict[str, Any]:
    ctx = base_context(h, view)
    sections = SECTIONS.get(h.ruleset)
    ctx["s"] = sections(view, h) if sections else {}
    return ctx
