"""7.7.1 the elite wave's entry arc (R126): a Japanese wave whose APs are mostly
"elite" (7.11) enters at the outer arc rolled or at either adjacent one, at the
Japanese player's option. The option is filed with the plot (``ENTRY <id>
ROLLED|FEWEST``, air/choices.py); none filed: FEWEST, the arc (of the three) whose
path of approach passes the fewest ships (the fewest AA guns, 7.7.4), ties to the
arc rolled, then the lower. The choice reads only the face-down placement the
striker was told (7.2.1): ships by ring and arc.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.core.sides import JAPANESE
from pbem.rulesets.witp.air import display, flying
from pbem.rulesets.witp.air.choices import ENTRY_DEFAULT, ROLLED
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.tables import DISPLAY, Pack, value


def elite_majority(aps: Sequence[FlyingElement]) -> bool:
    """7.7.1, 7.11: more than half the wave's APs elite (half is no majority, R114)."""
    return 2 * flying.aps(a for a in aps if a.elite) > flying.aps(aps)


def adjacent(pack: Pack, arc: int) -> list[int]:
    """The arc and its two neighbours on the outer ring (arc 1 is next to the last)."""
    n = int(value(pack, DISPLAY)["rings"]["outer"])
    return [arc, (arc - 2) % n + 1, arc % n + 1]


def _ships_on_path(
    pack: Pack, positions: Mapping[str, display.Position], arc: int, priority: str
) -> int:
    ring = display.target_ring(positions, arc, pack, priority)
    return len(display.on_path(positions, display.path(pack, arc, ring)))


def choose(
    pack: Pack,
    positions: Mapping[str, display.Position],
    rolled: int,
    priority: str,
    side: str,
    choice: str | None,
    aps: Sequence[FlyingElement],
) -> int:
    """The arc the wave enters at: the one rolled, or the elite wave's choice (its
    strike's ``choice`` filed with the plot, None: the default)."""
    if side != JAPANESE or not elite_majority(aps):
        return rolled
    if (choice or ENTRY_DEFAULT) == ROLLED:
        return rolled
    arcs = adjacent(pack, rolled)
    return min(arcs, key=lambda a: (_ships_on_path(pack, positions, a, priority), a != rolled, a))
