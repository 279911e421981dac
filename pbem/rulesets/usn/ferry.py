"""OPT.FERRY: the Japanese ferry carriers launch or receive one air point a phase.

The optional rule names Taiyo, Unyo and Chuyo; the counters are CVE-1..3 (pbem's
reading: the counter sheet is lost, docs/usn-data.md), listed with the limit in the scenario data
(``[optional_rules.ferry_carriers]``). Reading of "launch or receive one air point
per Movement or Combat Phase": one point launched *and* one point received per
phase (so a point flown off in a strike can come back aboard in the same combat
phase). A phase is the Game-Turn and the sequence step (2, 5, 7, 9).

Counts live in ``state.extra["ferry"]`` = ``{"phase": stamp, "launch": {uid: n},
"receive": {uid: n}}``; a stamp of another phase means nothing has been used yet.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.errors import IllegalOrderError
from pbem.core.sides import JAPANESE, Side
from pbem.rulesets.usn import world
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.hooks import (
    FERRY_CHECK,
    FERRY_RECORD,
    FERRY_ROOM,
    HOOKS,
    LAUNCH,
    RECEIVE,
)
from pbem.rulesets.usn.work import Work


def _rule(w: Work) -> Any:
    return world.optional(w.state).get("ferry_carriers")


def is_ferry(w: Work, side: Side, loc: Location) -> bool:
    """OPT.FERRY: is this location one of the Japanese ferry carriers (option on)?"""
    rule = _rule(w)
    return side == JAPANESE and rule is not None and loc in rule.get("units", ())


def _stamp(w: Work) -> int:
    return w.state.turn * 100 + w.step


def _used(w: Work, way: str) -> dict[str, int]:
    rec = w.state.extra.get("ferry", {})
    if rec.get("phase") != _stamp(w):
        return {}
    return dict(rec.get(way, {}))


def room(w: Work, side: Side, loc: Location, way: str) -> int | None:
    """Air points the ferry carrier may still launch/receive this phase (None: no limit)."""
    if not is_ferry(w, side, loc):
        return None
    limit = int(_rule(w).get("air_points_per_phase", 1))
    return max(0, limit - _used(w, way).get(loc, 0))


def check(w: Work, side: Side, loc: Location, way: str, points: int) -> None:
    """OPT.FERRY: refuse more than the phase's allowance through a ferry carrier."""
    left = room(w, side, loc, way)
    if left is not None and points > left:
        raise IllegalOrderError(
            f"{loc} is a ferry carrier: it may {way} {left} more air point(s) this phase",
            rule="OPT.FERRY",
        )


def record(w: Work, side: Side, loc: Location, way: str, points: int) -> None:
    """Count points launched from or received by a ferry carrier this phase."""
    if points <= 0 or not is_ferry(w, side, loc):
        return
    rec = w.state.extra.get("ferry", {})
    fresh = rec.get("phase") != _stamp(w)
    counts: dict[str, dict[str, int]] = {
        k: {} if fresh else dict(rec.get(k, {})) for k in (LAUNCH, RECEIVE)
    }
    counts[way][loc] = counts[way].get(loc, 0) + points
    new = {"phase": _stamp(w), **counts}
    w.state = replace(w.state, extra={**w.state.extra, "ferry": new})


HOOKS.fill(FERRY_ROOM, room)
HOOKS.fill(FERRY_CHECK, check)
HOOKS.fill(FERRY_RECORD, record)
