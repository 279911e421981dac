"""Every event a U.S.N. report can show reads as a sentence (or is told as a combat):
no "kind: key value; key value" dumps. The kinds are read from the engine's own
source (every ``w.event("kind", ...)`` and ``Event("kind", ...)``), so a new kind
without a template fails here, named."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pbem.rulesets.usn as usn
from pbem.reports.narrate import COMBATS, combats, happened, sentence
from pbem.reports.sentences import SENTENCES, plain

USN = Path(usn.__file__).parent
# The one call whose kind is not written out: Work.event, through which all the rest pass.
GENERIC = {"work.py"}


def _kinds(node: ast.AST) -> list[str]:
    """The kinds a call's first argument can be: a string, or either of a conditional's."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _kinds(node.body) + _kinds(node.orelse)
    return []


def _data_keys(call: ast.Call) -> list[str]:
    if isinstance(call.func, ast.Attribute):  # w.event(kind, rule, witnesses, **data)
        return [k.arg for k in call.keywords if k.arg]
    if len(call.args) > 1 and isinstance(call.args[1], ast.Dict):  # Event(kind, {data}, ...)
        return [k.value for k in call.args[1].keys if isinstance(k, ast.Constant)]
    return []


def emitted() -> tuple[dict[str, list[list[str]]], set[str]]:
    """Kind -> the data keys of each call that emits it; and the files with a kind
    that is not written out."""
    kinds: dict[str, list[list[str]]] = {}
    unwritten: set[str] = set()
    for path in sorted(USN.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name not in ("event", "Event"):
                continue
            found = _kinds(node.args[0])
            if not found:
                unwritten.add(path.name)
            for kind in found:
                kinds.setdefault(kind, []).append(_data_keys(node))
    return kinds, unwritten


def test_every_usn_event_kind_has_a_sentence_or_a_combat_telling() -> None:
    kinds, unwritten = emitted()
    assert unwritten == GENERIC, "a kind not written out: the scan cannot check it"
    assert len(kinds) > 60, "the scan found too few kinds: is it still reading the engine?"
    missing = sorted(k for k in kinds if k not in SENTENCES and k not in COMBATS)
    assert not missing, f"event kinds without a sentence template: {missing}"


# Data of the shape the engine writes under these keys (any other: a number).
SAMPLES: dict[str, Any] = {
    "path": ["0069", "0103"],
    "landed": {"0212": 2},
    "orders": ["CAP 2 NAC CV-1"],
    "losses": {"LAC": 2},
    **{
        key: ["CA-1", "DD-2"]
        for key in ("units", "cargo", "ships", "into", "carriers", "subs", "against", "flights")
    },
}


def test_every_usn_sentence_reads_the_data_its_event_carries() -> None:
    """Each template, given the keys its emitting calls write, makes a sentence of
    its own (no fallback to the plain dump)."""
    kinds, _ = emitted()
    dumps = []
    for kind, calls in sorted(kinds.items()):
        if kind in COMBATS:
            continue
        for keys in calls:
            data = {k: SAMPLES.get(k, 1) for k in keys}
            told = sentence({"kind": kind, "data": data})
            if told == plain(kind, data) + ".":
                dumps.append((kind, told))
    assert not dumps, f"sentences that read as key-value dumps: {dumps}"


def test_seq_5h_a_strike_that_found_nothing_says_so_in_words() -> None:
    told = sentence(
        {
            "kind": "strike-found-nothing",
            "rule": "SEQ.5H",
            "data": {
                "side": "allied", "hex": "0859", "target": "ships in port",
                "flights": ["5 LAC from 0659"],
                "message": "your strike found no ships in port at 0859",
            },
        }
    )  # fmt: skip
    assert told == (
        "Allied strike (5 LAC from 0659) found no ships in port at 0859 and returned "
        "without attacking. [SEQ.5H]"
    )


def test_am_bombland_a_retargeted_strike_names_both_units() -> None:
    told = sentence(
        {
            "kind": "strike-retargeted",
            "rule": "AM.BOMBLAND",
            "data": {
                "side": "allied", "hex": "0277", "named": "DIV-7", "target": "BN-1",
                "reason": "DIV-7 is not in 0277: the unit with the lowest defence is bombed",
            },
        }
    )  # fmt: skip
    assert "side allied" not in told and "reason" not in told
    assert told.startswith("Allied strike on DIV-7 at 0277: DIV-7 is not there")
    assert "BN-1, was bombed" in told


def test_ent_c_a_failed_entrenchment_is_not_told_as_a_success() -> None:
    data = {"unit": "RGT-1", "side": "allied", "roll": 5, "success": False}
    assert sentence({"kind": "entrench", "data": data}) == (
        "Allied RGT-1 failed to entrench (die 5)."
    )
    ok = sentence({"kind": "entrench", "data": {**data, "roll": 1, "success": True}})
    assert ok == "Allied RGT-1 entrenched (die 1)."


def test_sup_h_refuelling_names_the_ships_and_the_oiler() -> None:
    data = {"side": "japanese", "oiler": "OIL-1", "ships": ["CA-1", "CV-3"]}
    assert sentence({"kind": "refuelled", "data": data}) == (
        "Japanese CA-1 and CV-3 refuelled from the oiler OIL-1."
    )


def test_crt1_results_are_explained_in_words_the_first_time_only() -> None:
    land = {
        "kind": "land-combat",
        "rule": "SEQ.5K",
        "data": {"hex": "0213", "attacker": "allied", "attackers": ["RGT-1"],
                 "defenders": ["RGT-9"], "attack": "40", "defense": "15", "column": "2-1",
                 "roll": 6, "result": "D2"},
    }  # fmt: skip
    first, second = combats([land, {**land, "data": {**land["data"], "hex": "0214"}}])
    assert (
        "D2: on Class 1 land the defender is destroyed; on Class 2 land it retreats"
        in (first["lines"][1])
    )
    assert "[CRT1.D2]" in first["lines"][1]
    assert second["lines"][1].endswith("(CRT1 result): D2 (as above).")


def test_moves_of_different_units_are_sentences_of_their_own() -> None:
    moves = [
        {"kind": "moved", "data": {"unit": u, "side": "japanese", "path": p}, "rule": "SEQ.2C"}
        for u, p in (("CV-1", ["0103"]), ("TR-1", ["0069"]))
    ]
    assert happened(moves) == [
        "Japanese CV-1 moved 0103. [SEQ.2C]",
        "Japanese TR-1 moved 0069. [SEQ.2C]",
    ]


def test_crt1_a_destruction_by_a_land_combat_result_says_so() -> None:
    data = {"unit": "RGT-1", "side": "japanese", "cause": "Ax"}
    assert sentence({"kind": "destroyed", "data": data, "rule": "CRT1.AX"}) == (
        "Japanese RGT-1 was destroyed (an Ax result in land combat). [CRT1.AX]"
    )
    no_retreat = {**data, "cause": "D2: no retreat"}
    assert sentence({"kind": "destroyed", "data": no_retreat}) == (
        "Japanese RGT-1 was destroyed (a D2 result in land combat: no retreat)."
    )
