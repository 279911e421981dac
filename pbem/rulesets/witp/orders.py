"""Orders of a naval Plot Segment: a small dispatch from order words to their judges.

A line is either ``TFn <WORD> ...`` (a line of TFn's mission card, missions.py) or
``<WORD> ...`` (a side-wide order: ``PASS``; the search rules add ``SEARCH``). The
words and their judges are two tables, ``TF_WORDS`` and ``LINE_WORDS``; a module
with its own orders registers its words (``register_tf_word``, ``register_line``)
and nothing here changes. Each refused line names its number, the reason and the
rule (docs/witp-orders.md). Judged from the side's Knowledge alone, as every answer
to a side is: the same lines give the same ``Plot`` in validation and adjudication.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pbem.core.errors import IllegalOrderError, OrderError, OrderSyntaxError
from pbem.core.refusals import line_error
from pbem.core.ruleset import LineError, Validation
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp import dummies, missions
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.clock import ALLIED_HALF, HALF_SUFFIX, JAPANESE_HALF, Round
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.missioncards import Link, MissionCard, PortEntry
from pbem.rulesets.witp.missions import Context
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.work import Work

PASS = "PASS"


@dataclass
class Plot:
    """A side's accepted plot for one Naval Phase: its cards in the order written
    (17.13.6: the order its TFs execute in) and any side-wide orders."""

    cards: dict[str, MissionCard] = field(default_factory=dict)
    extra: dict[str, list[list[str]]] = field(default_factory=dict)  # word -> argument lists
    lines: dict[str, list[str]] = field(default_factory=dict)  # TF -> its card's lines (42.3.1)


TfJudge = Callable[[Context, MissionCard, Sequence[str]], MissionCard]  # the card with the line
LineJudge = Callable[[Context, Plot, Sequence[str]], None]
FormLines = Callable[[Context], list[str]]  # a module's lines on the order form


def _speed(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    """16.0 A/B, 17.13.1, 18.2: SPEED <1-3>, first on the card."""
    if len(args) != 1 or args[0] not in ("1", "2", "3"):
        raise OrderSyntaxError("SPEED and a speed class 1, 2 or 3", rule="16.0")
    if card.missions or card.night_after is not None:
        raise OrderSyntaxError("SPEED comes first on a TF's card", rule="16.0")
    tf = ctx.task_force(card.tf)
    converted = card.converted_fuel
    if tf.fuel is not None and not tf.dummy and f"SC{args[0]}" != tf.speed_class:
        converted = _conversion(ctx, tf, f"SC{args[0]}")
    top = tfs.top_speed_class(ctx.pack, ctx.fleet, tf)
    # 18.2.1: SC1 ships reach SC2 only by a conversion
    if (int(args[0]) > top and converted is None) or (tf.unsupplied and args[0] != "1"):
        raise IllegalOrderError(
            f"{card.tf}'s slowest ship allows speed class {1 if tf.unsupplied else top}",
            rule="18.3" if tf.unsupplied else "17.13.1",
        )
    return replace(card, speed=f"SC{args[0]}", converted_fuel=converted)


CONVERSION = "tables/speed-class-conversion"


def _conversion(ctx: Context, tf: tfs.TaskForce, new: str) -> int:
    """18.2.1: a voluntary change of speed class, in the first Naval Phase's Plot
    Segment of a Game-Turn, after an active phase at the class it sortied at
    (18.2.3): ``gives`` phases at the new class for every ``per`` remaining (R37)."""
    old, fuel = tf.speed_class, int(tf.fuel or 0)
    if ctx.phase != "naval1":
        raise IllegalOrderError(
            f"a speed class changes only in the First Naval Phase's Plot Segment ({old} now)",
            rule="18.2.1",
        )
    if fuel >= tfs.fuelling_period(ctx.pack, old):
        raise IllegalOrderError(
            f"no active phase yet at {old}, the class it sortied at", rule="18.2.3"
        )
    table = ctx.chart(CONVERSION)
    rate = table.get(f"{old}-to-{new}")
    if rate is None:
        raise IllegalOrderError(f"{old} may not convert to {new}", rule="18.2.1")
    return fuel // int(rate["per"]) * int(rate["gives"])


def _link(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    """17.10: LINK TFn: this TF moves with TFn as one TF; nothing else on its card."""
    if len(args) != 1:
        raise OrderSyntaxError("LINK and the TF to move with, e.g. LINK TF2", rule="17.10")
    leader = ctx.own_tf(args[0], rule="17.10")
    if leader == card.tf or card.missions or card.link:
        raise IllegalOrderError("a linked TF's card holds only its LINK", rule="17.10")
    if ctx.task_force(leader).hex != ctx.task_force(card.tf).hex:
        raise IllegalOrderError(
            f"{card.tf} and {leader} do not begin in the same hex", rule="17.10"
        )
    return card.adding(Link(leader), link=leader)


def _port(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    """18.4.1: PORT: enter the port where the move ends, to deactivate."""
    if args:
        raise OrderSyntaxError("PORT takes nothing after it", rule="18.4.1")
    if ctx.owner_of_port(card.at) != ctx.side:
        raise IllegalOrderError(f"{card.at} holds no port of yours", rule="18.4.1")
    return card.adding(PortEntry(card.at, ctx.port_name(card.at)), port=True)


def _night(ctx: Context, card: MissionCard, args: Sequence[str]) -> MissionCard:
    card = missions.add_night(ctx, card, args)
    if card.night_after is not None and card.night_after > len(card.path):
        n = card.night_after
        raise IllegalOrderError(
            f"{card.tf} is plotted to enter {len(card.path)} hexes so far: night cannot start "
            f"after {n} (write NIGHT after its moves)",
            rule="16.6",
        )
    return card


TF_WORDS: dict[str, TfJudge] = {
    "SPEED": _speed,
    "MOVE": missions.add_move,
    "TRAN": missions.add_tran,
    "FUEL": missions.add_fuel,
    "REGP": missions.add_regp,
    "LINK": _link,
    "NIGHT": _night,
    "PORT": _port,
}
NOT_YET = {  # mission codes of 17.x a later stage moderates
    "AMPH": "17.1",
    "BMB": "17.2",
    "ETRAN": "17.3",
    "EVAC": "17.4",
    "REAC": "17.5",
    "SWEEP": "17.6",
    "TOW": "17.14",
    "AMMO": "17.15",
}


def _pass(ctx: Context, plot: Plot, args: Sequence[str]) -> None:
    if args:
        raise OrderSyntaxError("PASS takes nothing after it", rule="3.1 C")


LINE_WORDS: dict[str, LineJudge] = {PASS: _pass}
FORM_SECTIONS: list[FormLines] = []
# Where a later form's reader finds the order words it leaves out (Context.words).
WORDS_ON_TURN_1 = "; the words: Game-Turn 1's form)"


def register_tf_word(word: str, judge: TfJudge) -> None:
    TF_WORDS[word.upper()] = judge


def register_line(word: str, judge: LineJudge) -> None:
    LINE_WORDS[word.upper()] = judge


def register_form(section: FormLines) -> None:
    """Lines a module adds to the order form (commented), after the task forces."""
    if section not in FORM_SECTIONS:
        FORM_SECTIONS.append(section)


def _open_card(ctx: Context, plot: Plot, tf: str) -> MissionCard:
    """A TF's card, opened on its first line: 16.0 (active phases), 18.4.1 (port)."""
    if tf in plot.cards:
        return plot.cards[tf]
    entry = ctx.task_force(tf)
    if entry.port_phases == 0 and entry.in_port and not entry.deactivated:
        raise IllegalOrderError(
            f"{tf} entered {entry.in_port} last phase: it spends this Naval Phase in port",
            rule="18.4.1",
        )
    speed = entry.speed_class or f"SC{tfs.top_speed_class(ctx.pack, ctx.fleet, entry)}"
    if entry.unsupplied:
        speed = "SC1"  # 18.3
    if not entry.dummy and entry.active_phases >= tfs.per_game_turn(ctx.pack, speed):
        raise IllegalOrderError(
            f"{tf} at {speed} has used its {tfs.per_game_turn(ctx.pack, speed)} active "
            "Naval Phase(s) of this Game-Turn",
            rule="16.0",
        )
    return MissionCard(tf, HexId(str(entry.hex)), speed)


