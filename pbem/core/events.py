"""Events: what happened during adjudication, and which sides witnessed it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened.

    ``kind`` is a short domain word ("moved", "engagement", "air-strike", ...);
    ``data`` is JSON-serialisable; ``witnesses`` lists the sides that learn of
    it (``None``: every side; an empty tuple: only the omniscient record);
    ``rule`` is the rule ID that produced it (e.g. "MOV.N").
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    witnesses: tuple[str, ...] | None = None
    rule: str | None = None

    def seen_by(self, side: str | None) -> bool:
        """``side`` None is the omniscient viewer (moderator, archive)."""
        if side is None or self.witnesses is None:
            return True
        return side in self.witnesses

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "data": dict(self.data),
            "witnesses": None if self.witnesses is None else list(self.witnesses),
            "rule": self.rule,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Event:
        w = obj.get("witnesses")
        return cls(
            kind=obj["kind"],
            data=obj.get("data", {}),
            witnesses=None if w is None else tuple(w),
            rule=obj.get("rule"),
        )
