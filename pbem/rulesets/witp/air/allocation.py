"""The Air Phase's Allocation Segment (5.0 Step 1, R90, R105): the side's AIRPLOT
lines (air/plot.py) and standing ``SPECIAL`` orders (air/special.py) judged from its
Knowledge alone, the accepted plot filed in its private part, and the order form.

- ``validate`` / ``template``: a ``Tn-airN-allocation`` round; each refused line
  names its number, the reason and the rule.
- ``file_plot``: each side's accepted plot kept in its private part (sealed with its
  mail, like a naval plot); ``SPECIAL`` lines replace the side's standing special
  strikes (``SPECIAL NONE`` clears them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.core.events import Event
from pbem.core.ruleset import LineError, Validation
from pbem.core.sides import Side, enemy_of
from pbem.rulesets.witp import orders
from pbem.rulesets.witp import standingplay as standing_orders
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air import parts, plot, special, strikeplot
from pbem.rulesets.witp.air.ships import air_bases, keep_names, tf_air
from pbem.rulesets.witp.air.strikes import SpecialOrder
from pbem.rulesets.witp.air.tables import air_unit, known_type
from pbem.rulesets.witp.clock import Round, Slot
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.work import Work

AIR_PLOT = "air_plot"  # private[side]: this Air Phase's accepted plot (FiledPlot's JSON)
WORD = "SPECIAL"


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
) -> tuple[strikeplot.AirPlot, list[SpecialOrder], list[LineError]]:
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


def file_plot(work: Work, side: str, lines: Sequence[str], slot: Slot) -> list[Event]:
    """The Allocation Segment: the side's plot, secret (its own private part)."""
    text = "\n".join(lines)
    accepted, specials, _errors = judge(parts.knowledge(work, side), side, text)
    keep_names(work, Side(side))
    work.put_part(side, work.part(side).put(air_plot=accepted.filed(slot.time)))
    _air, spec, none = _split(text)
    if none or spec.strip():  # R105: the standing special strikes, filed as a set
        orders = standing_orders.standing(work, Side(side))
        standing_orders.put(work, Side(side), replace(orders, special=tuple(specials)))
    return []


def template(rnd: Round, knowledge: Knowledge, side: str) -> str:
    """The Allocation Segment's form: the words, your air bases and carrier TFs with
    their APs, the enemy TFs you may strike (and those you may not, with the rule)."""
    head = rnd.slots[0]
    kept = special.standing(knowledge, side)
    in_force = ", ".join(o.id for o in kept) or "none"
    words = [
        "#   STRIKE <id> FROM <base|TFn> <n>x<type>[/<role>][@<alt>] ... TARGET <TFn>"
        " [PRIORITY GENERAL|<type>] [RETURN <base>] [NIGHT]",
        "#   ESCORT <id> FROM <base|TFn> <n>x<type>@<alt> LOOSE|CLOSE [SUPPRESS <k>] (7.9) |"
        " COVER <id> FROM ... OVER <hex> | NAVALCOVER <id> FROM ... OVER <TFn> |"
        " EMERGENCY <id> FROM ... OVER <hex|TFn>",
        "#   TRANSFER <id> <n>x<type> FROM <base> TO <base|TFn> | CAP <TFn> <L|M|H>:<share> ..."
        " (secret, 7.1 B, R135) | RECIPROCAL BEFORE|AFTER (12.3.2) | ENTRY <id> ROLLED|FEWEST (7.7.1)",
        "#   Allies: MAGIC STRIKE-SEQUENCE-2|STRIKE-SEQUENCE-1 <id> +n|-n (the 12.1 roll, 42.4.1) |"
        " MAGIC PLANES-ON-DECK <id> WAVE <k> <chit> <chit> (42.4.3)",
        "#   SPECIAL <id> FROM <base|TFn> <n>x<type>... [ESCORT <n>x<type>@<alt> LOOSE|CLOSE]"
        " [AGAINST ANY|<types>] [RANGE NORMAL|EXTENDED] [NIGHT]: standing (5.8, R105;"
        " SPECIAL NONE clears); in force: " + in_force,
    ]
    out = [
        f"# {rnd.name}: {head.phase.title}, {head.segment.title} ({head.phase.rule}, {head.segment.rule})",
        "# An order a line, PASS for none (in full: the witp-orders page of the player's docs, R90"
        + (
            "):"
            if rnd.turn == 1  # the words on a side's first form of the kind (Context.words)
            else f"{orders.WORDS_ON_TURN_1}; standing SPECIAL orders in force: {in_force}"
        ),
        *(words if rnd.turn == 1 else []),
        "# Your air bases and carrier TFs (APs by type; MP = hexes x 6 in the Tropics):",
    ]
    bases, display = air_bases(knowledge, side), tfs.task_forces(knowledge, side)
    for name, b in sorted(bases.items()):
        aps = ", ".join(f"{n}x{t}" for t, n in sorted(b.air_points.items()) if int(n) > 0)
        out.append(f"#   {name.replace(' ', '_')} at {b.hex}: {aps or 'no APs'}")
    for tf in sorted(display, key=tfs.marker_number):
        entry = display[tf]
        air = tf_air(knowledge, side, entry) if not entry.dummy else {}
        if air and entry.hex:
            aps = ", ".join(f"{n}x{t}" for t, n in sorted(air.items()) if int(n) > 0)
            out.append(f"#   {tf} (carrier TF) at {entry.hex}: {aps or 'no APs'}")
    types = {t for b in bases.values() for t in b.air_points}
    types |= {t for e in display.values() if not e.dummy for t in tf_air(knowledge, side, e)}
    told = []
    for t in sorted(t for t in types if known_type(knowledge.pack, t)):  # search-only: none
        u = air_unit(knowledge.pack, t)
        told.append(
            f"{t} {u.range.normal}/{u.range.extended}/{u.torpedo_range} {'/'.join(u.roles)}"
        )
    out.append(
        "# Air types (range normal/extended/torpedo MP, roles): " + ("; ".join(told) or "none")
    )
    enemy = enemy_of(side)
    marks = sorted(
        (m for m in knowledge.located.values() if m.owner == enemy),
        key=lambda m: tfs.marker_number(m.tf),
    )
    out.append("# Enemy TFs Located (5.1.6: a target is Located and not reported a dummy):")
    for m in marks:
        problem = knowledge.strike_target_problem(enemy, m.tf)
        report = knowledge.last_report(enemy, m.tf) or "no report"
        may = f"NOT a target: {problem}" if problem else "target"
        out.append(f"#   {m.tf} at {m.hex}: {may}; last report: {report}")
    if not marks:
        out.append("#   none")
    out += ["PASS", ""]
    return "\n".join(out)
