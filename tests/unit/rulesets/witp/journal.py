"""A test world's disclosures as a journal (knowledge.Journal): a state built by hand
records what it is told as the round's work area does (work.Work.record)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.rulesets.witp.knowledge import DISCLOSURES, Disclosure


@dataclass(frozen=True)
class Told:
    """``state``'s disclosures, each appended as stored."""

    state: dict[str, Any]

    def record(self, told: Disclosure) -> None:
        self.state.setdefault(DISCLOSURES, []).append(told.to_json())
