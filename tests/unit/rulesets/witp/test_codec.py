"""codec.py: a typed record's JSON derived from its fields, and fact kinds declared
as their fields only."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from pbem.core.sides import Side
from pbem.rulesets.witp.knowledge import Fact, RawFact
from pbem.rulesets.witp.records import DERIVED, OPTIONAL, Record, Wire


@dataclass(frozen=True, slots=True)
class _Leg(Record):
    to: str
    mp: int


@dataclass(frozen=True, slots=True)
class _Flight(Record):
    side: Side
    origin: Annotated[str, Wire("from")]
    legs: tuple[_Leg, ...]
    aps: Mapping[str, int]
    note: Annotated[str | None, OPTIONAL] = None
    last: _Leg | None = None
    seen: Annotated[bool, DERIVED] = False


STORED = {
    "side": "allied",
    "from": "Port Moresby",
    "legs": [{"to": "E2010", "mp": 6}, {"to": "E2011", "mp": 12}],
    "aps": {"B-17E": 4},
    "last": None,
}


def test_a_record_reads_its_stored_json_and_writes_it_back_exactly() -> None:
    flight = _Flight.from_json(STORED)
    assert flight.side is Side.ALLIED and flight.origin == "Port Moresby"
    assert flight.legs == (_Leg("E2010", 6), _Leg("E2011", 12))
    assert json.dumps(flight.to_json()) == json.dumps(STORED)  # keys, values and order


def test_optional_fields_are_written_only_when_set_and_derived_ones_never() -> None:
    flight = _Flight(Side.JAPANESE, "Rabaul", (), {}, note="x", last=_Leg("A", 1), seen=True)
    assert flight.to_json() == {
        "side": "japanese",
        "from": "Rabaul",
        "legs": [],
        "aps": {},
        "note": "x",
        "last": {"to": "A", "mp": 1},
    }


def test_a_decoded_mapping_is_a_copy_of_the_stored_one() -> None:
    stored = json.loads(json.dumps(STORED))
    flight = _Flight.from_json(stored)
    stored["aps"]["B-17E"] = 0
    assert flight.aps == {"B-17E": 4}


class _Rolled(Fact, kind="test-codec-rolled", sparse=("tf",)):
    """A fact kind of this test's: a roll, over a TF if any."""

    roll: int
    tf: Annotated[str | None, OPTIONAL] = None


def test_a_fact_kind_is_registered_and_leaves_out_its_optional_fields_while_unknown() -> None:
    told = _Rolled(7, "TF1")
    assert told.to_json() == {"kind": "test-codec-rolled", "roll": 7, "tf": "TF1"}
    assert isinstance(Fact.from_json(told.to_json()), _Rolled)
    assert _Rolled(7).to_json() == {"kind": "test-codec-rolled", "roll": 7}
    sparse = Fact.from_json(_Rolled(7).to_json())  # read back typed, as the same JSON
    assert isinstance(sparse, _Rolled) and sparse.tf is None
    assert sparse.to_json() == {"kind": "test-codec-rolled", "roll": 7}
    # An optional field stored unset would not write back as stored: kept raw.
    unset = {"kind": "test-codec-rolled", "roll": 7, "tf": None}
    assert isinstance(Fact.from_json(unset), RawFact) and Fact.from_json(unset).to_json() == unset
    assert told == RawFact({"kind": "test-codec-rolled", "roll": 7, "tf": "TF1"})  # as JSON
