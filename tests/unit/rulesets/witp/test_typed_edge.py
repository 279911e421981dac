"""The War in the Pacific state is typed, frozen values; the stored JSON
(``dict[str, Any]``) stays at the serialisation's edge.

Every function parameter, return annotation and class field of pbem/rulesets/witp
is read with ast: one annotated ``dict[str, Any]`` or ``Mapping[str, Any]`` (or a
module's alias of either) fails the test unless it stands at one of the edges
below, each with its reason. A rule that needs a side's records reads them typed
(sidepart.SidePart, through work.Work.part / known.Knowledge.part).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pbem.rulesets.witp as witp

ROOT = Path(witp.__file__).parent

# The codec's own methods: a record's stored JSON in and out (records.py's one codec
# and the few records that write their own).
CODEC_METHODS = frozenset({"to_json", "from_json", "decode"})

# Whole modules at the edge, by path under pbem/rulesets/witp.
EDGE_MODULES = {
    "records.py": "the one codec: field_json/field_values/decode between records and JSON",
    "map.py": "data-file reader: the theatre map's TOML files",
    "datapack.py": "data-file reader: the data packs' TOML items (a value is JSON)",
    "loader.py": "data-file reader: the scenario files",
    "library.py": "data-file reader: the scenarios' library",
    "views.py": "the report view built for the templates (JSON for Jinja)",
    "digest.py": "the report view built for the templates",
    "strikeview.py": "the report view built for the templates",
    "searchview.py": "the report view built for the templates",
    "report_map.py": "the report view built for the templates (the map's layers)",
    "sentences.py": "the report view: sentences from the events' JSON data",
    "ruleset.py": "the Ruleset interface (pbem.core.ruleset): stored state and views as JSON",
    "statecheck.py": "the stored state's raw check: a moderator's EDIT may hold anything",
    "calibration.py": "calibration case files (JSON cases and their stored states)",
    "work.py": "the round's store: the working copy its accessors read and write",
}

# Single definitions at the edge, by module and qualified name.
EDGE_DEFINITIONS = {
    ("knowledge.py", "projection"): "a side's projection of the stored state (noninterference)",
    ("knowledge.py", "indistinguishable"): "compares two stored states' projections",
    ("knowledge.py", "RawFact.data"): "a fact of a kind not typed yet, kept as stored",
    ("known.py", "Knowledge.of"): "decodes a side's projection of the stored state",
    ("missioncards.py", "mission_from_json"): "the mission card's decoder (by its kind)",
    ("state.py", "_items_json"): "the public pack's items encoded (PublicPart.to_json)",
    ("play.py", "setup"): "the Ruleset interface: the stored initial state",
    ("play.py", "context"): "the Ruleset interface: orders judged on a stored state",
    ("play.py", "play_round"): "the Ruleset interface: a stored state in, a stored state out",
    ("play.py", "Clock.describe"): "the report view built for the templates (the clock)",
}

JSON_CONTAINERS = frozenset({"dict", "Dict", "Mapping", "MutableMapping"})


def _is_json(node: ast.expr | None, aliases: frozenset[str]) -> bool:
    """Whether the annotation ``node`` names ``dict[str, Any]``/``Mapping[str, Any]``
    (or an alias of them), anywhere inside it (``X | None``, ``list[...]``)."""
    if node is None:
        return False
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in aliases:
            return True
        if isinstance(n, ast.Subscript) and _container(n.value) in JSON_CONTAINERS:
            args = n.slice.elts if isinstance(n.slice, ast.Tuple) else []
            if [_name(a) for a in args] == ["str", "Any"]:
                return True
    return False


def _container(node: ast.expr) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else _name(node)


def _name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def _aliases(tree: ast.Module) -> frozenset[str]:
    """The module's own names for the stored JSON (``SideJson = Mapping[str, Any]``)."""
    out = set()
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and _is_json(n.value, frozenset()):
            out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        if isinstance(n, ast.AnnAssign) and _name(n.annotation) == "TypeAlias":
            out |= {_name(n.target) or ""} if _is_json(n.value, frozenset()) else set()
    return frozenset(out)


def _annotated(node: ast.AST, aliases: frozenset[str], qual: str = "") -> Iterator[tuple[str, int]]:
    """The qualified names of the definitions under ``node`` annotated as JSON."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            for st in child.body:
                if isinstance(st, ast.AnnAssign) and _is_json(st.annotation, aliases):
                    yield f"{qual}{child.name}.{_name(st.target)}", st.lineno
            yield from _annotated(child, aliases, f"{qual}{child.name}.")
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            a = child.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            typed = [p.annotation for p in params if p is not None]
            json = any(_is_json(t, aliases) for t in [*typed, child.returns])
            if json and child.name not in CODEC_METHODS:
                yield f"{qual}{child.name}", child.lineno
            yield from _annotated(child, aliases, f"{qual}{child.name}.")


def _modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(ROOT).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(ROOT.rglob("*.py"))
    }


def _package_aliases(modules: dict[str, ast.Module]) -> frozenset[str]:
    """Every module's aliases: one is imported by the others (knowledge.SideJson was)."""
    return frozenset().union(*(_aliases(tree) for tree in modules.values()))


def _untyped() -> list[str]:
    out = []
    modules = _modules()
    aliases = _package_aliases(modules)
    for module, tree in modules.items():
        if module in EDGE_MODULES:
            continue
        for qual, line in _annotated(tree, aliases):
            if (module, qual) not in EDGE_DEFINITIONS:
                out.append(f"{module}:{line} {qual}")
    return out


def test_witp_state_is_typed_but_at_its_serialisation_edge() -> None:
    assert _untyped() == []


def test_the_allow_list_names_only_what_is_there() -> None:
    """An edge that no longer takes the stored JSON leaves the list (it stays honest)."""
    modules = _modules()
    aliases = _package_aliases(modules)
    for module in EDGE_MODULES:
        assert module in modules, module
    for module, qual in EDGE_DEFINITIONS:
        found = {q for q, _line in _annotated(modules[module], aliases)}
        assert qual in found, f"{module} {qual} is typed now: take it off the list"


def test_the_scan_sees_an_alias_a_field_and_a_parameter() -> None:
    """The scan itself: what it must catch (a side's part as raw JSON, as it was)."""
    tree = ast.parse(
        "from typing import Any\n"
        "from collections.abc import Mapping\n"
        "SideJson = Mapping[str, Any]\n"
        "class Knowledge:\n"
        "    private: Mapping[str, SideJson]\n"
        "    def own(self, side: str) -> SideJson: ...\n"
        "def store(own: dict[str, Any] | None, tf: str) -> None: ...\n"
        "def to_json(x: int) -> dict[str, Any]: ...\n"
        "def fine(x: Mapping[str, int]) -> dict[str, str]: ...\n"
    )
    found = [q for q, _line in _annotated(tree, _aliases(tree))]
    assert found == ["Knowledge.private", "Knowledge.own", "store"]
