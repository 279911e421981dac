"""The U.S.N. hook table: where scenario and optional rules enter the engine.

The engine (movement, transport, supply, victory) consults ``HOOKS[hook]``;
scenario_rules.py, indian_ocean.py and ferry.py fill the hooks they implement
when imported, and the ruleset imports them all. The engine never imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from pbem.core.hooks import Hook, HookTable
from pbem.core.sides import Side
from pbem.rulesets.usn.geo import Geo
from pbem.rulesets.usn.state import GameState, Unit
from pbem.rulesets.usn.work import Work

HOOKS = HookTable()

# --- scenario special rules and garrisons (scenario_rules.py) -----------------------
NAVAL_PATH: Hook[Callable[[Work, Sequence[Unit], Iterable[str]], None]] = HOOKS.declare(
    "naval-path", "MINI.SOLOMONS.SR"
)
NAVAL_BASE_BARRED: Hook[Callable[[GameState, Side, int], bool]] = HOOKS.declare(
    "naval-base-barred", "CG1.PHILFORT.MANILA"
)
ENTRENCH_FREE: Hook[Callable[[GameState, Unit], bool]] = HOOKS.declare(
    "entrench-free", "CG1.PHILFORT"
)
ISOLATION_IMMUNE: Hook[Callable[[GameState, Unit], bool]] = HOOKS.declare(
    "isolation-immune", "CG1.PHILFORT"
)
GARRISON_UNIT: Hook[Callable[[Work, Unit], None]] = HOOKS.declare("garrison-unit", "OPT.GAR.FIXED")
GARRISON_AIR: Hook[Callable[[Work, str, str, int], None]] = HOOKS.declare(
    "garrison-air", "OPT.GAR.FIXED"
)
GARRISONS_SHORT: Hook[Callable[[GameState], list[str]]] = HOOKS.declare(
    "garrisons-short", "OPT.GAR.FIXED"
)
UNGARRISONED: Hook[Callable[[Geo, GameState], dict[str, list[str]]]] = HOOKS.declare(
    "ungarrisoned", "OPT.GAR.END"
)

# --- the Indian Ocean raid (indian_ocean.py) -----------------------------------------
PHASES_OFF_WEST: Hook[Callable[[Unit], int | None]] = HOOKS.declare("phases-off-west", "CG1.INDIAN")
MAY_RETURN_WEST: Hook[Callable[[GameState, Unit], bool]] = HOOKS.declare(
    "may-return-west", "CG1.INDIAN"
)
LEAVE_WEST: Hook[Callable[[Work, Unit], None]] = HOOKS.declare("leave-west", "OFF.WEST.J")
ENTER_WEST: Hook[Callable[[Work, Unit, int], None]] = HOOKS.declare("enter-west", "CG1.INDIAN")
RETURNED_WEST: Hook[Callable[[Work, Unit], None]] = HOOKS.declare("returned-west", "CG1.INDIAN")
ADVANCE_WEST: Hook[Callable[[Work], None]] = HOOKS.declare("advance-west", "CG1.INDIAN")

# --- the ferry carriers (ferry.py) ---------------------------------------------------
LAUNCH = "launch"  # the ways through a ferry carrier
RECEIVE = "receive"
FERRY_ROOM: Hook[Callable[[Work, Side, str, str], int | None]] = HOOKS.declare(
    "ferry-room", "OPT.FERRY"
)
FERRY_CHECK: Hook[Callable[[Work, Side, str, str, int], None]] = HOOKS.declare(
    "ferry-check", "OPT.FERRY"
)
FERRY_RECORD: Hook[Callable[[Work, Side, str, str, int], None]] = HOOKS.declare(
    "ferry-record", "OPT.FERRY"
)
