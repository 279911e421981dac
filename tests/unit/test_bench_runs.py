"""The benchmarks keep running as the code changes (timing is theirs, not the tests')."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_adjudicate_bench_plays_a_campaign_game_turn_past_the_opening() -> None:
    result = _bench("adjudicate").run(1, 1, "campaign-3")
    assert result["turns"] == 1
    assert result["opening_rounds"] >= 1  # the set-up rounds by mail came first
    assert result["orders"] > result["refused"] >= 0


def test_outbox_bench_drains_a_burst_over_one_connection_and_over_the_pool() -> None:
    bench = _bench("outbox")
    results = bench.run(10, (1, 2), (0.0,))
    assert [(r.connections, r.mails) for r in results] == [(1, 10), (2, 10)]
    assert all(0 <= r.median_s <= r.p95_s for r in results)
    assert "| 0 | 2 | 10 |" in bench.report(results)


def test_report_bench_renders_both_sides_with_and_without_the_map() -> None:
    result = _bench("report").run(2, 1, "campaign-3")
    assert result["reports"] == 4
    assert result["words_ms"] > 0 and result["full_ms"] > 0 and result["png_kib"] > 0
