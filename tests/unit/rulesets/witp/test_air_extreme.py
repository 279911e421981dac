"""5.15 Extreme-range strikes: the return roll (R130)."""

from __future__ import annotations

from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import extreme, plot
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.knowledge import DISCLOSURES, PRIVATE

from .test_air_world import PUBLIC_PACK, knowing, resolve_stored, ship, told, world

TIME = "T1/air1/strike"
PUBLIC = public_pack({"pack": PUBLIC_PACK})
STRIKE = "STRIKE S1 FROM Rabaul 6xG4M1@M TARGET TF2"


class Always:
    """A secret stream that rolls ``face`` every time (draws.fork keeps it as it is)."""

    def __init__(self, face: int) -> None:
        self.face = face

    def d6(self, purpose: str = "") -> int:
        return self.face

    @property
    def rolls(self) -> list[tuple[int, str]]:
        return []


def _far(hexid: str) -> dict[str, Any]:
    """Rabaul's 6 G4M1 ``hexid`` away from an Allied TF2 with no fighters (no CAP)."""
    bases = {JAPANESE: {"Rabaul": {"hex": hexid, "air_points": {"G4M1": 6}}}}
    allied = [ship("Astoria", "CA", "ship-ca-new-orleans")]
    return world(allied=allied, located=("allied:TF2",), bases=bases)


def _run(s: dict[str, Any], seed: int, face: int) -> tuple[dict[str, Any], list[Any]]:
    p, errors = plot.judge(knowing(s, JAPANESE), JAPANESE, STRIKE)
    assert errors == []
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    return resolve_stored(s, p.air_strikes["S1"], dice, Always(face), TIME)  # type: ignore[arg-type]


def test_5_15_the_column_is_the_mp_flown_past_the_maximum_range() -> None:
    assert extreme.beyond(PUBLIC, "G4M1", 144) == 0  # its extended range: no roll
    assert extreme.beyond(PUBLIC, "G4M1", 145) == 1  # X+1
    assert extreme.beyond(PUBLIC, "G4M1", 150) == 6  # X+6
    assert extreme.percent(PUBLIC, 1, 2) == 0 and extreme.percent(PUBLIC, 6, 12) == 60
    assert extreme.percent(PUBLIC, 6, 12) > extreme.percent(PUBLIC, 1, 12)


def test_5_15_the_returning_aps_roll_2d6_and_lose_the_percentage_rounded() -> None:
    s = _far("E2041")  # 150 MP: 6 beyond the G4M1's extended 144
    st, _ = _run(s, 3, 6)  # 2D6 = 12 on X+6: 60%
    (roll,) = told(st, JAPANESE, "extreme-range-losses")
    shot = sum(sum(f["eliminated"].values()) for f in told(st, JAPANESE, "aa-fire"))
    doubled = sum(f["extra"] for f in told(st, JAPANESE, "extended-range-losses"))
    back = 6 - shot - doubled  # only those returning are counted (5.15 Note)
    assert roll["column"] == "X+6" and roll["roll"] == 12 and roll["percent"] == 60
    assert roll["returning"] == back and roll["lost"] == (back * 60 + 50) // 100
    left = st[PRIVATE][JAPANESE]["air_bases"]["Rabaul"]["air_points"]["G4M1"]
    assert left == 6 - shot - doubled - roll["lost"]
    assert roll["lost"] >= 1


def test_5_15_a_low_roll_loses_none_and_within_range_there_is_no_roll() -> None:
    st, _ = _run(_far("E2041"), 3, 1)  # 2D6 = 2 on X+6: 5% of at most 6 rounds to 0
    (roll,) = told(st, JAPANESE, "extreme-range-losses")
    assert roll["roll"] == 2 and roll["lost"] == 0
    st, _ = _run(_far("E2040"), 3, 6)  # 144 MP: extended range, no return roll
    assert told(st, JAPANESE, "extreme-range-losses") == []


def test_5_15_the_return_roll_is_the_strikers_own() -> None:
    st, _ = _run(_far("E2041"), 3, 6)
    (d,) = [d for d in st[DISCLOSURES] if d["fact"]["kind"] == "extreme-range-losses"]
    assert d["audience"] == [JAPANESE] and d["rule"] == "5.15"
    assert told(st, ALLIED, "extreme-range-losses") == []
