"""``pbem data`` and ``pbem demo --help`` for every ruleset with data: each ruleset
and scenario is listed, and each ruleset's data is checkable from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import rulesets
from tests.unit.test_cli_errors import pbem, refused


def test_demo_help_lists_every_ruleset_and_its_scenarios(tmp_path: Path) -> None:
    shown = pbem(tmp_path, "demo", "--help")
    assert shown.returncode == 0, shown.stderr
    for name in rulesets.names():
        line = next(x for x in shown.stdout.splitlines() if x.strip().startswith(f"{name}:"))
        for sc in rulesets.get(name).scenarios():
            assert sc.name in line
    assert "coral-sea (default)" in shown.stdout
    assert "{scenarios}" not in shown.stdout


def test_demo_refuses_an_unknown_ruleset_naming_the_choices(tmp_path: Path) -> None:
    refused(pbem(tmp_path, "demo", "--ruleset", "nosuch"), "'nosuch'", "demo, usn, witp")
    assert not (tmp_path / "pbem-demo").exists()
    assert "by ruleset (--ruleset):" in pbem(tmp_path, "demo", "--help").stdout


@pytest.mark.parametrize("ruleset", ["usn", "witp"])
def test_data_check_passes_on_the_shipped_data(tmp_path: Path, ruleset: str) -> None:
    got = pbem(tmp_path, "data", "check", ruleset)
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("OK: ")


def test_data_check_witp_fails_on_a_broken_pack(tmp_path: Path) -> None:
    """A scenario that uses a pack the installation lacks is named, not a traceback."""
    data = Path(rulesets.__file__).parents[1] / "scenarios" / "witp"
    (tmp_path / "packs").mkdir()
    (tmp_path / "scenarios").mkdir()
    scenario = (data / "scenarios" / "coral-sea-1942.toml").read_text()
    (tmp_path / "scenarios" / "coral-sea-1942.toml").write_text(scenario)
    got = pbem(tmp_path, "data", "check", "witp", "--dir", str(tmp_path))
    assert got.returncode == 1
    assert "no installed pack" in got.stderr and "Traceback" not in got.stderr


def test_data_report_witp_counts_items_by_provenance(tmp_path: Path) -> None:
    got = pbem(tmp_path, "data", "report", "witp")
    assert got.returncode == 0, got.stderr
    head, *rows = got.stdout.splitlines()
    for column in ("rulebook", "derived", "history", "illustrative"):
        assert column in head
    assert any(r.startswith("coral-sea-1942") for r in rows)
    total = rows[-1].split()
    assert total[0] == "total" and int(total[-1]) > 100


def test_data_units_witp_lists_ship_classes_and_air_types(tmp_path: Path) -> None:
    got = pbem(tmp_path, "data", "units", "witp")
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert any(x.startswith("air-") and "illustrative" in x for x in lines)
    assert any(x.startswith("ship-") for x in lines)


def test_docs_html_writes_the_players_pages_to_publish(tmp_path: Path) -> None:
    got = pbem(tmp_path, "docs", "html", "site")
    assert got.returncode == 0, got.stderr
    assert "docs_url" in got.stdout
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="usn-guide.html"' in index and 'href="usn-rule-index.html"' in index
    assert 'id="MOV.N"' in (tmp_path / "site" / "usn-rule-index.html").read_text(encoding="utf-8")
