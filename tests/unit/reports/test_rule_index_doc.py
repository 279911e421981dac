"""docs/usn-rule-index.md: the players' index of the rule IDs reports cite (issue 13)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.build_rule_index import render, rows

from .combat_events import COMBATS

ROOT = Path(__file__).resolve().parents[3]
INDEX = ROOT / "docs" / "usn-rule-index.md"
INVENTORY = Path("/work/shared/docs/usn-rules-inventory.md")

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


@pytest.mark.skipif(not INVENTORY.exists(), reason="the rules inventory is not on this machine")
def test_the_shipped_index_is_the_generated_one() -> None:
    assert INDEX.read_text(encoding="utf-8") == render(INVENTORY.read_text(encoding="utf-8"))
