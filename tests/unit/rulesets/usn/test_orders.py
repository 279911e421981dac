"""The order language: grammar, canonical forms, one error per bad line."""

from __future__ import annotations

import pytest

from pbem.core.errors import IllegalOrderError, OrderError, OrderSyntaxError
from pbem.rulesets.usn.orders import (
    AirCargo,
    Embark,
    Mission,
    Move,
    Standing,
    Transfer,
    parse_line,
    parse_orders,
)
from pbem.rulesets.usn.sequence import StepKind
from pbem.rulesets.usn.standing import INT_CASES, merge, resolve

AIR_SEA = frozenset({StepKind.AIR_SEA})
STRIKE = frozenset({StepKind.STRIKE})


def parse(text: str, kinds: frozenset[StepKind] = AIR_SEA):
    return parse_orders(text, kinds)


def test_mov_proc_move_is_units_then_a_hex_path() -> None:
    (ln,), errors = parse("move cv3, CA-1 759 0760 OFF")
    assert not errors
    assert ln.order == Move(("CV-3", "CA-1"), ("0759", "0760", "OFF"))
    assert ln.order.canonical() == "MOVE CV-3 CA-1 0759 0760 OFF"


def test_comments_and_blank_lines_are_ignored_and_line_numbers_kept() -> None:
    lines, errors = parse("# my orders\n\nMOVE CA-1 0759  # to Rabaul\nBOGUS\n")
    assert [ln.number for ln in lines] == [3]
    assert [(e.line, e.text) for e in errors] == [(4, "BOGUS")]


def test_unit_air_types_every_bad_line_is_reported_and_good_lines_kept() -> None:
    text = "MOVE 0759\nMOVE CA-1\nTRANSFER 3 XAC 0759 TO 0760\nMOVE CA-1 9999\nMOVE CA-1 0760"
    lines, errors = parse(text)
    assert [e.line for e in errors] == [1, 2, 3, 4]
    assert "off the map" in errors[3].message
    assert errors[2].rule == "UNIT.AIR.TYPES"
    assert len(lines) == 1


def test_off_may_only_end_a_path() -> None:
    _, (e,) = parse("MOVE CA-1 OFF 0759")
    assert e.rule == "OFF.EAST"


def test_seq_2a_transfer_syntax() -> None:
    (ln,), _ = parse("TRANSFER 5 nac 0759 to cv-3")
    assert ln.order == Transfer(AirCargo(5, "NAC"), "0759", "CV-3")


def test_seq_2d_embark_mixed_cargo() -> None:
    (ln,), _ = parse("EMBARK TR-1 RGT-2 4 LAC")
    assert ln.order == Embark("TR-1", ("RGT-2", AirCargo(4, "LAC")))


def test_seq_5e_strike_needs_a_group_for_ships() -> None:
    lines, errors = parse("STRIKE 5 NAC CV-3 0899 SHIPS 1\nSTRIKE 5 NAC CV-3 0899 SHIPS", STRIKE)
    assert lines[0].order == Mission("STRIKE", AirCargo(5, "NAC"), "CV-3", 899, "SHIPS", 1)
    assert errors[0].rule == "AMAC.B"


def test_am_cap_hex_cap_names_no_target() -> None:
    _, (e,) = parse("CAP 3 NAC CV-3 0899", STRIKE)
    assert e.rule == "AM.CAP.HEX"


def test_seq_strict_verb_outside_its_steps() -> None:
    _, (e,) = parse("ATTACK 0659 RGT-1")
    assert e.rule == "SEQ.STRICT"


def test_standing_orders_parse_merge_and_defaults() -> None:
    lines, errors = parse(
        "STANDING SURFACE STAY\nSTANDING SURFACE FLEE CV-5\nSTANDING RETREAT rgt-1 0659 660\n"
        "STANDING AIRKILL LAC NAC LBAC\nSTANDING CAP MAYBE",
        STRIKE,
    )
    assert errors[0].rule == "AM.CAP.OPTIONAL"
    kept = merge((), [ln.order for ln in lines if isinstance(ln.order, Standing)])
    so = resolve("allied", kept)
    assert so.surface_choice("CV-5") == "FLEE" and so.surface_choice("CA-1") == "STAY"
    assert so.retreat_hexes("RGT-1") == (659, 660)
    assert so.airkill == ("LAC", "NAC", "LBAC")
    assert so.airloss == ("LAC", "NAC", "LBAC")  # default
    assert merge(kept, [Standing("CLEAR", ())]) == ()


def test_int_every_inventory_int_case_has_a_standing_order() -> None:
    """Each case flagged INT in usn-rules-inventory.md is covered (docs list them too)."""
    flagged = {
        "SEQ.2G",
        "SEQ.5E",
        "SEQ.5F.1",
        "SEQ.5G.1",
        "SEQ.5H.1",
        "SEQ.5I.1-2c",
        "AM.CAP.OPTIONAL",
        "SUB.C",
        "SUB.H",
        "NM.SURF.2",
    }
    covered = {r for case in INT_CASES for r in case.rules}
    assert flagged <= covered
    assert all(c.order and c.default for c in INT_CASES)


def test_unit_air_types_a_bad_line_raises_order_syntax_error_with_its_rule() -> None:
    """The parser raises the core taxonomy; parse_orders answers it per line."""
    with pytest.raises(OrderSyntaxError) as e:
        parse_line("TRANSFER 3 XAC 0759 TO 0760")
    assert e.value.rule == "UNIT.AIR.TYPES"


def test_seq_strict_an_illegal_order_always_names_its_rule() -> None:
    err = IllegalOrderError("MOVE is not an order of this round", rule="SEQ.STRICT")
    assert isinstance(err, OrderError) and err.rule == "SEQ.STRICT"
    with pytest.raises(TypeError):
        IllegalOrderError("no rule given")  # type: ignore[call-arg]
