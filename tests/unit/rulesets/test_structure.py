"""The rulesets' import structure: no import inside a function (to dodge a cycle or
otherwise), and no cycle among the modules of the U.S.N. ruleset."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pbem.rulesets

RULESETS = Path(pbem.rulesets.__file__).parent
USN = "pbem.rulesets.usn"


def _modules() -> dict[str, ast.Module]:
    root = RULESETS.parent.parent
    return {
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): ast.parse(
            p.read_text(encoding="utf-8")
        )
        for p in sorted(RULESETS.rglob("*.py"))
    }


def test_no_import_inside_a_function() -> None:
    inner = [
        f"{name}:{node.lineno}"
        for name, tree in _modules().items()
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for node in ast.walk(fn)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert inner == []


def _imports(tree: ast.Module, known: set[str]) -> set[str]:
    """Every U.S.N. module ``tree`` imports, at any level (TYPE_CHECKING included)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            subs = {f"{node.module}.{a.name}" for a in node.names} & known
            out |= subs or {node.module}
    return {m for m in out if m in known and m.startswith(USN + ".")}


def test_usn_modules_have_no_import_cycle() -> None:
    modules = {k: v for k, v in _modules().items() if k.startswith(USN + ".")}
    graph = {name: _imports(tree, set(modules)) for name, tree in modules.items()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path[path.index(name) :], name))
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, (*path, name))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())


def test_the_usn_ruleset_fills_every_hook() -> None:
    """Importing the ruleset alone (a fresh interpreter) loads every scenario and
    optional rule module, so no hook the engine consults is left empty."""
    code = (
        "import pbem.rulesets.usn.ruleset\n"
        "from pbem.rulesets.usn.hooks import HOOKS\n"
        "print(sorted(HOOKS.unfilled()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.strip() == "[]"
