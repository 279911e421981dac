"""A game's sequence of play as data: the rulebook's steps, in its order.

Both games print their sequence as a numbered or lettered outline (U.S.N.'s ten
steps, War in the Pacific's phases and segments, 3.1). Each game describes an
entry of its outline with the fields its rules need; every entry has a ``key``
unique in its table, the rulebook's ``title`` and the ``rule`` that sets it out,
and a ``StepTable`` keeps them in order and finds them by key. Mail rounds,
order validation ("this order only at step 2") and reports read the table, never
a hand-copied list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, overload


class PlayStep(Protocol):
    """What every entry of a sequence of play has."""

    @property
    def key(self) -> str: ...  # unique within its table: "2", "naval1", "plot"

    @property
    def title(self) -> str: ...  # the rulebook's name for it

    @property
    def rule(self) -> str: ...  # where the rulebook sets it out: "SEQ.2", "3.1 C"


S = TypeVar("S", bound=PlayStep)


@dataclass(frozen=True, slots=True)
class StepTable(Generic[S]):
    """The entries of one level of a sequence of play, in the rulebook's order."""

    steps: tuple[S, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, int] = {}
        for i, s in enumerate(self.steps):
            if s.key in index:
                raise ValueError(f"two steps keyed {s.key!r} in one sequence of play")
            index[s.key] = i
        object.__setattr__(self, "_index", index)

    def __iter__(self) -> Iterator[S]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    @overload
    def __getitem__(self, i: int) -> S: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[S, ...]: ...

    def __getitem__(self, i: int | slice) -> S | tuple[S, ...]:
        return self.steps[i]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def get(self, key: str) -> S:
        """The entry keyed ``key``; KeyError naming the keys there are."""
        try:
            return self.steps[self._index[key]]
        except KeyError:
            raise KeyError(f"no step {key!r} (steps: {', '.join(self._index)})") from None

    def index(self, key: str) -> int:
        """The 0-based position of ``key`` in the sequence."""
        self.get(key)
        return self._index[key]

    def after(self, key: str) -> S | None:
        """The entry that follows ``key``, or None after the last."""
        i = self.index(key) + 1
        return self.steps[i] if i < len(self.steps) else None

    def keys(self) -> tuple[str, ...]:
        return tuple(self._index)


# A round whose name says its own time: War in the Pacific's "T1-air1-allocation"
# (Game-Turn 1) and "S1-ms-escort" (the Strategic Game-Turn of cycle 1), U.S.N.'s
# set-up and pre-game rounds before turn 1 ("setup-J", SETUP.JFIRST; "pre-J-2",
# CG1.SHOCK.PREGAME).
_SAYS_ITS_TIME = re.compile(r"[TS][0-9]+-.+|setup-.+|pre-.+")


def phase_label(turn: object, phase: object) -> str:
    """How every subject and heading names a phase: "turn 3 J-2".

    The phase's name is kept whole, as players write it in their order forms' Phase:
    header, and short enough for a subject. A name that says its own time stands
    alone: "T1-air1-allocation", not "turn 1 T1-air1-allocation"; "setup-J", not
    "turn 1 setup-J" (the set-up comes before turn 1)."""
    name = str(phase)
    if turn is None or _SAYS_ITS_TIME.fullmatch(name):
        return name
    return f"turn {turn} {name}"
