"""The order lines of 42 (strategic intelligence) in a naval Plot Segment, and how
play carries them out (docs/witp-orders.md)::

    SIGINT                         42.3.1 Allies: Sigint on the next Japanese cards
    SIGINT RUSE                    42.3.5 Allies: a ruse there (the Japanese told the same)
    MAGIC REVEAL-1-TF TF3 TF5 ...  42.4.1 Allies: read 1 card (2: REVEAL-2-TF) of those named
    MAGIC REVEAL-DUMMY-TF          42.4.1 Allies: a Japanese dummy revealed (or a sortie burnt)
    DUMMYCARD TF23 SPEED 3 SHIPS Shokaku, Zuikaku   42.9 Japanese: opens the dummy plot card
    DUMMYCARD TF23 MOVE E1520 EV 2                   a line on it (anything he likes)

Ruling R71: by mail the Allies cannot wait at the table for the Japanese to finish,
so their calls are filed with one plot and carried out at the next naval Plot
Segment, as soon as the Japanese cards close (the Japanese half, 42.3.1); what
Sigint shows them is in the report that comes with the Allied half's order form.
A call that can no longer be carried out then lapses, told to the Allies with its
rule. Every judge reads the side's own Knowledge only.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.witp import draws, intelligence, orders
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.intelligence import Holdings, PlotCard
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.missions import Context
from pbem.rulesets.witp.orders import Plot
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.work import Work

SIGINT, MAGIC, DUMMYCARD = "SIGINT", "MAGIC", "DUMMYCARD"
CALLS = "calls"  # private["allied"][INTEL][CALLS]: the lines to carry out next
REVEAL_TF_CHITS = ("reveal-1-tf", "reveal-2-tf")
REVEAL_DUMMY = "reveal-dummy-tf"
NOT_BY_PLOT = {  # Magic chits a plot line does not play (yet): where their rules are
    "report-false": "42.4.1 (played on a search chit, 13.5)",
    "strike-sequence-2": "42.4.1 (an Air Strike Plot line, with its strike)",
    "strike-sequence-1": "42.4.1 (an Air Strike Plot line, with its strike)",
    "attack-subron-1d6": "22.0 (stage 4)",
    "yamamoto-mission": "42.7 (stage 6)",
    "blank": "42.4.1 (a blank chit does nothing)",
}
SIGINT_NOT_YET = {"HEX": "42.3.3", "DAMAGE": "42.3.4", "AMPH": "42.3.6"}


class IntelligenceLapsed(Fact, kind="intelligence-lapsed"):
    """R71: a filed Sigint or Magic call that can no longer be carried out, and why."""

    order: str
    why: str


def _slot(ctx: Context) -> Slot:
    """The slot the pending round starts at (the Plot Segment being written)."""
    track = ctx.knowledge.clock
    return track.slots[min(track.at, len(track.slots) - 1)]


def _intel(ctx: Context) -> Holdings:
    return intelligence.holdings(ctx.knowledge)


def _sigint(ctx: Context, plot: Plot, args: Sequence[str]) -> None:
    if ctx.side != ALLIED:
        raise IllegalOrderError("only the Allies call Sigint", rule="42.3.1")
    # No open SI advantage (or the gate off): the cycle gave no uses (42.2.2, R70).
    word = args[0].upper() if args else ""
    if word in SIGINT_NOT_YET:
        raise IllegalOrderError(f"SIGINT {word} is not moderated yet", rule=SIGINT_NOT_YET[word])
    if len(args) > 1 or word not in ("", "RUSE"):
        raise OrderSyntaxError("SIGINT, or SIGINT RUSE", rule="42.3.1")
    if SIGINT in plot.extra:
        raise IllegalOrderError("Sigint may be used once a Naval Phase", rule="42.3.2")
    ruse = word == "RUSE"
    held = _intel(ctx)
    if (held.ruses_left if ruse else held.sigint_left) in (ABSENT, 0):
        raise IllegalOrderError(
            f"no {'ruse' if ruse else 'Sigint use'} is left this cycle",
            rule="42.3.5" if ruse else "42.2.2",
        )


def _magic(ctx: Context, plot: Plot, args: Sequence[str]) -> None:
    if ctx.side != ALLIED:
        raise IllegalOrderError("only the Allies hold Magic chits", rule="42.4")
    if not args:
        raise OrderSyntaxError("MAGIC and the chit, e.g. MAGIC REVEAL-DUMMY-TF", rule="42.4")
    chit = args[0].lower()
    if chit in NOT_BY_PLOT:
        raise IllegalOrderError(f"{chit} is not played by a plot line", rule=NOT_BY_PLOT[chit])
    if chit not in (*REVEAL_TF_CHITS, REVEAL_DUMMY):
        raise OrderSyntaxError(
            f"{args[0]!r} is not a Magic chit a plot plays "
            "(REVEAL-1-TF, REVEAL-2-TF, REVEAL-DUMMY-TF)",
            rule="42.4.1",
        )
    held = _intel(ctx).chits.count(chit)
    used = sum(1 for a in plot.extra.get(MAGIC, ()) if a and a[0].lower() == chit)
    if used >= held:
        raise IllegalOrderError(f"you hold no (more) Magic chit {chit}", rule="42.4")
    if chit == REVEAL_DUMMY:
        if len(args) > 1:
            raise OrderSyntaxError("MAGIC REVEAL-DUMMY-TF takes nothing after it", rule="42.4.1")
        return
    named = [tfs.tf_id(w) for w in args[1:]]
    if any(t is None for t in named):
        raise OrderSyntaxError(f"MAGIC {chit.upper()} and the Japanese TFs named", rule="42.4.1")
    if not intelligence.japanese_plot_first(ctx.pack):
        raise IllegalOrderError("no Japanese card closes first in this game (R70)", rule="42.3.1")
    diff = _intel(ctx).si_difference
    diff = 0 if diff is ABSENT else diff
    seen = ctx.knowledge.located
    problem = intelligence.reveal_tf_problem(ctx.pack, seen, diff, chit, [str(t) for t in named])
    if problem:
        raise IllegalOrderError(problem, rule="42.4.1")


def _dummycard(ctx: Context, plot: Plot, args: Sequence[str]) -> None:
    if ctx.side != JAPANESE:
        raise IllegalOrderError("only the Japanese write dummy plot cards", rule="42.9")
    tf = tfs.tf_id(args[0]) if args else None
    if tf is None or len(args) < 2:
        raise OrderSyntaxError("DUMMYCARD TFn and a line of the card", rule="42.9")
    filed = [tfs.tf_id(a[0]) for a in plot.extra.get(DUMMYCARD, ())]
    if any(t != tf for t in filed):
        raise IllegalOrderError("one dummy plot card is held at a time", rule="42.9")
    problem = intelligence.dummy_card_problem(ctx.knowledge, tf, _slot(ctx))
    if problem:
        raise IllegalOrderError(problem, rule="42.9")
    if not filed and _header(args[1:]) is None:
        raise OrderSyntaxError(
            f"open the card with DUMMYCARD {tf} SPEED 1-3 SHIPS <names, comma-separated>",
            rule="42.9",
        )


def _header(rest: Sequence[str]) -> tuple[str, list[str]] | None:
    """``SPEED n SHIPS a, b, c`` -> ("SCn", [a, b, c]); None if it is not one."""
    if len(rest) < 4 or rest[0].upper() != "SPEED" or rest[1] not in ("1", "2", "3"):
        return None
    if rest[2].upper() != "SHIPS":
        return None
    names = [n.strip() for n in " ".join(rest[3:]).split(",") if n.strip()]
    return (f"SC{rest[1]}", names) if names else None


def dummy_card(plot: Plot) -> PlotCard | None:
    """The 42.9 card the Japanese lines write, shaped as any card is (card_face)."""
    lines = plot.extra.get(DUMMYCARD, [])
    if not lines:
        return None
    tf = str(tfs.tf_id(lines[0][0]))
    head = _header(lines[0][1:])
    speed, ships = head if head else ("SC1", [])
    body = [" ".join([a[1].upper(), *a[2:]]) for a in lines[1:]]
    return intelligence.card_face(tf, speed, ships, body)


def form_lines(ctx: Context) -> list[str]:
    """The order form's intelligence lines, from the side's own holdings."""
    intel = _intel(ctx)
    if ctx.side == ALLIED and intel.sigint_left is not ABSENT:
        held = ", ".join(intel.chits) or "none"
        calls = [" ".join(c) for c in intel.filed]
        ruses = 0 if intel.ruses_left is ABSENT else intel.ruses_left
        return [
            f"Intelligence (42): Sigint uses left this cycle {intel.sigint_left}, ruses "
            f"{ruses}; Magic chits held: {held}",
            *(
                [
                    "  SIGINT | SIGINT RUSE | MAGIC REVEAL-1-TF TFn.. | MAGIC REVEAL-2-TF TFn.. |"
                    " MAGIC REVEAL-DUMMY-TF: carried out at the next Naval Phase's Plot Segment,"
                    " once the Japanese cards close (42.3.1, R71); STRIKE-SEQUENCE chits and"
                    " PLANES-ON-DECK: MAGIC lines of the Air Strike Plot (42.4.1, 42.4.3)",
                ]
                if ctx.words
                else []
            ),
            *([f"  Filed for then: {'; '.join(calls)}"] if calls else []),
        ]
    jn = intelligence.jn25(ctx.knowledge)
    if ctx.side == JAPANESE and jn:
        return [
            f"JN-25 Code Change counters held: {jn.held} (42.8); a dummy plot card among your"
            " cards this phase commits one to this cycle's end (42.9, R72):",
            "  DUMMYCARD TFn SPEED 1-3 SHIPS a, b | DUMMYCARD TFn <any line>",
        ]
    return []


for _word, _judge in ((SIGINT, _sigint), (MAGIC, _magic), (DUMMYCARD, _dummycard)):
    orders.register_line(_word, _judge)
orders.register_form(form_lines)


# -- in play ------------------------------------------------------------------------


def file_extras(work: Work, side: Side, plot: Plot, slot: Slot) -> list[Event]:
    """A filed plot's 42 lines: the Allies' calls wait for the next Japanese cards
    (R71); the Japanese dummy card joins this phase's deck (42.9). Each TF's card
    lines are kept, as the cards Sigint and Magic show (42.3.1)."""
    written = {
        tf: tuple(ln for ln in lines if not ln.startswith("SPEED "))
        for tf, lines in plot.lines.items()
    }
    work.put_part(side, work.part(side).put(card_lines=written))
    if side == ALLIED:
        calls = [(SIGINT, *a) for a in plot.extra.get(SIGINT, ())]
        calls += [(MAGIC, *a) for a in plot.extra.get(MAGIC, ())]
        if calls:
            held = intelligence.allied_holdings(work)
            intelligence.put_holdings(work, held.put(calls=tuple(calls)))
        return []
    card = dummy_card(plot)
    if card is None:
        return []
    try:
        return intelligence.file_dummy_plot_card(work, card, slot)
    except IllegalOrderError:
        return []  # refused at validation from the same knowledge: not reached


def carry_out(work: Work, slot: Slot, secret: Dice | None) -> list[Event]:
    """The Allies' calls, once the Japanese cards of ``slot``'s phase are closed.
    ``secret`` None: the round did not split (no card is sampled); a call that needs
    the cards lapses."""
    held = intelligence.allied_holdings(work)
    events: list[Event] = []
    if held.calls is not ABSENT:  # taken off the holdings before they are carried out
        intelligence.put_holdings(work, held.put(calls=ABSENT))
    for call in held.filed:
        try:
            events += _one(work, slot, secret, call)
        except IllegalOrderError as e:
            fact = IntelligenceLapsed(" ".join(call), e.message)
            events.append(work.disclose(fact, [ALLIED], slot.time, e.rule or "42"))
    return events


def _one(work: Work, slot: Slot, secret: Dice | None, call: Sequence[str]) -> list[Event]:
    word, args = call[0], list(call[1:])
    if word == MAGIC and args[0].lower() == REVEAL_DUMMY:
        return intelligence.reveal_dummy(work, slot)
    if secret is None:
        raise IllegalOrderError("the Japanese plot did not close first this phase", rule="42.3.1")
    if word == SIGINT:
        ruse = bool(args) and args[0].upper() == "RUSE"
        return intelligence.sigint(work, slot, draws.fork(secret, "sigint"), ruse=ruse)
    named = [str(tfs.tf_id(a)) for a in args[1:]]
    return intelligence.reveal_tf(work, args[0].lower(), named, slot, secret)
