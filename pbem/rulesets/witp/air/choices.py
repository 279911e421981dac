"""The striker's choices filed with the Air Strike Plot (docs/witp-orders.md):

    RECIPROCAL BEFORE|AFTER      12.3.2 Step 2, R125: if this side wins Step 2's
                                 initiative roll, the reciprocal carrier strikes fly
                                 before (or after) all the others; none: BEFORE
    ENTRY <id> ROLLED|FEWEST     7.7.1, R126: a Japanese wave of strike <id> with an
                                 elite majority enters at the arc rolled, or at the
                                 one of it and its two neighbours whose path passes
                                 the fewest ships; none: FEWEST

Each line is judged like the plot's others (plot.JUDGES): a refused line names its
number, the reason and the rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp.air.strikeplot import AirPlot, Context

BEFORE, AFTER = "before", "after"  # 12.3.2 Step 2
ROLLED, FEWEST = "rolled", "fewest"  # 7.7.1
RECIPROCAL_DEFAULT, ENTRY_DEFAULT = BEFORE, FEWEST  # pbem's defaults (R125, R126)


def reciprocal(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    """12.3.2 Step 2: the side's choice should it win the initiative roll."""
    if len(words) != 1 or words[0].upper() not in ("BEFORE", "AFTER"):
        raise OrderSyntaxError("RECIPROCAL BEFORE|AFTER", rule="12.3.2")
    if "reciprocal" in plot.choices:
        raise IllegalOrderError("RECIPROCAL is given once a plot", rule="12.3.2")
    plot.choices["reciprocal"] = words[0].lower()
    return f"RECIPROCAL {words[0].upper()}"


def entry(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    """7.7.1: how strike ``<id>``'s elite-majority waves choose their entry arc."""
    if len(words) != 2 or words[1].upper() not in ("ROLLED", "FEWEST"):
        raise OrderSyntaxError("ENTRY <id> ROLLED|FEWEST", rule="7.7.1")
    if ctx.side != JAPANESE:
        raise IllegalOrderError(
            "only a Japanese wave with an elite majority chooses its entry arc", rule="7.7.1"
        )
    sid = words[0]
    if sid not in plot.air_strikes:
        raise IllegalOrderError(f"no STRIKE {sid} above this line", rule="7.7.1")
    plot.choose_entry(sid, words[1].lower())
    return f"ENTRY {sid} {words[1].upper()}"
