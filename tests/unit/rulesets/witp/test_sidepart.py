"""A side's private part typed (sidepart.SidePart): every key of every side's part in
the golden Coral Sea game reads as its owner's record and writes back byte for byte;
a key no rule owns is refused; the round's work area writes a changed part back in
place, a TF's record rewritten where it stands (another rule may hold it mid-move)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from pbem.core.errors import DataError
from pbem.core.sides import ALLIED, JAPANESE, SIDES
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.air.bases import AirBase
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.intelrecords import Holdings, Jn25
from pbem.rulesets.witp.knowledge import PRIVATE
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.sidepart import DummyAllotment, SidePart
from pbem.rulesets.witp.standing import Standing
from pbem.rulesets.witp.state import WitpState
from pbem.rulesets.witp.tfdisplay import Ship, TaskForce
from pbem.rulesets.witp.work import Work

from .conftest import SCENARIO
from .test_typed_state import golden_states

# Each key the golden game keeps, and the record its values read as.
RECORDS: Mapping[str, type] = {
    "forces": PackItem,
    "tfs": TaskForce,
    "ships": Ship,
    "air_bases": AirBase,
}
WHOLE: Mapping[str, type] = {
    "standing": Standing,
    "dummy_allotment": DummyAllotment,
    "intelligence": Holdings,
    "jn25": Jn25,
}


def test_every_sides_part_of_the_golden_game_reads_as_its_records(witp: WitpRuleset) -> None:
    seen: set[str] = set()
    for n, stored in enumerate(golden_states(witp)):
        typed = WitpState.from_json(stored)
        for side in SIDES:
            raw: dict[str, Any] = stored[PRIVATE][side]
            part = typed.private[side]
            assert json.dumps(part.to_json()) == json.dumps(raw), f"{side}, state {n}"
            for key in raw:
                value = getattr(part, key)
                if key in RECORDS:
                    assert all(isinstance(v, RECORDS[key]) for v in value.values()), key
                if key in WHOLE:
                    assert isinstance(value, WHOLE[key]), key
            seen |= set(raw)
    # The golden game keeps these (the others: the air and 42.9 tests' own worlds).
    assert set(RECORDS) | set(WHOLE) | {"plots", "card_order", "card_lines"} <= seen


def test_a_key_no_rule_owns_is_refused(witp: WitpRuleset) -> None:
    stored = witp.initial_state(SCENARIO, {})
    with pytest.raises(DataError, match="unknown key"):
        SidePart.from_json({**stored[PRIVATE][ALLIED], "umpire": 1})


def test_a_part_written_back_keeps_its_records_in_place(witp: WitpRuleset) -> None:
    work = Work.begin(witp.initial_state(SCENARIO, {}))
    part = work.json[PRIVATE][JAPANESE]
    tf, record = next(iter(part["tfs"].items()))
    keys, before = list(part), list(part["tfs"])
    tfs.update(work, JAPANESE, tf, hex=HexId("E2030"))
    # the same record, rewritten where it stands; the part's keys and TFs in order
    assert work.json[PRIVATE][JAPANESE]["tfs"][tf] is record and record["hex"] == "E2030"
    assert list(part) == keys and list(part["tfs"]) == before
    tfs.remove(work, JAPANESE, tf)
    assert tf not in part["tfs"] and list(part) == keys
    # a key first set comes last, as in a dict; one taken away goes
    work.put_part(JAPANESE, work.part(JAPANESE).put(card_order=("TF2",)))
    assert list(part) == [*keys, "card_order"] and part["card_order"] == ["TF2"]
    work.put_part(JAPANESE, work.part(JAPANESE).put(card_order=()).put(plots={}))
    assert part["card_order"] == [] and list(part) == [*keys, "card_order"]
