"""A side's standing orders read and kept in the round's work area (the records:
standing.py, low in the import graph, which the side's part, sidepart.py, holds)."""

from __future__ import annotations

from pbem.core.sides import Side
from pbem.rulesets.witp.standing import Standing
from pbem.rulesets.witp.work import Work


def standing(work: Work, side: Side) -> Standing:
    """``side``'s standing orders in the round's working copy."""
    return work.part(side).orders()


def put(work: Work, side: Side, orders: Standing) -> None:
    """Keep ``orders`` as ``side``'s standing orders."""
    work.put_part(side, work.part(side).put(standing=orders))
