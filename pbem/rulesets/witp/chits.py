"""13.5 Search Effectiveness Chits: the three cups, blind draws, the chits a TF
holds, and the validator of the owner's report.

The cups (13.5.1, printed) live in the moderator's part of the state; a drawn
chit stays with its TF (``held``) and out of its cup until the TF is definitively
revealed, the end of an even-numbered Game-Turn, or deactivation (13.5, 13.6.5).
The searcher never learns the chit (13.5.7): only the report built from it
crosses, by ``disclose``. ``problems`` is the 13.5.7 matrix as checks: it
refuses any report the drawn chit does not allow, with the rule.

Counting (13.5.8): "ship" is any naval unit, so a counter is one ship (ruling
R20, docs/witp-rulings.md); carriers CV, CVL, CVE, XCV; capital ships BB, BC, CA.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pbem.core.dice import Dice
from pbem.core.errors import AdjudicationError, OrderSyntaxError
from pbem.core.sides import Side
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.moderatorrecords import ChitCups
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.taskforces import Ship

if TYPE_CHECKING:
    from pbem.rulesets.witp.work import Work

CUPS_TABLE = "tables/search-chit-cups"
CHITS = ("true", "approx-1", "approx-2", "error-1", "error-2", "error-3", "false")
CARRIERS = ("CV", "CVL", "CVE", "XCV")
SWAPPABLE = ("CVE", "CVL", "CV")  # 13.5.7 Report Error: CVE <-> CVL <-> CV
CAPITALS = ("BB", "BC", "CA")
TRANSPORTS = ("APA", "APB", "MSU")
DAMAGE_REPORTED = ("APB", "MSU")  # Report True: "number and damage level of each"
INTENSIVE, NORMAL, SQUALL = "cup1", "cup2", "cup3"


def chit_id(name: str) -> str:
    """'approx1', 'Approx-1', 'approx ±1' -> 'approx-1' (both packs' spellings)."""
    m = re.fullmatch(r"\s*(true|false|approx|error)\s*[-±+]*\s*([123]?)\s*", name.lower())
    if not m or (m.group(1) in ("true", "false")) == bool(m.group(2)):
        raise ValueError(f"{name!r} is not a search chit ({', '.join(CHITS)})")
    return m.group(1) + (f"-{m.group(2)}" if m.group(2) else "")


def level(chit: str) -> int:
    """The chit's ± level (0 for True and False)."""
    return int(chit.rsplit("-", 1)[1]) if "-" in chit else 0


# -- the cups ----------------------------------------------------------------


def tf_key(side: str, tf: str) -> str:
    return f"{side}:{tf}"


def chit_cups(work: Work) -> ChitCups:
    """The moderator's search record as the round has it now: the cups, the held
    chits (and search's Naval Phase record); made on first use from the printed cups
    (13.5.1)."""
    mod = work.moderator()
    search = mod.search
    if search is ABSENT:
        full = work.pack[CUPS_TABLE].value
        cups = {
            cup: {chit_id(k): int(v) for k, v in full[cup].items()}
            for cup in (INTENSIVE, NORMAL, SQUALL)
        }
        search = ChitCups(cups, {})
        work.put_moderator(mod.put(search=search))
    return search


def keep(work: Work, cups: ChitCups) -> None:
    """Write ``cups`` back into the round's working copy (its other records stay)."""
    work.put_moderator(work.moderator().put(search=cups))


def draw(work: Work, side: Side, tf: str, cup: str, secret: Dice) -> str:
    """13.5.3: the owner of ``side``'s TF ``tf`` blindly draws from ``cup`` (Cup 3
    if Cup 2 is empty, 13.5.6); the chit stays with the TF."""
    cups = chit_cups(work)
    if cup == NORMAL and not cups.left(NORMAL):
        cup = SQUALL
    if cup in (SQUALL, INTENSIVE) and not cups.left(cup):
        cups = _refill(cups, cup)  # ruling R57: Cups 2 and 3 both out (or Cup 1)
    pool = [c for c in CHITS for _ in range(cups.cups[cup].get(c, 0))]
    if not pool:
        raise AdjudicationError(f"search chit {cup} is empty and {tf} must draw")
    chit = pool[draws.below(secret, len(pool), f"search chit {cup} {side} {tf}")]
    keep(work, cups.drawn(tf_key(side, tf), cup, chit))
    return chit


def _refill(cups: ChitCups, cup: str) -> ChitCups:
    """Ruling R57: a cup the rules would have drawn from is empty (Cup 2 and Cup 3
    both, or Cup 1): the chits drawn from it and held by TFs go back to it first,
    as at the end of an even-numbered Game-Turn (13.5); the reports stand."""
    for key in list(cups.held):
        cups = cups.returned(key, cup)
    return cups


def held(work: Work, side: Side, tf: str) -> list[str]:
    return [h.chit for h in chit_cups(work).held.get(tf_key(side, tf), ())]


def replace_last(work: Work, side: Side, tf: str, chit: str) -> None:
    """Magic "Report False" (42.4.1): the chit just drawn counts as ``chit``; the drawn
    one still goes back to its own cup in time."""
    cups = chit_cups(work)
    *before, last = cups.held[tf_key(side, tf)]
    held = {**cups.held, tf_key(side, tf): (*before, replace(last, counts_as=chit))}
    keep(work, cups.put(held=held))


def effective(work: Work, side: Side, tf: str) -> str:
    """The chit the latest report must obey (after any Magic conversion)."""
    last = chit_cups(work).held[tf_key(side, tf)][-1]
    return last.counts_as or last.chit


def return_chits(work: Work, side: Side, tf: str) -> int:
    """13.6.5: the TF's chits go back to the cups they came from; how many."""
    cups = chit_cups(work)
    key = tf_key(side, tf)
    keep(work, cups.returned(key))
    return len(cups.held.get(key, ()))


def end_of_game_turn(work: Work, turn: int) -> int:
    """13.5: at the end of each even-numbered Game-Turn every chit goes back."""
    if turn % 2:
        return 0
    keys = [k.split(":", 1) for k in chit_cups(work).held]
    return sum(return_chits(work, Side(side), tf) for side, tf in keys)


# -- reports -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Report:
    """What the owner tells the searcher about one TF (13.5.7)."""

    dummy: bool
    types: Mapping[str, int] = field(default_factory=dict)  # only types reported > 0
    total: int = 0
    damage: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # APB, MSU levels

    def text(self) -> str:
        """Canonical form: 'dummy' or '2 CV, 2 CA, 4 DD; total 10[; damage MSU D0 D1]'."""
        if self.dummy:
            return "dummy"
        parts = ", ".join(f"{n} {t}" for t, n in sorted(self.types.items()) if n)
        out = f"{parts}; total {self.total}" if parts else f"total {self.total}"
        for t, levels in sorted(self.damage.items()):
            out += f"; damage {t} " + " ".join(f"D{d}" for d in levels)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"report": self.text()}

    @classmethod
    def of_ships(cls, ships: Sequence[Ship], total: int | None = None) -> Report:
        """The true composition of ``ships`` (TF ship entries: type, damage)."""
        if not ships:
            return cls(True)
        types = Counter(s.type.upper() for s in ships)
        damage = {
            t: tuple(sorted(_damage(s) for s in ships if s.type.upper() == t))
            for t in DAMAGE_REPORTED
            if types[t]
        }
        return cls(False, dict(types), len(ships) if total is None else total, damage)


