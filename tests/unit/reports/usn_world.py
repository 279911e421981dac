"""A small known U.S.N. position for report tests, played through the ruleset.

Built with the rules tests' stub world (tests/unit/rulesets/usn/builders.py):
the Japanese sail a loaded transport and a carrier group, the Allies watch
from a cruiser and a base. Not a rulebook scenario: a test position.
"""

from __future__ import annotations

from typing import Any

from pbem.rulesets.usn.state import Air, GameState
from tests.unit.rulesets.usn.builders import HOME, Game, H, base, land, make_state, ship

J, A = "japanese", "allied"
PORT = HOME[0]
ALLIED_BASE = H(8, 3)


def world(fog: str = "open") -> Game:
    units = [
        ship(J, "CV-1", PORT, ma=5),
        ship(J, "DD-1", PORT, ma=6),
        ship(J, "TR-1", PORT, ma=3),
        land(J, "RGT-1", PORT),
        ship(A, "CA-1", H(6, 2), ma=5),
        ship(A, "DD-2", ALLIED_BASE, ma=6, in_base=True),
    ]
    state = make_state(
        units,
        air={
            J: {"CV-1": Air(nac=6), f"{PORT:04d}": Air(lac=4)},
            A: {f"{ALLIED_BASE:04d}": Air(lac=3)},
        },
        bases=[base(PORT, J, air=5), base(ALLIED_BASE, A, air=4)],
        options={"fog": fog},
        vp={J: 2, A: 1},
    )
    return Game(state)


def played(fog: str = "open") -> tuple[Game, dict[str, Any]]:
    """The Japanese J-2 round: load the transport, sail two stacks east."""
    g = world(fog)
    orders = (
        f"EMBARK TR-1 RGT-1\nCONTINUE TR-1 {H(2, 1):04d}\n"
        f"MOVE CV-1 DD-1 {H(2, 1):04d} {H(3, 1):04d} {H(4, 1):04d}"
    )
    g.play({J: orders})
    return g, g.state


def state_of(g: Game) -> GameState:
    return g.s
