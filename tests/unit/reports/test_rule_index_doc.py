"""docs/usn-rule-index.md: the players' index of the rule IDs reports cite. The project
keeps the index itself (tools/build_rule_index.py keeps it in form), so everything
here is checked from the project alone."""

from __future__ import annotations

import re
from pathlib import Path

from tools.build_rule_index import SUMMARY, index_rows, render, render_rows, rows

from .combat_events import COMBATS

ROOT = Path(__file__).resolve().parents[3]
INDEX = ROOT / "docs" / "usn-rule-index.md"

SAMPLE = """## 5. Combat — general (Ln 223-242)

| ID | Ln | Tag | Rule (paraphrase) | Flags |
|---|---|---|---|---|
| CBT.H | 238 | naval-surface-combat | Any damage at all halves a ship's DEF. A damaged carrier cannot operate. | |
"""


def test_a_row_gives_id_section_line_and_first_sentence() -> None:
    assert rows(SAMPLE) == [
        ("CBT.H", "Combat — general, line 238", "Any damage at all halves a ship's DEF.")
    ]
    assert '<a id="CBT.H"></a>CBT.H' in render(SAMPLE)


def test_every_rule_a_combat_cites_has_an_anchor() -> None:
    anchors = set(re.findall(r'<a id="([^"]+)"', INDEX.read_text(encoding="utf-8")))
    assert len(anchors) > 400
    for e in COMBATS:
        assert e["rule"] in anchors


def test_the_shipped_index_is_in_the_form_the_tool_writes() -> None:
    """Reading the index and writing it back gives it unchanged: every row has an
    anchor named after its ID, a section and a one-line summary."""
    text = INDEX.read_text(encoding="utf-8")
    cases = index_rows(text)
    assert render_rows(cases) == text
    assert len(cases) == text.count('<a id="')


def test_each_id_once_with_a_section_and_a_one_line_summary() -> None:
    cases = index_rows(INDEX.read_text(encoding="utf-8"))
    ids = [i for i, _, _ in cases]
    assert len(ids) == len(set(ids))
    for ident, section, summary in cases:
        assert re.fullmatch(r"[A-Z][A-Z0-9]*(\.[A-Za-z0-9]+)*", ident), ident
        assert section and summary and len(summary) <= SUMMARY, ident
