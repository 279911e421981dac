"""The Air Strike Plot's typed orders (air/strikes.py) and their one JSON codec: the
stored shapes come back exactly, every optional key only when set."""

from __future__ import annotations

import json

from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import plot
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.strikes import (
    AirElement,
    AirStrike,
    CoverFlight,
    CoverKind,
    FiledPlot,
    SuppressionAsk,
)

from .test_air_world import knowing, world

RABAUL = {"Rabaul": {"hex": "E2004", "air_points": {"G4M1": 6, "A6M2": 4, "H6K4": 2}}}
MORESBY = {"Port Moresby": {"hex": "E2020", "air_points": {"B-17E": 4, "P-39": 3}}}


def _round_trip(stored: dict[str, object]) -> None:
    again = FiledPlot.from_json(json.loads(json.dumps(stored))).to_json()
    assert json.dumps(again) == json.dumps(stored)  # the same keys, in the same order


def test_a_filed_plot_of_every_order_comes_back_byte_for_byte() -> None:
    s = world(bases={JAPANESE: RABAUL}, located=("allied:TF2",))
    text = "\n".join(
        [
            "STRIKE S1 FROM TF1 2xD3A1 2xB5N2/T TARGET TF2 PRIORITY CV RETURN Rabaul",
            "ESCORT S1 FROM TF1 2xA6M2@L LOOSE SUPPRESS 1",
            "STRIKE S1 FROM Rabaul 4xG4M1/T TARGET TF2",
            "COVER C1 FROM Rabaul 1xA6M2 OVER E2004",
            "EMERGENCY E1 FROM Rabaul 1xA6M2 OVER E2005",
            "TRANSFER T1 1xA6M2 FROM Rabaul TO TF1",
            "RECIPROCAL AFTER",
            "ENTRY S1 ROLLED",
            "CAP TF1 H:2 M:1",
        ]
    )
    p, errors = plot.judge(knowing(s, JAPANESE), JAPANESE, text)
    assert errors == []
    filed = p.filed("T1/air1/allocation")
    stored = filed.to_json()
    assert stored["time"] == "T1/air1/allocation" and stored["choices"] == {"reciprocal": "after"}
    assert stored["strikes"]["S1"]["entry"] == "rolled"
    assert stored["strikes"]["S1"]["parts"][0]["escorts"][0]["suppress"]["n"] == 1
    assert filed.cap_shares("TF1") == {"H": 2, "M": 1} and filed.cap_shares("TF9") is None
    _round_trip(stored)
    assert FiledPlot.from_json(stored) == filed


def test_naval_cover_aloft_keeps_up_and_the_naval_plots_mark() -> None:
    s = world(bases={ALLIED: MORESBY})
    p, errors = plot.judge(
        knowing(s, ALLIED), ALLIED, "NAVALCOVER C1 FROM Port_Moresby 2xP-39 OVER TF2"
    )
    assert errors == []
    flight = p.cover_flights["C1"]
    assert flight.kind is CoverKind.NAVAL_COVER and "up" not in flight.to_json()
    for aloft in (
        {**flight.to_json(), "up": None, "plotted": "naval"},
        {**flight.to_json(), "up": 2},
    ):
        assert CoverFlight.from_json(aloft).to_json() == aloft


def test_a_special_strike_keeps_its_marks() -> None:
    stored = {
        "id": "X1",
        "side": JAPANESE,
        "target": {"owner": ALLIED, "tf": "TF2", "hex": "E2010"},
        "priority": None,
        "return": None,
        "night": False,
        "special": True,
        "parts": [
            {
                "base": "Rabaul",
                "hex": "E2004",
                "carrier": False,
                "mp": 30,
                "elements": [{"type": "G4M1", "n": 2, "role": "T", "alt": "L", "range": "normal"}],
                "escorts": [],
                "apat": True,
            }
        ],
    }
    assert json.dumps(AirStrike.from_json(stored).to_json()) == json.dumps(stored)


def test_5_0_a_plotted_element_takes_off_as_itself_unmarked() -> None:
    plotted = AirElement("A6M2", 2, "F", "L", "loose", "extended", SuppressionAsk(1, "S1/0/0"))
    flying = FlyingElement.of(plotted)
    assert isinstance(flying, AirElement)  # a FlyingElement is the AirElement in the air
    got = (flying.type, flying.n, flying.role, flying.alt, flying.posture, flying.range)
    assert got == ("A6M2", 2, "F", "L", "loose", "extended")
    assert flying.suppress == SuppressionAsk(1, "S1/0/0")
    assert not (flying.elite or flying.green or flying.avg or flying.suppressing)
    assert json.dumps(flying.to_json()) == json.dumps(plotted.to_json())
    marked = FlyingElement.from_json({**plotted.to_json(), "elite": True, "base": "Rabaul"})
    assert marked.elite and marked.base == "Rabaul" and marked.posture == "loose"
