"""No circle of imports between modules of pbem, file by file: two files that import
each other, directly or round a longer loop, can be neither read nor changed alone.
lint-imports keeps the packages one way; this keeps every file of every package so.

Imports under ``if TYPE_CHECKING:`` count (grimp's default): they cost nothing at
run time, but the files still know each other, and mypy and a reader follow them
the same; a circle hidden that way is still a circle of the design.
"""

from __future__ import annotations

import grimp


def circles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """One loop per set of modules that import each other round, each as its
    shortest way from a module back to it, the first module named again."""
    found: dict[frozenset[str], tuple[str, ...]] = {}
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                loop = (module, *back)
                found.setdefault(frozenset(loop), loop)
    return sorted(found.values())


def test_a_circle_is_found_and_named() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        graph.add_import(importer=importer, imported=imported)
    assert circles(graph) == [("p.a", "p.b", "p.c", "p.a")]


def test_no_circle_between_the_modules_of_pbem() -> None:
    found = circles(grimp.build_graph("pbem"))
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)
