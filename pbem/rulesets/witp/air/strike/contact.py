"""7.1 A the contact that places the strike: the True report on the target TF, told
to the striker (and owner); then 7.3 the target priority, told to both."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.core.events import Event
from pbem.rulesets.witp import chits
from pbem.rulesets.witp.air.ships import CARRIER_TYPES, tf_ships
from pbem.rulesets.witp.air.strike.plotted import Resolution, doctrine
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.searchfacts import SearchReport
from pbem.rulesets.witp.taskforces import Ship, TaskForce

STRIKE_CONTACT = "strike-contact"  # the search-report's source when a strike tells it


@dataclass(frozen=True, slots=True)
class Target:
    """7.1 A: the target TF (its entry in the owner's TF Display, where the damage
    lands), its ships, the True report on them and the 7.3 target priority."""

    tf: TaskForce
    ships: tuple[Ship, ...]  # afloat, each named
    report: chits.Report
    priority: str  # "general" or a ship type (7.3.1)


class TargetPriority(Fact, kind="target-priority"):
    """7.3: the strike's target priority, "general" or a ship type (both told)."""

    tf: str
    priority: str


def contact(r: Resolution) -> tuple[Target, list[Event]]:
    """7.1 A the True report, then the target priority (7.3); the events told."""
    strike = r.strike
    tf, ships = tf_ships(r.work, strike.owner, strike.tf)
    report = chits.Report.of_ships(ships)
    fact = SearchReport(strike.owner, strike.tf, report.text(), STRIKE_CONTACT)
    told = [r.tell_both(fact, "7.1")]
    priority = _priority(r, report)
    told.append(r.tell_both(TargetPriority(strike.tf, priority), "7.3"))
    return Target(tf, tuple(ships), report, priority), told


def _priority(r: Resolution, report: chits.Report) -> str:
    """7.3: as plotted, else the doctrine's (R92); at night a General one (14.2.2)."""
    strike = r.strike
    if strike.night:
        return "general"  # 14.2.2: placed as for a General priority
    if strike.priority is not None:
        return strike.priority or "general"
    if doctrine(r.work, strike.side).target_priority == "specific-carriers-else-general":
        carriers = [t for t in CARRIER_TYPES if report.types.get(t)]
        return carriers[0] if carriers else "general"
    return "general"