def judge_line(ctx: Context, plot: Plot, line: str) -> str:
    """Judge one line into ``plot``; the line as accepted (normalised), or raise OrderError."""
    words = line.split()
    head = words[0].upper()
    tf = tfs.tf_id(words[0])
    if tf is None and len(words) > 1 and head == "TF" and words[1].isdigit():
        tf, words = tfs.tf_id(words[0] + words[1]), [words[0] + words[1], *words[2:]]
    if tf is not None:
        tf = ctx.own_tf(tf)
        if len(words) < 2:
            raise OrderSyntaxError(f"{tf} and what it does: {', '.join(TF_WORDS)}", rule="16.3")
        word = words[1].upper()
        if word in NOT_YET:
            raise IllegalOrderError(f"the {word} mission is not moderated yet", rule=NOT_YET[word])
        judge = TF_WORDS.get(word)
        if judge is None:
            raise OrderSyntaxError(
                f"{words[1]!r} is not a mission card word ({', '.join(TF_WORDS)})", rule="16.3"
            )
        existing = plot.cards.get(tf)
        if existing is not None and existing.link and word != "LINK":
            raise IllegalOrderError("a linked TF's card holds only its LINK", rule="17.10")
        if existing is not None and existing.port:
            raise IllegalOrderError(f"{tf}'s card ends with PORT", rule="18.4.1")
        plot.cards[tf] = judge(ctx, _open_card(ctx, plot, tf), words[2:])
        plot.lines.setdefault(tf, []).append(" ".join([word, *words[2:]]))
        return " ".join([tf, word, *words[2:]])
    line_judge = LINE_WORDS.get(head)
    if line_judge is None:
        raise OrderSyntaxError(
            f"{words[0]!r} is not an order: a line begins with a TF (TF1-TF60) or "
            f"{', '.join(LINE_WORDS)}",
            rule="16.3",
        )
    line_judge(ctx, plot, words[1:])
    plot.extra.setdefault(head, []).append(words[1:])
    return " ".join([head, *words[1:]])


