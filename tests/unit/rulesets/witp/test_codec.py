"""codec.py: a typed record's JSON derived from its fields, and fact kinds declared
as their fields only."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

import pytest

from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.witp.knowledge import Fact, RawFact
from pbem.rulesets.witp.records import ABSENT, DERIVED, FLAT, OPTIONAL, Record, Wire, fits


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


@dataclass(frozen=True, slots=True)
class _Check(Record):
    """A nested record two parents hold flat (as coordination.Launch)."""

    first: int
    second: int | None
    cut: str = "none"


@dataclass(frozen=True, slots=True)
class _Launched(Record):
    tf: str
    check: Annotated[_Check, FLAT]
    note: Annotated[str | None, OPTIONAL] = None


class _Checked(Fact, kind="test-codec-checked"):
    tf: str
    cap: Annotated[bool | None, OPTIONAL]
    check: Annotated[_Check, FLAT]


def test_a_flat_record_is_written_in_place_and_read_back_into_the_nested_value() -> None:
    launched = _Launched("TF1", _Check(12, None, "both"), note="x")
    assert json.dumps(launched.to_json()) == json.dumps(
        {"tf": "TF1", "first": 12, "second": None, "cut": "both", "note": "x"}
    )
    stored = {"note": "x", "tf": "TF1", "cut": "both", "first": 12, "second": None}
    back = _Launched.from_json(stored)
    assert back == launched and back.check == _Check(12, None, "both")
    assert json.dumps(back.to_json()) == json.dumps(stored)  # each part's order as read
    assert list(back.put(note=ABSENT).put(note="y").to_json()) == [
        "tf",
        "cut",
        "first",
        "second",
        "note",
    ]
    with pytest.raises(DataError, match="unknown key"):
        _Launched.from_json({**stored, "third": 1})


def test_a_fact_with_a_flat_record_fits_only_with_all_the_nested_keys() -> None:
    told = _Checked("TF2", None, _Check(3, 7))
    assert told.to_json() == {
        "kind": "test-codec-checked",
        "tf": "TF2",
        "first": 3,
        "second": 7,
        "cut": "none",
    }
    assert told.to_json()["second"] == 7  # its stored JSON, flat
    back = Fact.from_json({**told.to_json(), "cap": True})
    assert isinstance(back, _Checked) and back.check == _Check(3, 7) and back.cap is True
    partial = {"kind": "test-codec-checked", "tf": "TF2", "first": 3, "second": 7}
    assert not fits(_Checked, partial) and isinstance(Fact.from_json(partial), RawFact)


@dataclass(frozen=True, slots=True)
class _Marked(_Leg):
    """A record that extends another: its fields after the base's."""

    elite: Annotated[bool, OPTIONAL] = False
    base: Annotated[str | None, OPTIONAL] = None


def test_a_record_extending_another_writes_the_bases_keys_first_and_its_own_when_set() -> None:
    assert _Marked("E2010", 6).to_json() == _Leg("E2010", 6).to_json()
    marked = _Marked("E2010", 6, base="Rabaul")
    assert json.dumps(marked.to_json()) == json.dumps({"to": "E2010", "mp": 6, "base": "Rabaul"})
    stored = {"base": "Rabaul", "mp": 6, "to": "E2010", "elite": True}
    back = _Marked.from_json(stored)
    assert back == _Marked("E2010", 6, elite=True, base="Rabaul")
    assert json.dumps(back.to_json()) == json.dumps(stored)  # its order as read
    assert fits(_Marked, {"to": "E2010", "mp": 6}) and not fits(_Leg, stored)
