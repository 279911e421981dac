"""The outbox's retry schedule: doubling from retry_base, capped at retry_cap, and the
backoff waited out so far (the window for mail of no game), counted from attempts."""

from __future__ import annotations

from pbem.config import OutboxConfig
from pbem.outbox.delivery import retried_for, retry_delay


def test_the_backoff_doubles_up_to_the_cap() -> None:
    config = OutboxConfig(retry_base=30.0, retry_cap=3600.0)
    delays = [retry_delay(config, n) for n in range(1, 11)]
    assert delays == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]
    # Far past any exponent a float can hold: still the cap, never an overflow.
    assert retry_delay(config, 10_000) == 3600


def test_the_backoff_waited_out_is_the_sum_of_the_delays_before_the_last_try() -> None:
    config = OutboxConfig(retry_base=30.0, retry_cap=120.0)
    assert [retried_for(config, n) for n in range(1, 7)] == [0, 30, 90, 210, 330, 450]
    # A week of retrying at the default cap is about 170 tries, not the old 8.
    default = OutboxConfig()
    tries = next(n for n in range(1, 1000) if retried_for(default, n) >= 168 * 3600)
    assert 160 < tries < 180