def _damage(ship: Ship) -> int:
    d = ship.damage
    return int(str(d).upper().lstrip("D") or 0)


def parse_report(words: Sequence[str]) -> Report:
    """'DUMMY' | '<n> <type> ... TOTAL <n> [DAMAGE <type> D<k> ...]' (commas and
    semicolons ignored); raises OrderSyntaxError (13.5.7)."""
    w = [x for x in (s.strip(",;").upper() for s in words) if x]
    if w == ["DUMMY"]:
        return Report(True)
    types: dict[str, int] = {}
    damage: dict[str, tuple[int, ...]] = {}
    total: int | None = None
    i = 0
    try:
        while i < len(w):
            if w[i] == "TOTAL":
                total, i = int(w[i + 1]), i + 2
            elif w[i] == "DAMAGE":
                t, i = w[i + 1], i + 2
                levels = []
                while i < len(w) and re.fullmatch(r"D[0-4]", w[i]):
                    levels.append(int(w[i][1]))
                    i += 1
                damage[t] = tuple(sorted(levels))
            else:
                n, t = int(w[i]), w[i + 1]
                if n < 0 or not re.fullmatch(r"[A-Z]{2,4}", t) or t in types:
                    raise ValueError
                if n:
                    types[t] = n
                i += 2
    except (IndexError, ValueError):
        raise OrderSyntaxError(
            "a report is DUMMY, or counts by type and TOTAL, e.g. 2 CV 1 CA 4 DD TOTAL 7",
            rule="13.5.7",
        ) from None
    if total is None:
        total = sum(types.values())
    if total < 1:
        raise OrderSyntaxError("a TF reported with ships has a total of at least 1", rule="13.5.7")
    return Report(False, types, total, damage)


# -- the validator (13.5.7) ----------------------------------------------------


def _keep_zero(
    actual: Mapping[str, int], report: Mapping[str, int], types: Iterable[str], k: int
) -> list[str]:
    """Each present type ± k but not to zero; no absent type invented."""
    out = []
    for t in sorted(set(types)):
        a, r = actual.get(t, 0), report.get(t, 0)
        if a and not (max(1, a - k) <= r <= a + k):
            out.append(f"{t}: {r} reported, {a - k if a - k > 1 else 1}-{a + k} allowed")
        if not a and r:
            out.append(f"{t}: none is present, so none may be reported")
    return out