def _lines(text: str) -> list[tuple[int, str]]:
    return [
        (n, line.strip())
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def validate(rnd: Round | None, side: str, ctx: Context | None, text: str) -> Validation:
    """``ctx`` is None when ``side`` is no side of the game."""
    if rnd is None:
        return Validation((), (LineError(0, "", "the game is over", None),))
    if ctx is not None and rnd.half == JAPANESE_HALF and side != JAPANESE:
        return Validation(
            (),
            (
                LineError(
                    0,
                    "",
                    f"the Japanese plot first in {rnd.name}; the Allies plot in "
                    f"{rnd.name.removesuffix(HALF_SUFFIX)}",
                    "42.3.1",
                ),
            ),
        )
    if ctx is None or side not in rnd.sides:
        return Validation(
            (), (LineError(0, "", f"no orders are due from {side} in {rnd.name}", "3.1"),)
        )
    plot = Plot()
    accepted: list[tuple[int, str]] = []
    errors: list[LineError] = []
    lines = _lines(text)
    for number, line in lines:
        try:
            order = judge_line(ctx, plot, line)
        except OrderError as e:
            errors.append(line_error(number, line, e))
            continue
        if order != PASS or PASS not in [a for _, a in accepted]:
            accepted.append((number, order))
    for tf, leader, refusal in _links_too_slow(ctx, plot):
        number, order = next((n, a) for n, a in accepted if a == f"{tf} LINK {leader}")
        accepted.remove((number, order))
        errors.append(line_error(number, dict(lines)[number], refusal))
    errors.sort(key=lambda err: err.line)
    return Validation(tuple(a for _, a in accepted), tuple(errors))


def _links_too_slow(ctx: Context, plot: Plot) -> list[tuple[str, str, OrderError]]:
    """17.10, 17.13.1: linked TFs move as one, so the leader's plotted MP must be
    within each follower's allowance. The follower's card is dropped."""
    out: list[tuple[str, str, OrderError]] = []
    for tf, card in list(plot.cards.items()):
        leader = plot.cards.get(card.link) if card.link else None
        if leader is None or card.link is None:
            continue
        limit = tfs.allowance(ctx.pack, card.speed)
        if leader.mp > limit:
            del plot.cards[tf]
            out.append(
                (
                    tf,
                    card.link,
                    IllegalOrderError(
                        f"{card.link} is plotted {leader.mp} MP but linked {tf} moves at most "
                        f"{limit} at {card.speed}",
                        rule="17.10",
                    ),
                )
            )
    return out


def plot_of(ctx: Context, lines: Sequence[str]) -> Plot:
    """The plot of accepted lines (adjudication): a line refused now is dropped."""
    plot = Plot()
    for line in lines:
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                judge_line(ctx, plot, line.strip())
            except OrderError:
                continue
    _links_too_slow(ctx, plot)
    return plot


def template(rnd: Round | None, ctx: Context) -> str:
    """The order form: the round, then the side's TFs and what each may do."""
    if rnd is None or ctx.side not in rnd.sides:
        return ""
    head = rnd.slots[0]
    ctx = replace(ctx, words=rnd.turn == 1)
    out = [
        f"# {rnd.name}: {head.phase.title}, {head.segment.title} ({head.phase.rule}, {head.segment.rule})",
        *(
            ["# The Japanese plot first; the Allies plot next, after Sigint (42.3.1)."]
            if rnd.half == JAPANESE_HALF
            else []
        ),
        *(
            [
                "# The Japanese cards are closed: your Sigint calls were carried out on them (42.3.1)."
            ]
            if rnd.half == ALLIED_HALF
            else []
        ),
        "# A line a mission, in the TF's order (17.12.4); TFs execute in the order written"
        " (17.13.6); PASS, or nothing, plots none (in full: the player's docs, witp-orders"
        + ("):" if ctx.words else WORDS_ON_TURN_1),
        *(
            [
                "#   TFn SPEED 1-3 | MOVE <hex> [VIA <hex>...] EV 0-14 | NIGHT AFTER <hexes> |"
                " FUEL FROM TFn | REGP TFn SHIPS a, b | REGP DUMMY TFn | LINK TFn | TRAN <hex> | PORT"
            ]
            if ctx.words
            else []
        ),
        "# Your task forces (where; speed; fuel; active phases used this Game-Turn; ships):",
    ]
    own_tfs = tfs.task_forces(ctx.knowledge, ctx.side)
    for tf in sorted(own_tfs, key=tfs.marker_number):
        out += [f"#   {line}" for line in describe(ctx, tf, own_tfs[tf])]
    free = tfs.free_markers(ctx.pack, own_tfs)
    out += [
        f"# Free markers: {free[0]}-{free[-1]} ({len(free)} of 60, 16.1.1)"
        if free
        else "# No free marker"
    ]
    allot = dummies.allotment(ctx.knowledge, ctx.side)
    if allot is not None:
        out[-1] += f"; dummy sorties left this cycle: {allot.left} (13.6)"
    for section in FORM_SECTIONS:
        out += [f"# {line}" if line else "#" for line in section(ctx)]
    out += [PASS, ""]
    return "\n".join(out)


def describe(ctx: Context, tf: str, entry: tfs.TaskForce) -> list[str]:
    """A TF as the order form lists it, in one line: where, speed, fuel, what holds
    it (18.3, 18.4.1), and its ships by type and name (REGP names them)."""
    name = f" ({entry.name})" if entry.name else ""
    where = f"in port at {entry.in_port}" if entry.in_port else "at sea"
    what = (
        "dummy"
        if entry.dummy
        else ", ".join(f"{tfs.ship(ctx.knowledge, ctx.side, s).type} {s}" for s in entry.ships)
    )
    speed = entry.speed_class or f"SC{tfs.top_speed_class(ctx.pack, ctx.fleet, entry)} (to choose)"
    fuel = "fuelled" if entry.fuel is None else f"{entry.fuel} active phase(s) before fuelling"
    held = []
    if entry.unsupplied:
        held.append("UNSUPPLIED: speed class 1, no combat mission (18.3)")
    if entry.in_port and entry.port_phases == 0 and not entry.deactivated:
        held.append("entered port last phase: stays in port this phase (18.4.1)")
    return [
        f"{tf}{name}: {entry.hex}, {where}; speed {speed}; {fuel}; {entry.active_phases} used; "
        + "; ".join([*held, what])
    ]


# -- the plot kept (the side's own part: secret) ------------------------------------


def keep_lines(work: Work, side: str, time: str, lines: Sequence[str]) -> None:
    """Keep the plot ``side`` filed at ``time`` as written, its last (16.3, 5.0 Step 1);
    a side's Knowledge reads it back (known.Knowledge.plots)."""
    work.put_part(side, work.part(side).put(plots={time: tuple(lines)}))


def keep_card_order(work: Work, side: str, plot: Plot) -> None:
    """17.13.6: the order ``side``'s cards were written in, for the Execution Segment."""
    work.put_part(side, work.part(side).put(card_order=tuple(plot.cards)))


def card_order(work: Work, side: str) -> tuple[str, ...]:
    """The TFs ``side``'s last plot wrote cards for, in the order written (17.13.6)."""
    order = work.part(side).card_order
    return () if order is ABSENT else order
