"""A side's land air bases (4.3, 13.0), as kept in its private part
(``air_bases``): one record of the one codec (records.py). It sits low in the import
graph, as the other records of a side's private part do (sidepart.py), so that the
state's codec reads it typed; air/ships.py keeps its rules and re-exports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from pbem.rulesets.witp.records import OPTIONAL, Record


@dataclass(frozen=True, slots=True)
class AirBase(Record):
    """A side's land air base (4.3, 13.0): its hex and APs by type, and of them the
    elite (7.11), the elite with Night status (7.11.5) and the green (58.1)."""

    hex: str | None
    air_points: Mapping[str, int]
    elite: Annotated[Mapping[str, int] | None, OPTIONAL] = None
    night_elite: Annotated[Mapping[str, int] | None, OPTIONAL] = None
    green: Annotated[Mapping[str, int] | None, OPTIONAL] = None
