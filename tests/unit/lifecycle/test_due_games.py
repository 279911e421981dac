"""Clock.due_games: the clock sweep ticks only games with something due,
and never misses one that ``tick`` would act on (deadlines, reminders, grace,
early adjudication, pause cap)."""

from __future__ import annotations

from datetime import timedelta

from pbem.lifecycle.games import GameMaster

from .conftest import T0, Table

Keys = dict[str, tuple[bytes, str]]


def _setup(table: Table, keys: Keys) -> None:
    def setup(gm: GameMaster) -> None:
        for game_id, early in (("quiet", True), ("waits", False), ("half", False), ("held", True)):
            gm.acts.create_game(game_id, "demo", "duel", settings={"early_adjudication": early})
            gm.acts.assign(
                game_id, "north", f"north-{game_id}@example.org", public_key=keys["north"][1]
            )
            gm.acts.assign(
                game_id, "south", f"south-{game_id}@example.org", public_key=keys["south"][1]
            )
            gm.acts.start(game_id)
        gm.acts.create_game("unstarted", "demo", "duel")

    table.run(setup)
    table.run(lambda gm: gm.phases.submit("waits", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.phases.submit("waits", "south", 1, "plot", ["SEND SQN-2 B"]))
    table.run(lambda gm: gm.phases.submit("half", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.acts.pause("held", "holiday"))


def test_due_games_skips_games_with_nothing_due(table: Table, keys: Keys) -> None:
    _setup(table, keys)
    # All orders in but no early adjudication, one side owing orders long before
    # its reminder: nothing to do. A paused game is always looked at (pause cap).
    assert table.run(lambda gm: gm.clock.due_games()) == ["held"]
    assert sorted(table.run(lambda gm: gm.clock.live_games())) == ["half", "held", "quiet", "waits"]


def test_due_games_lists_reminders_and_passed_deadlines(table: Table, keys: Keys) -> None:
    _setup(table, keys)
    table.now = T0 + timedelta(hours=48, minutes=1)  # reminders are due (24 h before)
    assert table.run(lambda gm: gm.clock.due_games()) == ["half", "held", "quiet"]
    table.now = T0 + timedelta(hours=72, minutes=1)  # the deadline passed: "waits" is all in
    assert "waits" in table.run(lambda gm: gm.clock.due_games())


def test_due_games_never_misses_a_game_tick_acts_on(table: Table, keys: Keys) -> None:
    _setup(table, keys)
    acted = set()
    for hours in (0, 24, 47, 48.1, 49, 72.1, 80, 100, 200, 24 * 40):
        table.now = T0 + timedelta(hours=hours)
        due = set(table.run(lambda gm: gm.clock.due_games()))
        for game_id in table.run(lambda gm: gm.clock.live_games()):
            did = table.run(lambda gm, g=game_id: gm.clock.tick(g))
            if did:
                acted.add(game_id)
                assert game_id in due, (hours, game_id, did)
    # The walk exercised reminders, adjudication and the pause cap.
    assert acted == {"quiet", "waits", "half", "held"}


def test_due_games_among_looks_only_at_the_games_named(table: Table, keys: Keys) -> None:
    _setup(table, keys)
    table.now = T0 + timedelta(hours=48, minutes=1)
    assert table.run(lambda gm: gm.clock.due_games(among={"quiet", "waits"})) == ["quiet"]
    assert table.run(lambda gm: gm.clock.due_games(among=set())) == []
