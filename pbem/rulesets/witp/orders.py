"""Stage 0 orders: a naval Plot Segment takes PASS (or nothing) and refuses the rest.

Mission cards (16.3) come in stage 1; until then every round's only order is
``PASS``: the side plots no mission. Each refused line names its number, the
reason and the rule (docs/witp-orders.md). Judged from the side's Knowledge
alone, as every answer to a side is.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrderError, OrderError, OrderSyntaxError
from pbem.core.refusals import line_error
from pbem.core.ruleset import LineError, Validation
from pbem.rulesets.witp.clock import Round

PASS = "PASS"


def _judge(line: str, rnd: Round) -> str:
    words = line.split()
    if words[0].upper() == PASS:
        if len(words) > 1:
            raise OrderSyntaxError("PASS takes nothing after it", rule="3.1 C")
        return PASS
    if words[0].upper() in ("TF", "MOVE", "REGP", "LINK", "FUEL", "TRAN", "REAC", "MISSION"):
        raise IllegalOrderError(
            f"mission cards are not moderated yet in {rnd.name}: write PASS (or send nothing)",
            rule="16.3",
        )
    raise OrderSyntaxError(
        f"{words[0]!r} is not an order of {rnd.name}; the only order is PASS", rule="3.1 C"
    )


def validate(rnd: Round | None, side: str, text: str) -> Validation:
    if rnd is None:
        return Validation((), (LineError(0, "", "the game is over", None),))
    if side not in rnd.sides:
        return Validation(
            (), (LineError(0, "", f"no orders are due from {side} in {rnd.name}", "3.1"),)
        )
    accepted: list[str] = []
    errors: list[LineError] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            order = _judge(line.strip(), rnd)
        except OrderError as e:
            errors.append(line_error(number, line, e))
            continue
        if order not in accepted:
            accepted.append(order)
    return Validation(tuple(accepted), tuple(errors))


def template(rnd: Round | None, side: str) -> str:
    if rnd is None or side not in rnd.sides:
        return ""
    head = rnd.slots[0]
    return "\n".join(
        [
            f"# {rnd.name}: {head.phase.title}, {head.segment.title} ({head.phase.rule}, {head.segment.rule})",
            "# Stage 0: mission cards are not moderated yet. PASS plots no mission;",
            "# an empty order set means the same (docs/witp-orders.md).",
            PASS,
            "",
        ]
    )
