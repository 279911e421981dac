"""Every fact the War in the Pacific rules tell a side, as one English sentence.

One template a fact kind (``SENTENCES``), kept here and nowhere else: the report's
digest, its events and its strike blocks all tell a fact through ``sentence``. A
template reads only the fact's JSON as the side was told it (and who reads it, to
say "your TF3" rather than "allied TF3"), so it can say no more than the fact. The
numbers stay in (the dice, what they had to beat) with what they meant, so the
sentence reads without the rulebook at hand; the rule follows in brackets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

Data = Mapping[str, Any]
Template = Callable[[Data, str | None], str]

SIDE_NAMES = {"japanese": "Japanese", "allied": "Allied"}
LEVELS = {"L": "low", "M": "medium", "H": "high"}


# -- small words -----------------------------------------------------------------


def side(s: Any) -> str:
    return SIDE_NAMES.get(str(s), str(s).capitalize() if s else "a side's")


def tf(owner: Any, name: Any, you: str | None) -> str:
    """ "your TF3" or "the Japanese TF1" (a TF's marker is only unique with its side)."""
    if owner is not None and str(owner) == you:
        return f"your {name}"
    return f"the {side(owner)} {name}" if owner else str(name)


def aps(types: Any) -> str:
    """{"B5N2": 2, "A6M2": 1} -> "1 A6M2 and 2 B5N2"; none -> "none"."""
    if not isinstance(types, Mapping):
        return "none"
    return listed(f"{n} {t}" for t, n in sorted(types.items()) if n) or "none"


def listed(items: Iterable[Any]) -> str:
    out = [str(x) for x in items]
    if len(out) <= 1:
        return "".join(out)
    return ", ".join(out[:-1]) + " and " + out[-1]


def drm(n: Any) -> str:
    """A roll's modifier: " +1", or nothing."""
    return f" {int(n):+d}" if n else ""


def plural(n: Any, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def level(lv: Any) -> str:
    return f"{LEVELS.get(str(lv), str(lv))} level"


def launch(d: Data) -> str:
    """8.1.4: the first 2D10 check and, if it failed, the 2D6 that cut the launch."""
    if d.get("second") is None:
        return f"2D10 {d.get('first')}, any roll up to {d.get('needed')} passes"
    star = " (not to be cancelled)" if d.get("asterisk") else ""
    return (
        f"2D10 {d.get('first')}, over the {d.get('needed')} it needed; 2D6 "
        f"{d.get('second')} lets {d.get('percent')}% fly{star} ({d.get('cut')} cut)"
    )


def fight(d: Data) -> str:
    """6.1.1-6.3: one level's air combat: who fought, the bounce, each attack."""
    stacks = []
    for role, key in (("CAP", "cap"), ("escorts", "escorts"), ("bombers", "bombers")):
        got = [
            f"{s.get('n')} {s.get('type')}"
            + (" (green)" if s.get("green") else "")
            + (" (elite)" if s.get("elite") else "")
            for s in d.get(key) or ()
        ]
        if got:
            stacks.append(f"{role} {listed(got)}")
    b = d.get("bounce")
    how = f"routine {d.get('routine')}"
    if isinstance(b, Mapping):
        if b.get("green"):
            how += ", the CAP bounces (green fighters in the strike, 58.2.1)"
        elif b.get("avg"):
            how += f", the {b.get('to')} bounces (the AVG, 6.2.3)"
        else:
            how += f", bounce 1D6 {b.get('roll')}{drm(b.get('drm'))}: {b.get('to')} first"
    steps = [
        f"{x.get('attacker')} fire {x.get('strength')} ({x.get('aps')} AP) "
        f"2D6 {x.get('roll')}{drm(x.get('drm'))}: "
        + (
            listed(
                [f"{aps(x.get('eliminated'))} shot down"] * bool(x.get("eliminated"))
                + [f"{aps(x.get('aborted'))} turned back"] * bool(x.get("aborted"))
            )
            or "no effect"
        )
        for x in d.get("steps") or ()
    ]
    return f"{'; '.join(stacks) or 'no one'} ({how})" + (": " + "; ".join(steps) if steps else "")


def cards(cs: Any) -> str:
    return "; ".join(
        f"{c.get('tf')} {c.get('speed', '')} {', '.join(c.get('composition') or ())}: "
        f"{' / '.join(c.get('lines') or ()) or 'no orders'}".replace("  ", " ")
        for c in cs or ()
    )


# -- the templates, by kind --------------------------------------------------------


def _initiative(d: Data, you: str | None) -> str:
    rolls = ", then ".join(f"{j}-{a}" for j, a in d.get("rolls") or ())
    return (
        f"Initiative for the {d.get('segment')}: the dice (Japanese-Allied) were {rolls}; "
        f"the {side(d.get('winner'))} won and chose to go {d.get('choice')}, "
        f"so the {side(d.get('first'))} go first"
    )


def _air_search(d: Data, you: str | None) -> str:
    who = "You" if d.get("searcher") == you else f"The {side(d.get('searcher'))}"
    kind = "an intensive search" if d.get("intensive") else "a search"
    target = f" for {tf(d.get('owner'), d.get('tf'), you)}" if d.get("tf") else ""
    need = d.get("needed")
    verdict = "contact" if d.get("contact") else "no contact"
    odds = f", {need} or more finds it" if need is not None else ", no roll can find it"
    return (
        f"{who} flew {kind} from {d.get('from')} into {d.get('hex')}{target} "
        f"({d.get('band')} band, value {d.get('value')}): 2D10 {d.get('roll')}{odds}: {verdict}"
    )


def _search_empty(d: Data, you: str | None) -> str:
    who = "You" if d.get("searcher") == you else f"The {side(d.get('searcher'))}"
    return (
        f"{who} searched {d.get('hex')} from {d.get('from')} ({d.get('band')} band, "
        f"value {d.get('value')}): no enemy TF there"
    )


def _located(d: Data, you: str | None) -> str:
    return (
        f"{tf(d.get('owner'), d.get('tf'), you)} is Located at {d.get('hex')} "
        f"({d.get('label')}, by {d.get('source')})"
    )


def _search_report(d: Data, you: str | None) -> str:
    return (
        f"Report on {tf(d.get('owner'), d.get('tf'), you)} (by {d.get('source')}): "
        f"{d.get('report')}"
    )


def _tf_executed(d: Data, you: str | None) -> str:
    hexes = list(d.get("hexes") or ())
    if not hexes:
        moved = f"stayed at {d.get('from')}"
    else:
        moved = f"moved {d.get('from')} to {d.get('to')} via {' '.join(hexes)} ({d.get('mp')} MP)"
    night = f", at night through {' '.join(d['night_hexes'])}" if d.get("night_hexes") else ""
    link = f", linked to {d.get('linked_to')}" if d.get("linked_to") else ""
    notes = d.get("missions") or ()
    extra = "; " + "; ".join(_mission(m) for m in notes)
    return f"{d.get('tf')} carried out its card: {moved}{night}{link}" + (extra if notes else "")


def _mission(m: Any) -> str:
    """A mission along the card (17.8-17.11, 18.4.1): what it did, or why it failed."""
    if not isinstance(m, Mapping):
        return str(m)
    said = [str(m.get("mission", "mission"))]
    for key, word in (("from", "from"), ("to", "to"), ("dummy", "dummy"), ("at", "at")):
        if m.get(key):
            said.append(f"{word} {m[key]}")
    if m.get("ships"):
        said.append(listed(m["ships"]))
    said.append(f"failed: {m['failed']}" if m.get("failed") else "done")
    rule = f" ({m['rule']})" if m.get("rule") else ""
    return " ".join(said) + rule


def _strike_launched(d: Data, you: str | None) -> str:
    who = "Your" if d.get("side") == you else side(d.get("side"))
    where = "carrier launch hex" if d.get("carrier") else "air base"
    return f"{who} strike launched from {d.get('from')} ({where})"


def _carrier_coordination(d: Data, you: str | None) -> str:
    if d.get("cap"):
        return (
            f"Carrier coordination for the CAP over {d.get('tf')} (air rating "
            f"{d.get('air_rating')}): {launch(d)}; {plural(d.get('fighters'), 'fighter')} fly CAP"
        )
    return (
        f"Carrier coordination, {d.get('tf')} (air rating {d.get('air_rating')}): "
        f"{plural(d.get('bombers'), 'bomber')} and "
        f"{plural(d.get('fighters'), 'fighter') if d.get('fighters') else 'no fighters'} "
        f"launch; {launch(d)}"
    )


def _air_surface_attack(d: Data, you: str | None) -> str:
    torp = d.get("anti_torpedo")
    t = ""
    if isinstance(torp, Mapping):
        dice = torp.get("dice") or ("?", "?")
        t = f", torpedo 2D6 {dice[0]}-{dice[1]} v rating {torp.get('rating')}: {torp.get('torpedo')}"
    mods = [
        m for m, on in (("combined wave", d.get("combined")), ("no CAP", d.get("no_cap"))) if on
    ]
    adm = d.get("admiral") or {}
    if adm.get("column"):
        mods.append(f"admiral {adm['column']} column(s)")
    if adm.get("drm"):
        mods.append(f"admiral DRM {int(adm['drm']):+d}")
    if d.get("surprise"):
        mods.append(f"surprise -{d['surprise']}")
    result = (
        "sunk"
        if d.get("sunk")
        else "no damage"
        if d.get("result") in ("-", None)
        else f"{d.get('result')}, damage now D{d.get('damage')}"
    )
    why = f"; {', '.join(mods)}" if mods else ""
    return (
        f"Wave {d.get('wave')} on {d.get('type')} {d.get('ship')} (SC{d.get('speed_class')}{why}): "
        f"anti-ship {d.get('anti_ship')} {LEVELS.get(str(d.get('altitude')), d.get('altitude'))}"
        f"{drm(d.get('drm'))}{t}; damage die {d.get('roll')}: {d.get('damage_points')} points "
        f"v defence {d.get('defence')}, {d.get('odds')}, CRT die {d.get('crt_roll')}: {result}"
    )


def _placement(d: Data, you: str | None) -> str:
    rings: dict[str, list[str]] = {}
    for s in d.get("ships") or ():
        rings.setdefault(str(s.get("ring")), []).append(
            f"{s.get('type')}" + (" (D2+)" if s.get("at_least_d2") else "")
        )
    return f"{d.get('tf')} placed face down: " + "; ".join(
        f"{r} {', '.join(t)}" for r, t in rings.items()
    )


def _ring_speeds(d: Data, you: str | None) -> str:
    ships = ", ".join(
        f"{s.get('type') or '?'} SC{s.get('speed_class')}" for s in d.get("ships") or ()
    )
    return f"Wave {d.get('wave')}'s target ring: {ships}"


def _wave_entry(d: Data, you: str | None) -> str:
    arc = f"arc {d.get('entry_arc')}" + (
        f" (elite choice, 1D6 {d['rolled']})" if d.get("rolled") is not None else ""
    )
    group = listed(
        f"{a.get('n')} {a.get('type')} ({a.get('role')}/{a.get('mode')})"
        for a in d.get("aps") or ()
    )
    return f"Wave {d.get('wave')} enters at {arc} against the {d.get('target_ring')} ring: {group}"


def _aa_fire(d: Data, you: str | None) -> str:
    why = f" ({'; '.join(d['why'])})" if d.get("why") else ""
    shifts = ""
    if d.get("columns") or d.get("drm"):
        shifts = f", column shift {int(d.get('columns') or 0):+d}, DRM {int(d.get('drm') or 0):+d}"
    hit = listed(
        [f"{aps(d.get('eliminated'))} shot down"] * bool(d.get("eliminated"))
        + [f"{aps(d.get('aborted'))} turned back"] * bool(d.get("aborted"))
    )
    return (
        f"AA against wave {d.get('wave')}'s {d.get('component')}: strength {d.get('aa')}"
        f"{shifts}{why}, 2D6 {d.get('roll')}: {hit or 'no effect'}"
    )


def _critical_rolls(d: Data, you: str | None) -> str:
    rolls = ", ".join(
        f"{r['dice'][0]}-{r['dice'][1]}" + (" critical" if r.get("critical") else "")
        for r in d.get("rolls") or ()
    )
    return f"Critical-hit dice for {d.get('ship')}: {rolls}; damage now D{d.get('damage')}"


def _admiral(d: Data, you: str | None) -> str:
    cl = (
        f"; command level {d.get('command_level')}, DRM {int(d.get('command_drm') or 0):+d}"
        if d.get("command_level") is not None
        else ""
    )
    return (
        f"{d.get('admiral')} of {d.get('tf')} rated (die {d.get('roll')}): air {d.get('air')}, "
        f"bounce {int(d.get('bounce') or 0):+d}, column {int(d.get('column') or 0):+d}, "
        f"DRM {int(d.get('drm') or 0):+d}{cl}"
    )


def _cover_availability(d: Data, you: str | None) -> str:
    over = f"over {d.get('tf')}" if d.get("tf") else f"over {d.get('over')}"
    return (
        f"Cover {d.get('cover')} ({d.get('type')}, {d.get('mission')}, {d.get('mp')} MP) {over}: "
        f"APAT 2D6 {d.get('roll')}{drm(d.get('drm'))} = {d.get('percent')}%, "
        f"{d.get('available')} of {d.get('of')} AP arrive"
    )


def _interception(d: Data, you: str | None) -> str:
    stage = (
        "the base's CAP against the cover"
        if d.get("stage") == "base CAP"
        else "the cover against the launch"
    )
    return f"Over {d.get('base')} ({d.get('hex')}), {stage} at {level(d.get('level'))}: {fight(d)}"


def _night_contact(d: Data, you: str | None) -> str:
    rolls = "; ".join(
        f"{r.get('type')} from {r.get('base')} 1D6 {r.get('roll')}{drm(r.get('drm'))}: {r.get('result')}"
        for r in d.get("rolls") or ()
    )
    return f"Night contact on {d.get('tf')}: {rolls or 'no rolls'}; lost {aps(d.get('destroyed'))}"


def _suppression(d: Data, you: str | None) -> str:
    return (
        f"Wave {d.get('wave')}'s AA suppression in the {d.get('ring')} ring: "
        f"{d.get('adjusted')} strength from {d.get('aps')} AP, 2D6 {d.get('roll')}: "
        f"low AA -{d.get('low')}, high AA -{d.get('high')}"
    )


def _wave_coordination(d: Data, you: str | None) -> str:
    roll = f", 1D6 {d['roll']}" if d.get("roll") is not None else ""
    joined = "joins the primary wave" if d.get("combined") else "flies its own wave"
    return (
        f"The APs from {d.get('from')} ({d.get('between')} hexes from the primary {d.get('primary')}, "
        f"which is {d.get('distance')} from the target{roll}) {joined}"
    )


def _torpedo(d: Data, you: str | None) -> str:
    elite = ", an elite majority" if d.get("elite_majority") else ""
    return (
        f"Torpedo arming at {d.get('base')}: {d.get('present')} torpedo-capable AP{elite}, "
        f"1D10 {d.get('roll')}{drm(d.get('drm'))}: {d.get('may_arm')} may arm; "
        f"{d.get('armed')} of {d.get('plotted')} plotted carry torpedoes, the rest bombs"
    )


def _magic_drawn(d: Data, you: str | None) -> str:
    extra = "; ".join(f"{c} drew {n} more" for c, n in d.get("draw_chits") or ())
    return f"Magic chits drawn: {', '.join(d.get('chits') or ()) or 'none'}" + (
        f" ({extra})" if extra else ""
    )


def _vs_search_hit(d: Data, you: str | None) -> str:
    return (
        f"A US carrier search hit {tf(d.get('owner'), d.get('tf'), you)}: 2D10 {d.get('roll')}, "
        f"a strike is owed at anti-ship {d.get('anti_ship')}"
    )


def _dummy_allotment(d: Data, you: str | None) -> str:
    rolls = "-".join(str(r) for r in d.get("rolls") or ())
    return f"Cycle {d.get('cycle')}: 2D6 {rolls} allows {plural(d.get('allowed'), 'dummy sortie')}"


SENTENCES: Mapping[str, Template] = {
    # -- clock and initiative (3.0-3.2, 50.0)
    "initiative": _initiative,
    "turn-ended": lambda d, y: f"Game-Turn {d.get('turn')} is over",
    "cycle-ended": lambda d, y: f"Cycle {d.get('cycle')} is over (its Strategic Game-Turn played)",
    # -- task forces: movement, fuel (16.0-18.4)
    "tf-executed": _tf_executed,
    "tf-deactivated": lambda d, y: f"{d.get('tf')} is deactivated in port at {d.get('port')}",
    "tf-unsupplied": lambda d, y: f"{d.get('tf')} is at sea past its fuelling period: unsupplied",
    "tf-sunk": lambda d, y: f"{d.get('tf')} has no ship afloat and leaves the map",
    # -- search, contacts, the Located chits (13.0-13.8)
    "air-search": _air_search,
    "air-search-empty": _search_empty,
    "no-search-took-place": lambda d, y: (
        f"The {side(d.get('searcher'))} say no search took place at {d.get('hex')} (a bluff)"
    ),
    "search-not-flown": lambda d, y: f"Standing order '{d.get('line')}' not flown: {d.get('why')}",
    "search-chit": lambda d, y: (
        f"The enemy found your {d.get('tf')}: you drew search chit {d.get('chit')} "
        f"from {d.get('cup')}"
    ),
    "search-report": _search_report,
    "deception-refused": lambda d, y: (
        f"Your false report on {d.get('tf')} was refused: {d.get('why')}"
    ),
    "intensive-search-loss": lambda d, y: (
        f"Intensive search from {d.get('base')}: 1D6 {d.get('roll')}, "
        f"{plural(d.get('air_points_lost'), 'AP')} lost"
    ),
    "vs-search-hit": _vs_search_hit,
    "located": _located,
    "located-moved": lambda d, y: (
        f"The Located chit on {tf(d.get('owner'), d.get('tf'), y)} moves with it to {d.get('hex')}"
    ),
    "located-removed": lambda d, y: (
        f"{tf(d.get('owner'), d.get('tf'), y)} is no longer Located ({d.get('why')})"
    ),
    "located-renewed": lambda d, y: (
        f"{tf(d.get('owner'), d.get('tf'), y)} did not move and stays Located ({d.get('label')})"
    ),
    "coastwatcher-island": lambda d, y: (
        f"The coastwatcher on {d.get('island')} reported {d.get('tf')}"
    ),
    "dummy-allotment": _dummy_allotment,
    "dummy-revealed": lambda d, y: (
        f"{tf(d.get('owner'), d.get('tf'), y)} was a dummy (revealed by {d.get('by')})"
    ),
    # -- strikes: launch, sequencing, contact (5.0-5.15, 7.1-7.3, 9.3, 12.0-12.3)
    "strike-launched": _strike_launched,
    "carrier-coordination": _carrier_coordination,
    "joint-availability": lambda d, y: (
        f"Joint strike from {d.get('base')}: {d.get('type')} 1D10 {d.get('roll')} = "
        f"{d.get('percent')}%, {d.get('available')} of {d.get('of')} AP fly"
    ),
    "torpedo-arming": _torpedo,
    "carrier-strike-order": lambda d, y: (
        f"Your carrier strikes fly in this order: {', '.join(d.get('strikes') or ())}"
    ),
    "reciprocal-strikes": lambda d, y: (
        f"Reciprocal strikes: dice {', '.join(f'{j}-{a}' for j, a in d.get('rolls') or ())}, "
        f"the {side(d.get('winner'))} won and strike {d.get('choice')} the enemy"
    ),
    "plotted-strike-revealed": lambda d, y: (
        f"The carriers of {d.get('tf')} have a strike plotted this phase"
    ),
    "strike-sequence": lambda d, y: (
        f"Strike sequence against {d.get('tf')}: 1D6 {d.get('roll')}{drm(d.get('drm'))}, "
        f"the strike flies {d.get('result')}"
    ),
    "special-strike": lambda d, y: (
        f"Standing strike {d.get('strike')} launched at {d.get('tf')} moving through {d.get('hex')}"
    ),
    "strike-not-flown": lambda d, y: f"Strike {d.get('strike')} did not fly: {d.get('why')}",
    "strike-found-nothing": lambda d, y: (
        f"Strike {d.get('strike')} reached {d.get('hex')} and found {d.get('tf')} gone"
    ),
    "target-priority": lambda d, y: f"Target priority against {d.get('tf')}: {d.get('priority')}",
    "strike-altitudes": lambda d, y: (
        "The strike flies at "
        + (
            listed(f"{level(lv)} {how}" for lv, how in (d.get("levels") or {}).items())
            or "no level"
        )
    ),
    "launch-intercepted": lambda d, y: f"The strike from {d.get('base')} was stopped at launch",
    "launch-interception": _interception,
    "extreme-range-losses": lambda d, y: (
        f"Extreme range: {d.get('type')} 2D6 {d.get('roll')} on column {d.get('column')} = "
        f"{d.get('percent')}%, {d.get('lost')} of {d.get('returning')} returning AP lost"
    ),
    "extended-range-losses": lambda d, y: (
        f"Extended range: {d.get('type')} 1D10 {d.get('roll')} against rating "
        f"{d.get('rating')}: {d.get('extra')} more AP lost"
    ),
    # -- cover and CAP (5.3, 6.0-6.3, 8.1, R135)
    "cover-availability": _cover_availability,
    "cover-coordination": lambda d, y: (
        f"Cover {d.get('cover')} from {d.get('tf')} (air rating {d.get('air_rating')}): "
        f"{launch(d)}; {plural(d.get('fighters'), 'fighter')} launch"
    ),
    "cover-not-flown": lambda d, y: f"Cover {d.get('cover')} did not fly: {d.get('why')}",
    "army-naval-cover-roll": lambda d, y: (
        f"Army-type fighters on Naval Cover this Air Phase: 2D6 {d.get('roll')}"
    ),
    "cap-allotted": lambda d, y: (
        f"Your CAP over {d.get('tf')} ({d.get('order')}): "
        + (
            "; ".join(f"{level(lv)} {aps(by)}" for lv, by in (d.get("levels") or {}).items())
            or "none"
        )
    ),
    "avg-strike-composition": lambda d, y: (
        "Before the AVG fights: "
        + "; ".join(
            f"{level(lv)} bombers {aps(c.get('bombers'))}, escorts {aps(c.get('escorts'))}"
            for lv, c in (d.get("levels") or {}).items()
        )
    ),
    "admiral-ratings": _admiral,
    "air-combat": lambda d, y: (
        f"Air combat at {level(d.get('level'))} over {d.get('tf')}: {fight(d)}"
    ),
    # -- the attack on the ships (7.2-7.11, 10.1, 16.7, 38.3)
    "air-surface-placement": _placement,
    "ships-in-port": lambda d, y: (
        f"{d.get('tf')} lies in port at {d.get('port')}: the port's AA {d.get('port_aa')} "
        "fires too, torpedoes at half strength"
    ),
    "in-port-surprise": lambda d, y: (
        f"Wave {d.get('wave')} in-port surprise: 1D6 {d.get('roll')}{drm(d.get('drm'))}, "
        f"speed classes -{d.get('reduction')}"
    ),
    "night-contact": _night_contact,
    "wave-coordination": _wave_coordination,
    "wave-entry": _wave_entry,
    "aa-suppressors": lambda d, y: (
        f"AA suppression asked of {d.get('asked')} loose escort(s): {d.get('escorts')} "
        f"against {d.get('cap')} CAP, {aps(d.get('peeled'))} peel off"
    ),
    "aa-suppression": _suppression,
    "aa-fire": _aa_fire,
    "target-ring-speeds": _ring_speeds,
    "ship-targeted": lambda d, y: (
        f"Wave {d.get('wave')} targets the {d.get('ring')} ring's {d.get('type')}: {d.get('ship')}"
    ),
    "air-surface-attack": _air_surface_attack,
    "critical-hit-rolls": _critical_rolls,
    "critical-hit": lambda d, y: (
        f"Critical hit on {d.get('ship')} (doubles {'-'.join(str(x) for x in d.get('dice') or ())})"
    ),
    # -- intelligence (42.0-42.9)
    "si-capabilities": lambda d, y: (
        f"Cycle {d.get('cycle')} intelligence (SI difference {d.get('si_difference')}): "
        f"{d.get('sigint')} Sigint use(s), {d.get('ruses')} ruse(s), "
        f"{d.get('magic_draws')} Magic draw(s)"
    ),
    "sigint": lambda d, y: (
        f"Sigint: your secret 1D6 was {d.get('pips')}, showing {len(d.get('cards') or ())} "
        f"of {d.get('of')} Japanese cards: {cards(d.get('cards')) or 'none'}"
    ),
    "sigint-event": lambda d, y: (
        "A Sigint event occurred (the Allies read some of your cards, or played a ruse)"
    ),
    "sigint-ruse": lambda d, y: "Your Sigint ruse was played (the Japanese see a Sigint event)",
    "magic-drawn": _magic_drawn,
    "magic-played": lambda d, y: f"Magic chit played: {d.get('chit')}",
    "strike-sequence-chit": lambda d, y: (
        f"Magic: {d.get('chit')} gives the strike sequence roll against {d.get('tf')} "
        f"a DRM of {int(d.get('drm') or 0):+d}"
    ),
    "planes-on-deck": lambda d, y: (
        f"Planes on Deck: wave {d.get('wave')} attacks {d.get('ship')} of {d.get('tf')}, "
        f"2D6 {'-'.join(str(x) for x in d.get('dice') or ())}, "
        f"{plural(d.get('shift'), 'column')} right on the Naval CRT"
    ),
    "magic-not-played": lambda d, y: (
        f"Magic chit(s) {', '.join(d.get('chits') or ())} not played: {d.get('why')}"
    ),
    "magic-reveal-named": lambda d, y: (
        f"Magic: the Allies named {', '.join(d.get('tfs') or ()) or 'no TF'}; those cards are shown"
    ),
    "magic-reveal-tf": lambda d, y: (
        f"Magic reveals these Japanese cards: {cards(d.get('cards')) or 'none'}"
    ),
    "magic-card-backs": lambda d, y: (
        f"Magic shows the numbered backs of every Japanese card: {', '.join(d.get('tfs') or ())}"
    ),
    "jn25-counters": lambda d, y: (
        f"The Japanese hold {plural(d.get('held'), 'JN-25 code change counter')}"
    ),
    "jn25-committed": lambda d, y: (
        f"A JN-25 counter is committed to the end of cycle {d.get('cycle')}"
    ),
    "jn25-played": lambda d, y: (
        f"A JN-25 code change is played openly; it takes effect in cycle {d.get('arrives_cycle')}"
    ),
    "dummy-sortie-burnt": lambda d, y: (
        f"Reveal Dummy TF with no dummy at sea: {plural(d.get('burnt'), 'dummy sortie')} burnt"
    ),
    "intelligence-lapsed": lambda d, y: f"Your call '{d.get('order')}' lapsed: {d.get('why')}",
}


def sentence(kind: str, data: Data, you: str | None, rule: str | None = None) -> str:
    """``kind``'s fact as its sentence, with its rule in brackets. A kind without a
    template (a test keeps every kind the rules emit covered) still reads, as words."""
    tell = SENTENCES.get(kind)
    if tell is None:
        text = kind.replace("-", " ").capitalize()
    else:
        try:
            text = tell(data, you)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            text = kind.replace("-", " ").capitalize()
    text = text[:1].upper() + text[1:]
    return text + "." + (f" [{rule}]" if rule else "")
