"""The markers on the shared map, open to both sides (the public part's beyond the
clock and the pack), as records of the one codec (records.py):

- ``located``: the Located chits (13.7.5), by "<owner>:<tf>" (located.py's rules);
- ``pending_strikes``: the strikes owed by a US carrier search's hits (13.4.1,
  search.py), resolved from stage 2;
- ``revealed_dummies``: the dummies definitively revealed (13.6.3, dummies.py).

They sit low in the import graph so that the state's codec (state.py) and the
knowledge model (known.py) read them typed; the rules that place and take them
reach them through their owners' accessors on the round's work area.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from pbem.core.sides import Side
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.records import ABSENT, Absent, Record

LOCATED, PENDING_STRIKES, REVEALED_DUMMIES = "located", "pending_strikes", "revealed_dummies"


class Source(StrEnum):
    """What placed a Located chit (ruling R15)."""

    AIR = "air"
    INSTALLATION = "installation"  # 13.8, first paragraph
    COASTWATCHER = "coastwatcher"
    SURFACE = "surface"


@dataclass(frozen=True)
class LocatedChit(Record):
    """13.7.5: a Located chit on ``owner``'s TF ``tf`` in ``hex``, open to both sides:
    its label ("Located 1A"), the phase it was placed in (``placed``: located.ordinal)
    and its time, and what placed it."""

    owner: Side
    tf: str
    hex: HexId
    label: str
    placed: int
    time: str
    source: Source

    @property
    def key(self) -> str:
        return f"{self.owner}:{self.tf}"


@dataclass(frozen=True)
class PendingStrike(Record):
    """13.4.1: a strike owed at ``anti_ship`` on ``owner``'s TF ``tf`` by a US carrier
    search's hit (the VS hit's fact, search.VsSearchHit, as told) and when it was owed."""

    kind: str
    owner: Side
    tf: str
    roll: int
    anti_ship: int
    time: str


@dataclass(frozen=True)
class RevealedDummy(Record):
    """13.6.3: ``owner``'s TF ``tf`` revealed as a dummy at ``time``."""

    owner: Side
    tf: str
    time: str


@dataclass(frozen=True)
class Markers(Record):
    """The public part's markers (each key stored once the rules first make it)."""

    located: Mapping[str, LocatedChit] | Absent = ABSENT
    pending_strikes: tuple[PendingStrike, ...] | Absent = ABSENT
    revealed_dummies: tuple[RevealedDummy, ...] | Absent = ABSENT

    def chits(self) -> Mapping[str, LocatedChit]:
        """The Located chits on the map, by "<owner>:<tf>"."""
        return {} if self.located is ABSENT else self.located

    def strikes(self) -> tuple[PendingStrike, ...]:
        return () if self.pending_strikes is ABSENT else self.pending_strikes

    def revealed(self) -> tuple[RevealedDummy, ...]:
        return () if self.revealed_dummies is ABSENT else self.revealed_dummies
