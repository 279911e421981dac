"""Record payloads: one frozen dataclass per kind, stored as the dict it always was."""

from __future__ import annotations

import dataclasses

import pytest

from pbem.record import payloads
from pbem.record.chain import canonical_json
from pbem.record.payloads import DeadlineExtended, OrdersSealed, Payload


def _kinds() -> list[type[Payload]]:
    return [
        c
        for c in vars(payloads).values()
        if isinstance(c, type) and issubclass(c, Payload) and c is not Payload
    ]


def test_each_kind_has_one_payload_class() -> None:
    kinds = [c.kind for c in _kinds()]
    assert len(kinds) == len(set(kinds)) == 37


def test_to_dict_keeps_the_declared_order_and_values() -> None:
    sealed = OrdersSealed(phase_seq=3, side="north", commitment="ab", late=False, replaced=True)
    assert list(sealed.to_dict().items()) == [
        ("phase_seq", 3),
        ("side", "north"),
        ("commitment", "ab"),
        ("late", False),
        ("replaced", True),
    ]
    # What the hash chain covers is the dict's canonical JSON: unchanged by the type.
    as_before = {
        "phase_seq": 3,
        "side": "north",
        "commitment": "ab",
        "late": False,
        "replaced": True,
    }
    assert canonical_json(sealed.to_dict()) == canonical_json(as_before)


def test_payloads_are_frozen() -> None:
    extended = DeadlineExtended(phase_seq=1, hours=2.0, deadline=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        extended.hours = 3.0  # type: ignore[misc]
