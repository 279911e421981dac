"""The report's search section reads a busy phase: one line a searcher and band
(13.3: the band's value shared over the hexes it searched), each searched hex's
roll and number needed on it, and still every search announced (13.3)."""

from __future__ import annotations

from typing import Any

from pbem.core.sides import ALLIED, JAPANESE, SIDES
from pbem.rulesets.witp import searchview
from pbem.rulesets.witp.knowledge import Fact, disclose
from pbem.rulesets.witp.known import Knowledge

from .journal import Told

TIME = "T1/naval1/execution"


def _search(
    state: dict[str, Any], origin: str, band: str, value: int, hexid: str, **kw: Any
) -> None:
    fact = {
        "kind": "air-search",
        "searcher": ALLIED,
        "from": origin,
        "hex": hexid,
        "tf": kw.get("tf"),
        "owner": JAPANESE,
        "band": band,
        "value": value,
        "needed": kw.get("needed", 70),
        "roll": kw.get("roll", 50),
        "contact": kw.get("contact", False),
        "intensive": False,
    }
    disclose(Told(state), Fact.from_json(fact), SIDES, kw.get("time", TIME), "13.3")


def _busy() -> dict[str, Any]:
    clock = {"at": 0, "game_turns": 3, "turn_in_cycle": 1}
    state: dict[str, Any] = {"public": {"clock": clock, "pack": {}}, "private": {}}
    _search(state, "Cairns", "medium", 3, "E1718", tf="TF4", roll=88, contact=True)
    _search(state, "Noumea", "extended", 2, "E1718", tf="TF4", needed=95, roll=72)
    _search(state, "Cairns", "medium", 3, "E1618", tf="TF3", roll=13)
    _search(state, "Cairns", "long", 3, "E1716", tf="TF4", needed=85, roll=24)
    disclose(
        Told(state),
        Fact.from_json({"kind": "air-search-empty", "searcher": ALLIED, "from": "Cairns",
                        "hex": "E1820", "band": "medium", "value": 3}),
        SIDES, TIME, "13.3",
    )  # fmt: skip
    _search(state, "Cairns", "medium", 3, "E1718", tf="TF4", roll=9, time="T1/air2/search")
    return state


def test_13_3_a_busy_phase_gives_one_line_a_searcher_and_band() -> None:
    for side in SIDES:
        lines = searchview.build(Knowledge.of(_busy(), side))["searches"]
        assert lines == [
            "T1/naval1/execution: Allied from Cairns (medium band, value 3): "
            "E1718 TF4 88/70 found, E1618 TF3 13/70 missed, E1820 empty",
            "T1/naval1/execution: Allied from Noumea (extended band, value 2): "
            "E1718 TF4 72/95 missed",
            "T1/naval1/execution: Allied from Cairns (long band, value 3): E1716 TF4 24/85 missed",
            # another segment's search by the same searcher is its own line
            "T1/air2/search: Allied from Cairns (medium band, value 3): E1718 TF4 9/70 missed",
        ]


def test_13_3_the_round_reported_keeps_only_its_own_searches() -> None:
    lines = searchview.build(Knowledge.of(_busy(), JAPANESE), {"T1/air2/search"})["searches"]
    assert lines == [
        "T1/air2/search: Allied from Cairns (medium band, value 3): E1718 TF4 9/70 missed"
    ]
