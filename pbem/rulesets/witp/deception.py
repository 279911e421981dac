"""The owner's search report, composed by the moderator from a standing deception
policy (a standing order, with a random legal report as the default: ruling R10,
docs/witp-rulings.md).

A side files, as standing orders, one policy per TF or for all (``ALL``):

    DECEPTION TF 3 UNDERSTATE CARRIERS OVERSTATE ESCORTS
    DECEPTION TF 7 IF FALSE REPORT 2 CV 2 CA 2 DD TOTAL 6
    DECEPTION ALL TRUE            (as near the truth as the chit allows)
    DECEPTION ALL RANDOM          (the default generator)

When a chit gives the owner a choice, ``compose`` answers from the policy with no
mail round; a fixed report the chit does not allow is refused (the owner is told
why, 13.5.7) and the goals, else the default generator, answer instead. The
default: a uniformly random legal report (each type and the total uniform over
the chit's deltas); a real TF that draws False is reported within Report Error
±3's limits; a dummy that draws False stays reported a dummy (immune to air
strikes, 13.6.4) unless its policy invents a TF (ruling R21).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.sides import Side
from pbem.rulesets.witp import chits, draws
from pbem.rulesets.witp.chits import CAPITALS, CARRIERS, TRANSPORTS, Report
from pbem.rulesets.witp.standing import ALL as ALL
from pbem.rulesets.witp.standing import Policy as Policy
from pbem.rulesets.witp.taskforces import Parts, Ship

WORD = "DECEPTION"
CLASSES = ("CARRIERS", "CAPITALS", "ESCORTS", "TRANSPORTS", "TOTAL")
GOALS = ("UNDERSTATE", "OVERSTATE")


def ship_class(t: str) -> str:
    if t in CARRIERS:
        return "CARRIERS"
    if t in CAPITALS:
        return "CAPITALS"
    return "TRANSPORTS" if t in TRANSPORTS else "ESCORTS"


def parse_line(words: Sequence[str], own_tfs: Collection[str]) -> tuple[str, Policy]:
    """A DECEPTION line -> (canonical text, policy); OrderError naming 13.5.7."""
    w = [x.upper() for x in words]
    if not w or w[0] != WORD:
        raise OrderSyntaxError("a deception policy starts with DECEPTION", rule="13.5.7")
    if len(w) >= 3 and w[1] == "TF":
        tf, rest = words[2], w[3:]
        if tf not in own_tfs:
            raise IllegalOrderError(f"you have no TF {tf}", rule="13.5.7")
        head = f"{WORD} TF {tf}"
    elif len(w) >= 2 and w[1] == "ALL":
        tf, rest, head = ALL, w[2:], f"{WORD} ALL"
    else:
        raise OrderSyntaxError("write DECEPTION TF <n> ... or DECEPTION ALL ...", rule="13.5.7")
    goals: dict[str, str] = {}
    fixed: dict[str, str] = {}
    mode = "random"
    i, parts = 0, []
    while i < len(rest):
        word = rest[i]
        if word in GOALS and i + 1 < len(rest) and rest[i + 1] in CLASSES:
            goals[rest[i + 1]] = word
            parts.append(f"{word} {rest[i + 1]}")
            i += 2
        elif word in ("TRUE", "RANDOM"):
            mode = word.lower()
            parts.append(word)
            i += 1
        elif word == "IF" and i + 2 < len(rest) and rest[i + 2] == "REPORT":
            try:
                chit = chits.chit_id(rest[i + 1])
            except ValueError as e:
                raise OrderSyntaxError(str(e), rule="13.5.1") from None
            report = chits.parse_report(rest[i + 3 :])
            fixed[chit] = report.text()
            parts.append(f"IF {chit.upper()} REPORT {report.text()}")
            break
        else:
            raise OrderSyntaxError(
                f"{word!r}: write UNDERSTATE/OVERSTATE {'/'.join(CLASSES)}, TRUE, RANDOM "
                "or IF <chit> REPORT <report>",
                rule="13.5.7",
            )
    return " ".join([head, *parts]), Policy(tf, goals, fixed, mode)


def policies(parts: Parts, side: str) -> dict[str, Policy]:
    """The side's standing policies by TF (``ALL``: every TF), in the round's Work or
    as the side knows them."""
    return dict(parts.part(side).orders().policies())


def policy(parts: Parts, owner: Side, tf: str) -> Policy:
    """The owner's policy for ``tf`` (its standing orders): its own, else ALL's,
    else the default."""
    filed = policies(parts, owner)
    return filed.get(tf) or filed.get(ALL) or Policy()


def _pick(
    lo: int, hi: int, goal: str | None, truth: int, mode: str, secret: Dice, what: str
) -> int:
    if goal == "UNDERSTATE":
        return lo
    if goal == "OVERSTATE":
        return hi
    if mode == "true":
        return min(max(truth, lo), hi)
    return lo + draws.below(secret, hi - lo + 1, f"deception {what}")


def _ranges(truth: Report, chit: str) -> dict[str, tuple[int, int]]:
    """A per-type range every combination of which the chit allows."""
    k = chits.level(chit) if chit != "false" else 3
    flexible = chit == "false" or (
        chit.startswith("error") and any(truth.types.get(t, 0) for t in CAPITALS)
    )
    out = {}
    for t, a in truth.types.items():
        low = max(0, a - k) if flexible and t in CARRIERS + CAPITALS else max(1, a - k)
        out[t] = (low, a + k)
    return out


def compose(
    ships: Sequence[Ship],
    dummy: bool,
    chit: str,
    policy: Policy,
    secret: Dice,
) -> tuple[Report, str | None]:
    """The owner's report under ``chit`` and ``policy``; the second item says why a
    fixed report was refused (told to the owner only), else None."""
    refused = None
    text = policy.fixed.get(chit) or policy.fixed.get("any")
    if text:
        report = chits.parse_report(text.replace(";", " ").split())
        why = chits.problems(ships, dummy, chit, report)
        if not why:
            return report, None
        refused = f"your report {text!r} is not allowed by the chit: {'; '.join(why)}"
    truth = Report.of_ships(ships)
    if dummy or not ships or chit == "true":
        return truth, refused
    goals, mode = policy.goals, policy.mode
    types = {
        t: _pick(lo, hi, goals.get(ship_class(t)), truth.types[t], mode, secret, t)
        for t, (lo, hi) in sorted(_ranges(truth, chit).items())
    }
    k = chits.level(chit) if chit != "false" else 3
    n = truth.total
    total = _pick(max(1, n - 5 * k), n + 5 * k, goals.get("TOTAL"), n, mode, secret, "total")
    report = Report(False, {t: c for t, c in types.items() if c}, total)
    if chits.problems(ships, dummy, chit, report):  # cannot happen: ranges are legal
        return truth, refused
    return report, refused
