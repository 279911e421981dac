"""Mission cards (16.3, 17.x): syntax and legality, each refusal with its rule.

The Allied TF Display at the start of the Coral Sea scenario: TF1 the Fuelling
Group (Neosho, Tippecanoe; speed class 2), TF2 Task Force 11 (Lexington), TF3 Task
Force 17 (Yorktown), TF4 Task Force 44 (Crace's cruisers), all at sea.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.rulesets.witp.ruleset import WitpRuleset

from .naval import at_plot, edited, past_allocation, play, refusal, tfs


@pytest.fixture(scope="module")
def start(witp: WitpRuleset) -> dict[str, Any]:
    return at_plot(witp)


def test_16_3_a_card_is_lines_naming_a_tf_and_its_missions(witp, start) -> None:  # type: ignore[no-untyped-def]
    v = witp.validate(start, "allied", "tf 3 speed 3\nTF3 MOVE E2320 EV 2\n# a comment\nPASS")
    assert v.accepted == ("TF3 SPEED 3", "TF3 MOVE E2320 EV 2", "PASS") and not v.errors
    assert refusal(witp, start, "allied", "TF3 SAIL E2320")[0] == "16.3"
    assert refusal(witp, start, "allied", "GO TF3")[0] == "16.3"


def test_16_2_a_side_plots_only_its_own_tfs(witp, start) -> None:  # type: ignore[no-untyped-def]
    # The Japanese have a TF5, the Allies none: the answer is the same as for TF59.
    rule, message = refusal(witp, start, "allied", "TF5 MOVE E2320 EV 0")
    assert (rule, message) == ("16.2", "TF5 is not one of your task forces")
    assert refusal(witp, start, "allied", "TF59 MOVE E2320 EV 0") == (
        "16.2",
        "TF59 is not one of your task forces",
    )


def test_16_1_1_markers_are_tf1_to_tf60(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert refusal(witp, start, "allied", "TF3 REGP DUMMY TF61")[0] == "16.1.1"
    assert refusal(witp, start, "allied", "TF3 REGP DUMMY TF2")[0] == "16.1.1"
    form = witp.order_template(start, "allied")
    assert "Free markers: TF5-TF60 (56 of 60, 16.1.1)" in form


def test_17_16_5_a_move_missions_ev_is_0_to_14(witp, start) -> None:  # type: ignore[no-untyped-def]
    ok = edited(start, "allied", "TF4", ships=["Australia", "Chicago"])  # cruisers only
    assert not witp.validate(ok, "allied", "TF4 MOVE E2126 EV 14").errors
    assert refusal(witp, ok, "allied", "TF4 MOVE E2126 EV 15")[0] == "17.16.5"
    assert refusal(witp, ok, "allied", "TF4 MOVE E2126")[0] == "17.16.5"


def test_16_4_7_non_combatants_never_in_a_tf_with_ev_above_4(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert not witp.validate(start, "allied", "TF3 MOVE E2320 EV 4").errors
    rule, message = refusal(witp, start, "allied", "TF3 MOVE E2320 EV 5")
    assert rule == "16.4.7" and "CV" in message


def test_17_13_4_a_tf_moves_no_more_than_its_allowance(witp, start) -> None:  # type: ignore[no-untyped-def]
    # 126 MP at speed class 3: 21 Tropical hexes of 6 MP (17.13.3); 84 at speed class 1.
    far = "E2303"  # 21 hexes north of E2324
    assert not witp.validate(start, "allied", f"TF3 MOVE {far} EV 0").errors
    rule, message = refusal(witp, start, "allied", f"TF3 SPEED 1\nTF3 MOVE {far} EV 0")
    assert rule == "17.13.4" and "84" in message


def test_17_13_7_no_route_across_land(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert refusal(witp, start, "allied", "TF3 MOVE E0113 EV 0")[0] == "17.13.7"
    assert refusal(witp, start, "allied", "TF3 MOVE Atlantis EV 0")[0] == "2.1.1"


def test_17_13_1_no_faster_than_the_slowest_ship(witp, start) -> None:  # type: ignore[no-untyped-def]
    rule, message = refusal(witp, start, "allied", "TF1 SPEED 3")
    assert rule == "17.13.1" and "speed class 2" in message
    assert not witp.validate(start, "allied", "TF1 SPEED 2").errors


def test_16_0_speed_is_chosen_at_sortie_then_kept(witp, start) -> None:  # type: ignore[no-untyped-def]
    after = play(witp, start, allied="TF4 SPEED 2\nTF4 MOVE E2126 EV 0").state
    assert tfs(after, "allied")["TF4"]["speed_class"] == "SC2"
    rule, message = refusal(witp, after, "allied", "TF4 SPEED 3")
    assert rule == "18.2.1" and "First Naval Phase" in message  # this is the Second
    after = past_allocation(witp, after)  # the next naval plot (stage 2's Allocation passed)
    assert not witp.validate(after, "allied", "TF4 SPEED 2\nTF4 MOVE E2125 EV 0").errors


def test_18_2_1_a_voluntary_change_of_speed_class_converts_the_phases_left(witp, start) -> None:  # type: ignore[no-untyped-def]
    # T1-naval1-plot is a First Naval Phase: TF3, SC3 with 2 of its 3 phases left.
    used = edited(start, "allied", "TF3", speed_class="SC3", fuel=2)
    assert not witp.validate(used, "allied", "TF3 SPEED 1\nTF3 MOVE E2323 EV 0").errors
    after = play(witp, used, allied="TF3 SPEED 1\nTF3 MOVE E2323 EV 0").state
    t3 = tfs(after, "allied")["TF3"]
    assert t3["speed_class"] == "SC1" and t3["fuel"] == 2 * 3 - 1  # 3 per SC3 phase left, one spent
    halved = play(witp, used, allied="TF3 SPEED 2\nTF3 MOVE E2323 EV 0").state
    assert tfs(halved, "allied")["TF3"]["fuel"] == 3 - 1  # 3 for every 2 left
    fresh = edited(start, "allied", "TF3", speed_class="SC3", fuel=3)
    assert refusal(witp, fresh, "allied", "TF3 SPEED 2")[0] == "18.2.3"
    slow = edited(start, "allied", "TF1", speed_class="SC2", fuel=4)
    assert refusal(witp, slow, "allied", "TF1 SPEED 3")[0] == "18.2.1"


def test_16_0_active_phases_a_game_turn_by_speed_class(witp, start) -> None:  # type: ignore[no-untyped-def]
    after = play(witp, start, allied="TF4 SPEED 1\nTF4 MOVE E2126 EV 0").state
    rule, message = refusal(witp, after, "allied", "TF4 MOVE E2125 EV 0")
    assert rule == "16.0" and "1 active" in message


def test_17_10_linked_tfs_begin_together_and_plot_only_the_link(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert refusal(witp, start, "allied", "TF1 LINK TF3")[0] == "17.10"
    together = edited(start, "allied", "TF1", hex="E2324")
    assert not witp.validate(together, "allied", "TF1 LINK TF3").errors
    assert refusal(witp, together, "allied", "TF1 LINK TF3\nTF1 MOVE E2320 EV 0")[0] == "17.10"


def test_17_11_regroup_names_ships_of_the_tf(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert not witp.validate(start, "allied", "TF3 REGP TF7 SHIPS Astoria, chester").errors
    rule, message = refusal(witp, start, "allied", "TF3 REGP TF7 SHIPS Lexington")
    assert rule == "17.11" and "Lexington is not in TF3" in message
    assert refusal(witp, start, "allied", "TF3 REGP TF7 Astoria")[0] == "17.11"


def test_13_6_dummies_come_from_the_allotment(witp, start) -> None:  # type: ignore[no-untyped-def]
    spent = edited(start, "allied", "TF3")
    spent["private"]["allied"]["dummy_allotment"]["sorties"] = spent["private"]["allied"][
        "dummy_allotment"
    ]["allowed"]
    assert refusal(witp, spent, "allied", "TF3 REGP DUMMY TF9")[0] == "13.6"
    assert not witp.validate(start, "allied", "TF3 REGP DUMMY TF9").errors


def test_17_9_fuel_only_from_oilers(witp, start) -> None:  # type: ignore[no-untyped-def]
    rule, message = refusal(witp, start, "allied", "TF3 FUEL FROM TF4")
    assert rule == "17.9" and "no oiler" in message
    assert not witp.validate(start, "allied", "TF3 FUEL FROM TF1").errors
    assert refusal(witp, start, "allied", "TF3 FUEL E2320 FROM TF1")[0] == "17.9.1"


def test_17_8_transport_needs_transports_and_a_friendly_hex(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert refusal(witp, start, "allied", "TF3 TRAN Port_Moresby")[0] == "17.8"
    rule, message = refusal(witp, start, "japanese", "TF4 TRAN Port_Moresby")
    assert rule == "17.8" and "amphibious assault" in message
    assert not witp.validate(start, "japanese", "TF4 SPEED 1\nTF4 TRAN Lae").errors


def test_18_4_1_port_only_where_the_side_has_one(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert refusal(witp, start, "allied", "TF4 MOVE E2126 EV 0\nTF4 PORT")[0] == "18.4.1"
    assert not witp.validate(start, "allied", "TF4 MOVE Port_Moresby EV 0\nTF4 PORT").errors
    assert (
        refusal(witp, start, "allied", "TF4 MOVE Port_Moresby EV 0\nTF4 PORT\nTF4 MOVE E2126 EV 0")[
            0
        ]
        == "18.4.1"
    )


def test_16_6_night_once_and_within_the_plotted_hexes(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert not witp.validate(start, "allied", "TF3 MOVE E2320 EV 0\nTF3 NIGHT AFTER 2").errors
    assert refusal(witp, start, "allied", "TF3 NIGHT AFTER 2\nTF3 MOVE E2320 EV 0")[0] == "16.6"
    two = "TF3 MOVE E2320 EV 0\nTF3 NIGHT AFTER 1\nTF3 NIGHT AFTER 2"
    assert refusal(witp, start, "allied", two)[0] == "16.6.5"


def test_later_stage_missions_are_refused_with_their_rule(witp, start) -> None:  # type: ignore[no-untyped-def]
    assert refusal(witp, start, "allied", "TF3 REAC E2320") == (
        "17.5",
        "the REAC mission is not moderated yet",
    )
    assert refusal(witp, start, "allied", "TF3 BMB Tulagi")[0] == "17.2"


def test_the_order_form_lists_the_sides_tfs_and_options(witp, start) -> None:  # type: ignore[no-untyped-def]
    form = witp.order_template(start, "allied")
    (tf3,) = [
        ln for ln in form.splitlines() if ln.startswith("#   TF3 (Task Force 17): E2324, at sea;")
    ]
    assert "CV Yorktown" in tf3  # a TF a line, its ships by type and name
    assert "MOVE <hex> [VIA <hex>...] EV 0-14" in form and form.endswith("PASS\n")
    assert "Shokaku" not in form and "Rabaul" not in form


def test_17_10_a_linked_tf_cannot_outrun_its_speed_class(witp, start) -> None:  # type: ignore[no-untyped-def]
    # A speed class 1 follower (84 MP) linked to a leader plotted 126 MP.
    slow = edited(start, "allied", "TF1", hex="E2324", speed_class="SC1", fuel=3)
    text = "TF1 LINK TF3\nTF3 MOVE E2303 EV 0"
    v = witp.validate(slow, "allied", text)
    assert v.accepted == ("TF3 MOVE E2303 EV 0",)
    ((line, rule),) = [(e.line, e.rule) for e in v.errors]
    assert (line, rule) == (1, "17.10") and "84" in v.errors[0].message
