"""The War in the Pacific ruleset through the lifecycle's interface: registered,
the clock runs to the end, a naval plot takes PASS and refuses the rest with
line, reason and rule, a moderator's pack changes one game only."""

from __future__ import annotations

from pbem import rulesets
from pbem.core.dice import SeededDice
from pbem.core.ruleset import LineError
from pbem.rulesets.witp.ruleset import WitpRuleset

from .conftest import SCENARIO


def _play(witp, state):  # type: ignore[no-untyped-def]
    names = []
    while (d := witp.pending(state)) is not None:
        names.append(d.phase)
        orders = {s: list(witp.default_orders(state, s)) for s in d.sides}
        state = witp.adjudicate(state, orders, SeededDice(b"k", "g", d.turn, d.phase)).state
    return names, state


def test_registered_as_witp() -> None:
    r = rulesets.get("witp")
    assert isinstance(r, WitpRuleset) and "witp" in rulesets.names()
    (info,) = r.scenarios()
    assert (info.name, info.sides) == (SCENARIO, ("japanese", "allied"))


def test_3_1_the_game_runs_its_game_turns_to_the_end(witp) -> None:  # type: ignore[no-untyped-def]
    names, end = _play(witp, witp.initial_state(SCENARIO, {}))
    # 42.3.1 (R70): the Coral Sea's Allies hold the SI advantage openly, so every naval
    # Plot Segment is two rounds, the Japanese half first.
    # Each Air Phase's Allocation Segment is one round (5.0), both sides at once.
    assert names[0] == "T1-open" and names[-1] == "T3-naval3-plot"
    assert len(names) == 1 + 3 * 3 * 2 + 3 * 3
    assert names[1:4] == ["T1-air1-allocation", "T1-naval1-plot-japanese", "T1-naval1-plot"]
    # R106: with no strike plotted no ship is sunk, and the verdict is a draw.
    outcome = witp.outcome(end)
    assert outcome is not None and outcome.winner is None and outcome.level == "Draw"
    assert witp.view(end, (), "allied")["clock"]["over"] is True


def test_3_1_c_plot_segment_demands_both_sides(witp) -> None:  # type: ignore[no-untyped-def]
    no_gate = {"rulings": {"sigint-plot-gate": {"value": "off"}}}  # R70's house rule
    state = witp.adjudicate(
        witp.initial_state(SCENARIO, {"datapack": no_gate}), {}, SeededDice(b"k", "g", 1, "T1-open")
    ).state
    passes = {"japanese": ["PASS"], "allied": ["PASS"]}  # T1-air1-allocation: no strike
    state = witp.adjudicate(state, passes, SeededDice(b"k", "g", 1, "T1-air1-allocation")).state
    d = witp.pending(state)
    assert (d.turn, d.phase, d.sides) == (1, "T1-naval1-plot", ("japanese", "allied"))
    assert d.title == "First Naval Phase: Plot Segment" and d.steps[0].endswith("(16.3)")
    form = witp.order_template(state, "japanese")
    assert "T1-naval1-plot" in form and form.splitlines()[-1] == "PASS"
    assert witp.validate(state, "allied", "").accepted == ()
    assert witp.validate(state, "allied", "# nothing\npass\nPASS").accepted == ("PASS",)
    refused = witp.validate(state, "allied", "PASS\nMOVE TF17 to 1510\nPASS now\nRETREAT")
    assert refused.accepted == ("PASS",)
    assert [(e.line, e.rule) for e in refused.errors] == [(2, "16.3"), (3, "3.1 C"), (4, "16.3")]
    assert all(isinstance(e, LineError) and e.message for e in refused.errors)
    assert "a line begins with a TF" in refused.errors[0].message


def test_the_opening_round_takes_no_orders(witp) -> None:  # type: ignore[no-untyped-def]
    state = witp.initial_state(SCENARIO, {})
    assert witp.pending(state).sides == ()
    (err,) = witp.validate(state, "allied", "PASS").errors
    assert err.rule == "3.1" and "no orders are due" in err.message
    assert witp.order_template(state, "allied") == ""


def test_a_moderators_pack_changes_this_game_only(witp) -> None:  # type: ignore[no-untyped-def]
    pack = {
        "scenario": {
            "game-turns": {"value": 5, "source": "our club's scenario card"},
            "start-date": {"value": "1942-05-01"},
        },
        "units": {
            "ship-cv-yorktown": {
                "value": {"speed_class": 3, "defence": 7},
                "provenance": "data-pack",
                "source": "owner's counters",
            }
        },
    }
    state = witp.initial_state(SCENARIO, {"datapack": pack})
    view = witp.view(state, (), "allied")
    assert view["clock"]["game_turns"] == 5 and view["clock"]["week_of"] == "1942-05-01"
    assert "units/ship-cv-yorktown" not in [i["item"] for i in view["illustrative"]]
    assert "scenario/game-turns" not in [i["item"] for i in view["illustrative"]]
    names, _ = _play(witp, state)
    assert "T4-naval3-plot" in names and names[-1] == "T5-naval3-plot"
    assert witp.view(witp.initial_state(SCENARIO, {}), (), "allied")["clock"]["game_turns"] == 3


def test_views_say_where_they_rest_on_illustrative_values(witp) -> None:  # type: ignore[no-untyped-def]
    state = witp.initial_state(SCENARIO, {})
    allied = witp.view(state, (), "allied")
    japanese = witp.view(state, (), "japanese")
    items = [i["item"] for i in allied["illustrative"]]
    assert "units/ship-cv-yorktown" in items and "scenario/turn-in-cycle" in items
    assert "units/ship-cvl-shoho" not in items  # only the Japanese have a CVL (Shoho)
    assert "units/ship-cvl-shoho" in [i["item"] for i in japanese["illustrative"]]
    assert {f["side"] for f in allied["forces"]} == {"allied"}
    assert {f["side"] for f in witp.view(state, (), None)["forces"]} == {"japanese", "allied"}
