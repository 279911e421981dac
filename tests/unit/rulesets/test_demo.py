"""The demonstration ruleset answers every order line through the core error taxonomy."""

from __future__ import annotations

from pbem.core.ruleset import LineError
from pbem.rulesets.demo import RaidRuleset


def test_demo_orders_each_bad_line_answered_with_its_rule() -> None:
    raid = RaidRuleset()
    state = raid.initial_state("duel", {})
    text = "SEND SQN-1 A\nFLY SQN-2 B\nSEND SQN-9 B\nSEND SQN-2 Z\nSEND SQN-1 C\nSEND SQN-3 C"
    v = raid.validate(state, "north", text)
    assert v.accepted == ("SEND SQN-1 A", "SEND SQN-3 C")
    assert v.errors == (
        LineError(2, "FLY SQN-2 B", "expected: SEND <squadron> <zone>", "DEMO.ORDERS"),
        LineError(
            3,
            "SEND SQN-9 B",
            "SQN-9 is not one of your squadrons (SQN-1, SQN-2, SQN-3)",
            "DEMO.ORDERS",
        ),
        LineError(4, "SEND SQN-2 Z", "zone Z does not exist; zones are A, B, C", "DEMO.ORDERS"),
        LineError(5, "SEND SQN-1 C", "SQN-1 is already ordered", "DEMO.ONCE"),
    )
