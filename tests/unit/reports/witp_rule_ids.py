"""The rule IDs the War in the Pacific engine cites, read from its code: the ``rule=``
arguments, the "rule" fields of its facts, events, phases and segments (a literal, a
module constant, a default), each ID a citation names ("42.4.1 (played on a search chit,
13.5)" cites 42.4.1 and 13.5; "3.2, 5.0" both)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

WITP = Path(__file__).resolve().parents[3] / "pbem" / "rulesets" / "witp"
# A case (16.3, 17.13.7), a sequence-of-play letter (3.1 C, 50.0 A), a section (42) or
# one of pbem's rulings (R106).
ID = re.compile(r"R\d+|\d+(?:\.\d+)*(?: [A-J](?![\w.]))?")


def cited(text: str) -> list[str]:
    """The IDs a rule citation names: each comma-separated part's leading ID."""
    out = []
    for part in text.split(","):
        m = ID.match(part.strip())
        if m:
            out.append(m.group(0))
    return out


def _rule_params(trees: list[ast.Module]) -> dict[str, int]:
    """Functions (and dataclasses) taking a ``rule``: the position it is passed at."""
    where: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args]
                if "rule" in names:
                    where[node.name] = names.index("rule") - (names[0] in ("self", "cls"))
            elif isinstance(node, ast.ClassDef):
                fields = [
                    s.target.id
                    for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                ]
                if "rule" in fields:
                    where[node.name] = fields.index("rule")
    return where


def _defaults(tree: ast.Module) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            args, defaults = node.args.args, node.args.defaults
            for arg, default in zip(args[len(args) - len(defaults) :], defaults, strict=True):
                if arg.arg == "rule":
                    yield default


def _rule_values(tree: ast.Module, params: dict[str, int]) -> Iterator[ast.expr]:
    yield from _defaults(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "rule":
            yield node.value
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "rule" for t in node.targets
        ):
            yield node.value  # rule = ...; passed on below
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "rule":
                    yield value
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            at = params.get(name)
            if at is not None and at < len(node.args):
                yield node.args[at]


def _strings(expr: ast.expr, constants: dict[str, list[ast.expr]]) -> Iterator[str]:
    """The literal strings an expression may give: its own, a dict's values, and
    those of the constants (RULE, NOT_YET[word], cover.RULE[kind]) it reads."""
    if isinstance(expr, ast.Dict):
        for value in expr.values:
            yield from _strings(value, constants)
        return
    for node in ast.walk(expr):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, (ast.Name, ast.Attribute)):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name.isupper() and name in constants:
                for value in constants[name]:
                    yield from _strings(value, constants)


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    return {
        s.targets[0].id: s.value
        for s in tree.body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
    }


def engine_rule_ids() -> set[str]:
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in sorted(WITP.rglob("*.py"))]
    params = _rule_params(trees)
    ids: set[str] = set()
    # Another module's constant (cover_rules.RULE) is found by its name: every
    # module's constant of that name counts (a superset is safe: more entries).
    shared: dict[str, list[ast.expr]] = {}
    for tree in trees:
        for name, value in _constants(tree).items():
            shared.setdefault(name, []).append(value)
    for tree in trees:
        constants = {**shared, **{k: [v] for k, v in _constants(tree).items()}}
        for value in _rule_values(tree, params):
            if isinstance(value, ast.JoinedStr):
                continue  # built from the values above
            for text in _strings(value, constants):
                ids.update(cited(text))
    return ids


def rulings_ids(rulings: str) -> set[str]:
    """pbem's rulings (R1, R106, ...) the rulings page lists, one table row each."""
    return set(re.findall(r"^\| (R\d+) \|", rulings, re.M))
