"""Golden files: the rendered reports of a known phase, text and HTML, byte for byte.

The U.S.N. inputs (the view and the order form, as the ruleset made them for
the test position in tests/unit/reports/usn_world.py) are stored beside the
outputs as ``*.input.json``, so these files change only when the rendering
does (templates, context), not when the rules engineer's view or order form
moves on. A change shows up as a diff to read. After an intended change,
regenerate (inputs included) and review:

    PBEM_UPDATE_GOLDEN=1 python -m pytest tests/golden
    git diff tests/golden/reports
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pbem.lifecycle.publishing import audience_view
from pbem.reports.context import Header
from pbem.reports.report import RenderedReport, render_report
from tests.unit.reports.combat_events import COMBATS, DAMAGED
from tests.unit.reports.test_render import PHASE, demo_report
from tests.unit.reports.usn_world import A, J, played

GOLDEN = Path(__file__).parent / "reports"
PREVIOUS = {
    "turn": 1, "phase": "J-2", "seed": "cd" * 32, "seed_commitment": "ef" * 32,
    "commitments": {"japanese": "11" * 32}, "nonces": {"japanese": "nonce-japanese"},
}  # fmt: skip


def check(name: str, got: str) -> None:
    path = GOLDEN / name
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with PBEM_UPDATE_GOLDEN=1 and review it"
    assert got == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def both(stem: str, report: RenderedReport) -> None:
    check(f"{stem}.txt", report.text)
    check(f"{stem}.html", report.html)


@pytest.mark.parametrize("side", ["north", "south"])
def test_golden_demo_report_after_turn_1(side: str) -> None:
    both(f"demo-turn1-{side}", demo_report(side))


@pytest.mark.parametrize(
    ("side", "fog"),
    [(A, "open"), (J, "open"), (A, "double-blind"), (None, "open")],
)
def test_golden_usn_report_after_j2(side: str | None, fog: str) -> None:
    stem = f"usn-j2-{side or 'omniscient'}-{fog}"
    source = GOLDEN / f"{stem}.input.json"
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        g, state = played(fog)
        view = audience_view(g.rs, state, g.events, side)
        form = g.rs.order_template(state, side) if side == A else ""
        source.write_text(json.dumps({"view": view, "order_form": form}, indent=1) + "\n")
    given = json.loads(source.read_text())
    header = Header(
        "g7", "usn", "U.S.N.: The Game of War in the Pacific, 1941-43 (SPI, 1971)", "test",
        side or "omniscient", side, "g7: turn 1 phase A-3-4",
        phase=PHASE, order_form=given["order_form"], previous=PREVIOUS,
    )  # fmt: skip
    both(stem, render_report(header, given["view"], with_map=False))


def test_golden_usn_combat_report() -> None:
    """Each kind of combat as a player reads it (the events are the ruleset's own
    records, copied from its rules tests: tests/unit/reports/combat_events.py)."""
    stem = "usn-combat-allied"
    source = GOLDEN / f"{stem}.input.json"
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        g, state = played("open")
        view = dict(audience_view(g.rs, state, g.events, A))
        view["events"] = [*view["events"], *COMBATS, DAMAGED]
        source.write_text(json.dumps({"view": view}, indent=1) + "\n")
    given = json.loads(source.read_text())
    header = Header(
        "g7", "usn", "U.S.N.: The Game of War in the Pacific, 1941-43 (SPI, 1971)", "test",
        A, A, "g7: turn 1 phase A-3-4", phase=PHASE, previous=PREVIOUS,
    )  # fmt: skip
    both(stem, render_report(header, given["view"], with_map=False))
