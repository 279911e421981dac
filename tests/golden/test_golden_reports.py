"""Golden files: the rendered reports of a known phase, text and HTML, byte for byte.

A change to a template, to the context or to a ruleset's view shows up here
as a diff to read. After an intended change, regenerate and review:

    PBEM_UPDATE_GOLDEN=1 python -m pytest tests/golden
    git diff tests/golden/reports
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbem.reports.mailing import RenderedReport
from tests.unit.reports.test_render import demo_report, usn_report
from tests.unit.reports.usn_world import A, J

GOLDEN = Path(__file__).parent / "reports"


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
    report, _ = usn_report(side, fog)
    both(f"usn-j2-{side or 'omniscient'}-{fog}", report)
