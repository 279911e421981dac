"""Quiet rounds: a side with nothing to decide is sent no report (core.ruleset.QuietRounds).

After an adjudication a side's player (or a side's observer) of such a ruleset is
mailed only if the side owes orders in the phase just opened; the game's first
report and its last go to everyone. Whether a side owes orders is public (every
report names who owes the next phase), so whether a mail comes tells the side
nothing it did not know, whatever the other side did.

The report it is sent next tells every round since its last one: the events of the
adjudications in between (``carried``), those it may see only, before the round's
own. They are read from the record, so a report rendered later (a dead daemon's
note) tells the same.
"""

from __future__ import annotations

from pbem.core.events import Event
from pbem.core.ruleset import QuietRounds, Ruleset
from pbem.lifecycle.lookups import Lookups
from pbem.record import journal
from pbem.storage.models import Phase, Seat


def applies(ruleset: Ruleset) -> bool:
    return isinstance(ruleset, QuietRounds) and bool(ruleset.quiet_rounds)


def skipped(ruleset: Ruleset, seat: Seat, phase: Phase, first: bool) -> bool:
    """Whether ``seat`` is sent no report as ``phase`` opens: a side's seat whose side
    owes no orders in it (never the game's first report, nor an omniscient seat's)."""
    return (
        applies(ruleset) and not first and seat.side is not None and (seat.side not in phase.sides)
    )


def unreported(lookups: Lookups, game_id: str, phase: Phase, side: str) -> list[int]:
    """The seqs of the adjudicated phases before the one just adjudicated whose reports
    ``side`` was not sent (oldest first): walking back, the adjudication of phase j
    was reported to it iff it owed orders in phase j + 1."""
    line = {p.seq: p for p in lookups.line_of_play(game_id)}
    out: list[int] = []
    j = phase.seq - 2  # phase.seq - 1 was just adjudicated: its events are the round's
    while j >= 1 and j in line and side not in line[j + 1].sides:
        out.append(j)
        j -= 1
    return out[::-1]


def carried(
    lookups: Lookups, game_id: str, phase: Phase, side: str
) -> tuple[list[Event], list[str]]:
    """The events ``side`` may see of the adjudications it was sent no report of since
    its last one, in order, and those phases' names."""
    seqs = unreported(lookups, game_id, phase, side)
    if not seqs:
        return [], []
    line = {p.seq: p for p in lookups.line_of_play(game_id)}
    wanted = {(s, line[s].epoch) for s in seqs}
    found: dict[int, list[Event]] = {}
    for entry in journal.entries(lookups.s, game_id, kinds=("phase-adjudicated",)):
        p = entry["payload"]
        key = (int(p["seq"]), int(p.get("epoch", 0)))
        if key in wanted:  # the last of a seq and epoch is the one in the line of play
            found[key[0]] = [Event.from_json(e) for e in p.get("events", [])]
    events = [e for s in seqs for e in found.get(s, []) if e.seen_by(side)]
    return events, [line[s].name for s in seqs]
