"""The lifecycle's fixtures (a moderator's table, a demo game) for the Publisher tests."""

from tests.unit.lifecycle.conftest import config, demo_game, keys, sessions, table  # noqa: F401
