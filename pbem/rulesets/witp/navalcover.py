"""5.3.4 Naval Cover plotted at the outset of a Naval Phase (R138).

"Such missions may be plotted at the outset of Naval Phases ... During the following
Naval Phase (or during the current one, if plotted at the outset of that phase), any
AP's not eliminated nor aborted ... accompany the TF as it moves ... up to the limit of
the extended range." A side's naval plot (orders.py) takes

    NAVALCOVER <id> FROM <base|TFn> <n>x<type> OVER <TFn>

judged as the Air Phase's line (air/plot.py, same refusals and rules) against the APs
its bases hold less those already plotted: the earlier NAVALCOVER lines of the plot
and the Air Phase's Naval Cover still over a TF (R124), whose ids it may not reuse.
Filed, each flight joins that Naval Cover (``airplay.ALOFT``) not yet rolled, so
R124's machinery flies it in this Naval Phase's Execution Segment: its carrier
coordination check and APAT roll (2R) at its first combat, from the moderator's
secret stream, told its owner alone; home when the phase ends. The plot is secret
(16.3): it is kept in the owner's private part only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.core.errors import IllegalOrderError, OrderError
from pbem.core.sides import Side
from pbem.rulesets.witp import airplay, orders
from pbem.rulesets.witp.air import plot as air_plot
from pbem.rulesets.witp.air import strikeplot
from pbem.rulesets.witp.missions import Context
from pbem.rulesets.witp.work import Work

WORD = "NAVALCOVER"
RULE = "5.3.4"


def _judged(ctx: Context, lines: Sequence[Sequence[str]]) -> strikeplot.AirPlot:
    """The Naval Cover of ``lines`` (each judged as the Air Phase's line) after the
    APs already over a TF (R124: they stay committed); the last line may raise."""
    pctx = strikeplot.Context(ctx.knowledge, ctx.side, air_plot.hex_mp())
    plot = strikeplot.AirPlot()
    aloft = airplay.naval_cover_aloft(ctx.knowledge, ctx.side)  # R124
    for f in aloft:
        key = (f.base, f.type)
        plot.allocated[key] = plot.allocated.get(key, 0) + f.n
    for words in lines:
        cid = words[0].upper() if words else ""
        if any(f.id == cid for f in aloft):
            raise IllegalOrderError(
                f"Naval Cover {cid} is still over your TF from the Air Phase: another id",
                rule=RULE,
            )
        try:
            air_plot.JUDGES[WORD](pctx, plot, words)
        except OrderError as e:
            e.rule = e.rule or RULE  # a syntax refusal names the rule too
            raise
    return plot


def _judge(ctx: Context, plot: orders.Plot, args: Sequence[str]) -> None:
    """A NAVALCOVER line of the naval plot, after the ones accepted above it."""
    _judged(ctx, [*plot.extra.get(WORD, ()), list(args)])


orders.register_line(WORD, _judge)


def file(work: Work, side: Side, plot: orders.Plot, ctx: Context) -> None:
    """The Plot Segment: the side's Naval Cover over its TFs this Naval Phase, not yet
    rolled (``up`` None), beside the Air Phase's still aloft (R124, R138)."""
    lines = plot.extra.get(WORD, [])
    if not lines:
        return
    try:
        flights = _judged(ctx, lines).cover_flights.values()
    except OrderError:
        return  # refused when the mail was answered, from the same knowledge
    aloft = airplay.naval_cover(work, side)
    for f in flights:
        aloft.setdefault(f.over, []).append(replace(f, aloft=True, plotted="naval"))
    airplay.put_naval_cover(work, side, aloft)


def form_lines(ctx: Context) -> list[str]:
    """The order form's Naval Cover lines: the syntax, and what is still aloft."""
    up = [
        f"{f.id} {f.n}x{f.type} from {f.base} over {tf}"
        for tf, fs in sorted(airplay.naval_cover(ctx.knowledge, ctx.side).items())
        for f in fs
    ]
    return [
        "Naval Cover this phase (5.3.4, R138), secret, rolled when struck: NAVALCOVER <id> FROM"
        " <base|TFn> <n>x<type> OVER <TFn>; still over your TFs from the Air Phase (R124): "
        + ("; ".join(up) or "none"),
    ]


orders.register_form(form_lines)
