"""Golden replay of War in the Pacific: Coral Sea, May 1942, every round, byte for byte.

The engine's whole output for one game (the demand, each side's order form and its
answer to the orders it sent, the events, the state after each round, every audience's
view and the verdict) is pinned by SHA-256 of its canonical JSON, round by round, in
``witp/coral-sea-1942.json``, with the orders the scripted players sent (recorded,
so this test does not depend on the demonstration's players). A refactoring of the
ruleset that changes nothing a player or the record can see passes; anything else
names the first round and the part that moved.

To see what moved, dump every part on both sides of a change and diff the folders:

    PBEM_GOLDEN_DUMP=/tmp/after python -m pytest tests/golden/test_witp_replay.py

After an intended change of the rules, regenerate (the orders are kept unless
PBEM_GOLDEN_REPLAY_PLAYERS=1 asks the scripted players again) and review:

    PBEM_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_witp_replay.py
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.ruleset import Ruleset
from pbem.reports.context import Header
from pbem.reports.report import render_report
from pbem.rulesets import get

SCENARIO = "coral-sea-1942"
GOLDEN = Path(__file__).parent / "witp" / f"{SCENARIO}.json"
SEED = b"golden-witp-replay"
AUDIENCES: tuple[str | None, ...] = ("japanese", "allied", None)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()


def _report_text(rs: Ruleset, state: Any, events: Any, side: str, form: str) -> str:
    """The report a scripted player reads: the text the daemon would mail him."""
    header = Header(
        "golden", "witp", rs.title, SCENARIO, side, side, f"golden: {side}", order_form=form
    )
    return render_report(header, rs.view(state, events, side), with_map=False).text


def _players() -> Mapping[str, Callable[[str, str], str]]:
    try:
        from pbem.demo.witp import strategy  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # before the demo became a package
        from pbem.demo_witp import strategy  # type: ignore[import-not-found,no-redef,unused-ignore]
    return {side: strategy(side, SCENARIO) for side in ("japanese", "allied")}


def play(recorded: list[Mapping[str, Any]] | None) -> dict[str, Any]:
    """Play the scenario through; ``recorded``: the orders of a previous run, round
    by round (None: ask the scripted players)."""
    rs = get("witp")
    players = _players() if recorded is None else {}
    state: Any = rs.initial_state(SCENARIO, {})
    events: Any = ()
    rounds: list[dict[str, Any]] = []
    dump = os.environ.get("PBEM_GOLDEN_DUMP")
    while (demand := rs.pending(state)) is not None:
        n = len(rounds)
        head = f"Game: golden\nTurn: {demand.turn}\nPhase: {demand.phase}\n\n"
        forms = {side: head + rs.order_template(state, side) for side in demand.sides}
        if recorded is None:
            orders = {
                side: players[side](forms[side], _report_text(rs, state, events, side, forms[side]))
                for side in demand.sides
            }
        else:
            orders = dict(recorded[n]["orders"])
        answers = {side: rs.validate(state, side, orders[side]) for side in demand.sides}
        accepted = {
            side: answers[side].accepted or rs.default_orders(state, side) for side in demand.sides
        }
        dice = SeededDice(SEED, "golden", demand.turn, demand.phase)
        result = rs.adjudicate(state, accepted, dice)
        state, events = result.state, result.events
        parts: dict[str, Any] = {
            "demand": asdict(demand),
            "forms": forms,
            "answers": {side: asdict(a) for side, a in answers.items()},
            "rolls": dice.rolls,
            "events": [asdict(e) for e in events],
            "state": state,
            "views": {str(a): rs.view(state, events, a) for a in AUDIENCES},
        }
        if dump:
            folder = Path(dump) / f"{n:03d}-{demand.phase}"
            folder.mkdir(parents=True, exist_ok=True)
            for name, value in parts.items():
                (folder / f"{name}.json").write_text(
                    json.dumps(value, sort_keys=True, indent=1, default=str)
                )
        rounds.append(
            {
                "phase": f"T{demand.turn} {demand.phase}",
                "orders": orders,
                "digests": {name: digest(value) for name, value in parts.items()},
            }
        )
    outcome = rs.outcome(state)
    return {"rounds": rounds, "outcome": asdict(outcome) if outcome else None}


def test_witp_coral_sea_replays_byte_for_byte() -> None:
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else None
    fresh = os.environ.get("PBEM_GOLDEN_REPLAY_PLAYERS") or golden is None
    got = play(None if fresh else golden["rounds"])
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        golden = got
    assert golden is not None, f"{GOLDEN} is missing: run with PBEM_UPDATE_GOLDEN=1"
    assert len(got["rounds"]) == len(golden["rounds"]), "the game has another number of rounds"
    for mine, theirs in zip(got["rounds"], golden["rounds"], strict=True):
        moved = [k for k in theirs["digests"] if mine["digests"].get(k) != theirs["digests"][k]]
        assert not moved, f"round {mine['phase']}: {', '.join(moved)} differ from the golden run"
    assert got["outcome"] == golden["outcome"]
    # The game is a real one: strikes flew and the verdict is the scenario's.
    assert got["outcome"] is not None and len(got["rounds"]) > 10
