"""The README says what War in the Pacific plays today in one place, and says it as
the engine does: the stages up to clock.KERNEL_STAGE (0 set-up, 1 naval movement and
search, 2 air strikes against ships), no other stage range elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.rulesets.witp.clock import KERNEL_STAGE

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
WORDS = " ".join(README.split())


def test_the_readme_names_witps_stages_once_as_the_engine_moderates_them() -> None:
    ranges = re.findall(r"stages \d(?:-\d| and \d)", WORDS)
    assert ranges == [f"stages 0-{KERNEL_STAGE}"], ranges
    said = WORDS[WORDS.index(f"stages 0-{KERNEL_STAGE}") :][:700]
    for stage, what in enumerate(
        ("set-up", "naval movement and search", "air strikes against ships")[: KERNEL_STAGE + 1]
    ):
        assert what in said and f"stage {stage}" in said, (stage, what)
