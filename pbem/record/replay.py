"""Re-running a game from its record: the basis of rollback and of ``pbem verify``.

Every adjudication entry carries the revealed seed and plots; re-running the
ruleset from the scenario's initial state with them must give back the same
rolls, events and states. A rollback entry cuts the line of play back to the
phase it names, so later adjudications continue from the recomputed state; a
moderator's correcting edit (``state-edited``) is applied again where it was made.
A game the moderator moved to newer rules (``rules-upgraded``) is re-run from the
state the upgrade recorded: the phases before it were played by other rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.core.dice import SeededDice, seed_commitment
from pbem.core.ruleset import Ruleset, State
from pbem.record.chain import canonical_json, state_hash
from pbem.record.edits import EditError, apply_edit
from pbem.record.rules import last_upgrade
from pbem.secrecy.plots import PlotContent


class ReplayError(Exception):
    pass


@dataclass
class ReplayReport:
    states: dict[int, State] = field(default_factory=dict)  # seq -> state the phase starts from
    problems: list[str] = field(default_factory=list)
    phases_checked: int = 0
    rolls_checked: int = 0
    commitments_checked: int = 0


def replay(
    ruleset: Ruleset,
    game_id: str,
    scenario: str,
    options: Mapping[str, Any],
    entries: Iterable[Mapping[str, Any]],
    *,
    start: int | None = None,
) -> ReplayReport:
    """Walk the record, re-adjudicating every phase, and list every difference.
    ``start``: the record seq of the UPGRADE (``rules-upgraded``) from which
    ``ruleset`` played the game; the phases before are checked against their
    commitments only, not re-run."""
    report = ReplayReport()
    announced: dict[int, str] = {}  # seq -> seed commitment announced at phase open
    sealed: dict[tuple[int, str], str] = {}  # (seq, side) -> last receipt commitment
    opening: dict[int, str] = {}  # seq -> hash of the state the phase stands on now
    for entry in entries:
        kind, p = entry["kind"], entry["payload"]
        before = start is not None and int(entry["seq"]) < start
        if kind == "phase-opened":
            opening[int(p["seq"])] = p["state_hash"]
        elif kind == "state-edited":
            opening[int(p["phase_seq"])] = p["state_hash"]
        if before and kind in ("game-started", "phase-opened", "state-edited"):
            if kind == "phase-opened":
                announced[int(p["seq"])] = p["seed_commitment"]
            continue  # played by the rules before the upgrade: no state to check
        if kind == "rules-upgraded" and p.get("state") is not None:
            _upgraded(p, opening, report)
        elif kind == "orders-sealed":
            sealed[(int(p["phase_seq"]), p["side"])] = p["commitment"]
        elif kind == "done-said":
            # DONE lets the last receipted plot stand: it must be the one named.
            if sealed.get((int(p["phase_seq"]), p["side"])) != p["commitment"]:
                report.problems.append(
                    f"phase {p['phase_seq']}: {p['side']}'s DONE names a plot not receipted"
                )
        elif kind == "game-started":
            initial = ruleset.initial_state(scenario, options)
            if state_hash(initial) != p["state_hash"]:
                report.problems.append("the scenario's initial state differs from the record's")
            report.states = {1: initial}
        elif kind == "rolled-back":
            cut = int(p["to_seq"])
            report.states = {k: v for k, v in report.states.items() if k <= cut}
            if p.get("replot"):
                sealed = {k: v for k, v in sealed.items() if k[0] < cut}
        elif kind == "phase-opened":
            seq = int(p["seq"])
            announced[seq] = p["seed_commitment"]
            state = report.states.get(seq)
            if state is None or state_hash(state) != p["state_hash"]:
                report.problems.append(
                    f"phase {seq} (turn {p['turn']} {p['phase']}): opening state differs"
                )
        elif kind == "state-edited":
            _apply_edit(p, report)
        elif kind == "phase-adjudicated":
            seq = int(p["seq"])
            if announced.get(seq) != p["seed_commitment"]:
                report.problems.append(
                    f"phase {seq}: the seed used is not the one committed to at phase open"
                )
            for side, plot in p["plots"].items():
                if plot.get("commitment") and sealed.get((seq, side)) != plot["commitment"]:
                    report.problems.append(
                        f"phase {seq}: {side}'s plot is not the one receipted to the player"
                    )
            _check_commitments(game_id, p, report)
            if not before:
                _check_phase(ruleset, game_id, p, report)
    return report


def _upgraded(p: Mapping[str, Any], opening: Mapping[int, str], report: ReplayReport) -> None:
    """The moderator's UPGRADE: the newer rules play on from the state it recorded,
    which must be the state the phase stood on."""
    seq, state = int(p["phase_seq"]), p["state"]
    if state_hash(state) != p["state_hash"] or opening.get(seq) != p["state_hash"]:
        report.problems.append(f"phase {seq}: the state the UPGRADE recorded is not the phase's")
        return
    report.states[seq] = state


def _apply_edit(p: Mapping[str, Any], report: ReplayReport) -> None:
    """A moderator's correcting edit of an open phase's state, made again."""
    seq = int(p["phase_seq"])
    where = f"phase {seq} (turn {p['turn']} {p['phase']})"
    state = report.states.get(seq)
    if state is None or state_hash(state) != p["before_hash"]:
        report.problems.append(f"{where}: the state edited at {p['pointer']} is not the record's")
        return
    try:
        new_state, _old = apply_edit(state, str(p["pointer"]), p["value"])
    except EditError as exc:
        report.problems.append(f"{where}: the recorded edit does not apply: {exc}")
        return
    if state_hash(new_state) != p["state_hash"]:
        report.problems.append(f"{where}: the edit at {p['pointer']} gives another state")
    report.states[seq] = new_state


def _check_commitments(game_id: str, p: Mapping[str, Any], report: ReplayReport) -> None:
    """The revealed seed and every plot opened match what was committed to."""
    where = f"phase {p['seq']} (turn {p['turn']} {p['phase']})"
    if seed_commitment(bytes.fromhex(p["seed"])) != p["seed_commitment"]:
        report.problems.append(f"{where}: revealed seed does not match its commitment")
    for side, plot in p["plots"].items():
        if plot.get("commitment"):
            content = PlotContent(
                game_id, side, int(p["turn"]), str(p["phase"]), tuple(plot["orders"]), plot["nonce"]
            )
            report.commitments_checked += 1
            if content.commitment() != plot["commitment"]:
                report.problems.append(f"{where}: {side}'s plot does not match its commitment")


def _check_phase(
    ruleset: Ruleset, game_id: str, p: Mapping[str, Any], report: ReplayReport
) -> None:
    seq = int(p["seq"])
    where = f"phase {seq} (turn {p['turn']} {p['phase']})"
    state = report.states.get(seq)
    if state is None:
        report.problems.append(f"{where}: no state to start from")
        return
    orders = {side: tuple(plot["orders"]) for side, plot in p["plots"].items()}
    dice = SeededDice(bytes.fromhex(p["seed"]), game_id, int(p["turn"]), str(p["phase"]))
    result = ruleset.adjudicate(state, orders, dice)
    new_state = dict(result.state)
    rolls = [[v, purpose] for v, purpose in dice.rolls]
    report.rolls_checked += len(rolls)
    if rolls != [list(r) for r in p["rolls"]]:
        report.problems.append(f"{where}: die rolls differ from the record")
    if canonical_json([e.to_json() for e in result.events]) != canonical_json(p["events"]):
        report.problems.append(f"{where}: events differ from the record")
    if state_hash(new_state) != p["result_hash"]:
        report.problems.append(f"{where}: resulting state differs from the record")
    report.states[seq + 1] = new_state
    report.phases_checked += 1


def replay_line(
    ruleset: Ruleset,
    game_id: str,
    scenario: str,
    options: Mapping[str, Any],
    entries: Iterable[Mapping[str, Any]],
) -> dict[int, State]:
    """The state each phase of the current line of play starts from, recomputed (from
    the last UPGRADE on: the phases before it were played by other rules)."""
    entries = list(entries)
    upgrade = last_upgrade(entries)
    start = None if upgrade is None else int(upgrade["seq"])
    report = replay(ruleset, game_id, scenario, options, entries, start=start)
    if report.problems:
        raise ReplayError("; ".join(report.problems))
    return report.states