def _flex(
    actual: Mapping[str, int], report: Mapping[str, int], types: Sequence[str], k: int, invent: int
) -> list[str]:
    """Report Error with capital ships present: each present type ± k, down to zero;
    absent types invented up to ``invent`` in all."""
    out = []
    invented = 0
    for t in types:
        a, r = actual.get(t, 0), report.get(t, 0)
        if a and abs(r - a) > k:
            out.append(f"{t}: {r} reported, {max(0, a - k)}-{a + k} allowed")
        elif not a:
            invented += r
    if invented > invent:
        out.append(f"{invented} {'/'.join(types)} invented, at most {invent} allowed")
    return out


def _swaps(actual: Mapping[str, int], k: int) -> list[dict[str, int]]:
    """Every carrier count reachable by relabelling at most ``k`` of CVE/CVL/CV."""
    out = []
    base = [actual.get(t, 0) for t in SWAPPABLE]
    for moves in itertools.product(range(k + 1), repeat=6):
        if sum(moves) > k:
            continue
        v = list(base)
        ok = True
        for (src, dst), m in zip(itertools.permutations(range(3), 2), moves, strict=True):
            v[src] -= m
            v[dst] += m
            ok = ok and v[src] >= 0
        if ok and all(x >= 0 for x in v):
            out.append({**actual, **dict(zip(SWAPPABLE, v, strict=True))})
    return out


def _error_with_capitals(actual: Mapping[str, int], report: Mapping[str, int], k: int) -> list[str]:
    n_cap = sum(actual.get(t, 0) for t in CAPITALS)
    n_car = sum(actual.get(t, 0) for t in CARRIERS)
    cap = _flex(actual, report, CAPITALS, k, min(k, n_car))
    others = [t for t in set(actual) | set(report) if t not in CARRIERS + CAPITALS]
    rest = _keep_zero(actual, report, others, k)
    # Carriers: add/subtract, or instead relabel CVE/CVL/CV; both when k >= 2.
    plain = _flex(actual, report, CARRIERS, k, min(k, n_cap))
    if plain:
        for swapped in _swaps(actual, k):
            exact = all(swapped.get(t, 0) == report.get(t, 0) for t in CARRIERS)
            if exact or (k >= 2 and not _flex(swapped, report, CARRIERS, k, min(k, n_cap))):
                plain = []
                break
    return plain + cap + rest


def problems(ships: Sequence[Ship], dummy: bool, chit: str, report: Report) -> list[str]:
    """Why ``report`` breaks the limits of ``chit`` for a TF of ``ships`` (``dummy``:
    it holds none); empty when the report is legal (13.5.7, 13.6.2)."""
    chit = chit_id(chit)
    if dummy or not ships:
        if chit != "false":
            return (
                []
                if report.dummy
                else [
                    "a dummy TF must be reported as a dummy unless a False chit is drawn (13.6.2)"
                ]
            )
        if report.dummy:
            return []
        invented = [
            f"{t}: {n} invented, at most 2 of a type for a dummy (13.5.7 False)"
            for t, n in sorted(report.types.items())
            if n > 2
        ]
        if max(report.total, sum(report.types.values())) > 10:
            invented.append("at most 10 ships may be invented for a dummy (13.5.7 False)")
        return invented
    if chit == "false":
        return []  # a TF with a ship: "no restrictions" (13.5.7 False)
    if report.dummy:
        return ["the TF has ships: the chit obliges you to say so (13.5.7 General)"]
    truth = Report.of_ships(ships)
    actual, n, k = truth.types, truth.total, level(chit)
    out: list[str] = []
    if chit == "true":
        rounded = -(-n // 5) * 5
        if report.total not in (n, rounded):
            out.append(f"total: {report.total} reported; it is {n}, or {rounded} rounded up to 5")
        out += [
            f"{t}: {report.types.get(t, 0)} reported, {actual.get(t, 0)} present"
            for t in sorted(set(actual) | set(report.types))
            if actual.get(t, 0) != report.types.get(t, 0)
        ]
        out += [
            f"damage of {t}: every one's level must be given"
            for t, lv in truth.damage.items()
            if tuple(sorted(report.damage.get(t, ()))) != lv
        ]
        return [f"{p} (13.5.7 Report True)" for p in out]
    if abs(report.total - n) > 5 * k:
        out.append(f"total: {report.total} reported, {max(1, n - 5 * k)}-{n + 5 * k} allowed")
    every = set(actual) | set(report.types)
    if chit.startswith("error") and any(actual.get(t, 0) for t in CAPITALS):
        out += _error_with_capitals(actual, report.types, k)
    else:
        out += _keep_zero(actual, report.types, every, k)
    name = "Report Approx" if chit.startswith("approx") else "Report Error"
    return [f"{p} (13.5.7 {name} ±{k})" for p in out]
