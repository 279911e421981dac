"""13.8 coastwatcher search: the CW Log, the secret roll, the delayed announcement,
the island given away only after a report that is not "dummy", and 13.6.3."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp import chits, coastwatchers
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.clock import schedule
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, projection
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.work import Work

from .searchworld import fill, tf, world

NAVAL1 = {s.time: s for s in schedule(3, 1)}["T1/naval1/execution"]
GUADALCANAL = {"guadalcanal": {"name": "Guadalcanal", "hexes": ["E2418", "E2519", "E2619"]}}


class Watcher(SecretDice):
    """The moderator's stream, but every coastwatcher roll shows ``face``."""

    def __init__(self, face: int) -> None:
        super().__init__(b"s", "t")
        self.face = face

    def fork(self, label: str) -> SecretDice:
        if not label.startswith("coastwatcher"):
            return super().fork(label)
        face = self.face

        class Fixed(SecretDice):
            def d6(self, purpose: str = "") -> int:
                return face

        return Fixed(b"", label)


def cw_world(*, dummy: bool = False, delay: int | None = 0, watched: bool = True) -> Work:
    state = world(japanese={"TF3": tf("E2417", *(() if dummy else ("CA", "DD")), dummy=dummy)})
    if watched:
        state[PRIVATE]["allied"][coastwatchers.LOG] = GUADALCANAL
    state[PRIVATE]["allied"]["standing"] = {coastwatchers.DELAY_KEY: delay}
    work = Work.begin(state)
    return fill(work, "cup2", {c: (10 if c == "true" else 0) for c in chits.CHITS})


def enter(work: Work, hexid: str, face: int, *, night: bool = False) -> list[Any]:
    tfs.update(work, JAPANESE, "TF3", hex=HexId(hexid))
    return coastwatchers.entered(
        work, JAPANESE, "TF3", HexId(hexid), NAVAL1, Watcher(face), night=night
    )


def test_13_8_1_a_watcher_holds_every_coastal_hex_of_a_small_island() -> None:
    pack = public_pack(world()[PUBLIC])
    cw = coastwatchers.log(load_map(), pack, ["guadalcanal", "salamaua-coast"])
    assert cw["guadalcanal"].hexes == ("E2418", "E2519", "E2619")  # 13.8.1's example
    assert cw["salamaua-coast"].hexes == ("E1016",)  # New Guinea: its own hex (R24)


def test_13_8_the_roll_is_5_6_by_day_and_6_at_night() -> None:
    assert [e.kind for e in enter(cw_world(), "E2519", 4)] == []
    assert [e.kind for e in enter(cw_world(), "E2519", 5, night=True)] == []
    assert "located" in [e.kind for e in enter(cw_world(), "E2519", 5)]
    assert "located" in [e.kind for e in enter(cw_world(), "E2519", 6, night=True)]
    assert enter(cw_world(), "E2520", 6) == []  # no watcher there


def test_13_8_a_failed_roll_tells_nobody_anything() -> None:
    watched, blank = cw_world(), cw_world(watched=False)
    enter(watched, "E2519", 1)
    enter(blank, "E2519", 1)
    state = watched.finish().to_json()
    assert projection(state, "japanese") == projection(blank.finish().to_json(), "japanese")
    assert not state["disclosures"]


def test_13_8_a_fork_never_shifts_the_stream_told_to_the_sides() -> None:
    a, b = SecretDice(b"x", "t"), SecretDice(b"x", "t")
    a.fork("coastwatcher 1").d6()
    assert [a.d6() for _ in range(5)] == [b.d6() for _ in range(5)]
    assert SecretDice(b"x", "t").fork("c").d6() == SecretDice(b"x", "t").fork("c").d6()


def test_13_8_a_real_tf_gives_away_the_island_and_cannot_be_struck_on_it_alone() -> None:
    work = cw_world()
    events = enter(work, "E2519", 6)
    assert not chits.held(work, JAPANESE, "TF3")  # 13.6.3, 13.6.5: definitively revealed
    state = work.finish().to_json()
    kinds = [e.kind for e in events]
    assert kinds == ["located", "search-chit", "search-report", "coastwatcher-island"]
    island = events[-1]
    assert island.witnesses is None and island.data["island"] == "Guadalcanal"
    assert "E2519" not in str(island.data)  # the island, not the hex (13.8)
    assert state[PUBLIC]["located"]["japanese:TF3"]["source"] == "coastwatcher"
    problem = Knowledge.of(state, "allied").strike_target_problem("japanese", "TF3")
    assert problem and "13.8" in problem


def test_13_8_13_6_3_a_dummy_keeps_the_island_secret_and_leaves_the_map() -> None:
    work = cw_world(dummy=True)
    kinds = [e.kind for e in enter(work, "E2519", 6)]
    state = work.finish().to_json()
    assert kinds == [
        "located",
        "search-chit",
        "search-report",
        "located-removed",
        "dummy-revealed",
    ]
    assert "TF3" not in state[PRIVATE]["japanese"]["tfs"]
    assert "coastwatcher-island" not in str(projection(state, "japanese")["disclosures"])


def test_13_8_the_announcement_may_wait_some_hexes() -> None:
    work = cw_world(delay=2)
    assert enter(work, "E2519", 6) == []
    assert enter(work, "E2520", 1) == []
    later = enter(work, "E2521", 1)
    assert [e.data["hex"] for e in later if e.kind == "located"] == ["E2521"]


def test_13_8_a_delay_to_the_end_is_announced_when_the_segment_ends() -> None:
    work = cw_world(delay=None)
    assert enter(work, "E2519", 6) == [] and enter(work, "E2520", 6) == []
    events = coastwatchers.flush(work, NAVAL1, SecretDice(b"s", "t"))
    assert [e.data["hex"] for e in events if e.kind == "located"] == ["E2520"]
    assert coastwatchers.flush(work, NAVAL1, SecretDice(b"s", "t")) == []


def test_13_8_the_delay_is_an_allied_standing_order() -> None:
    assert coastwatchers.parse_delay_line("allied", ["coastwatchers", "delay", "3"]) == (
        "COASTWATCHERS DELAY 3",
        3,
    )
    assert coastwatchers.parse_delay_line("allied", ["COASTWATCHERS", "DELAY", "END"])[1] is None
    with pytest.raises(OrderSyntaxError):
        coastwatchers.parse_delay_line("allied", ["COASTWATCHERS", "DELAY", "soon"])
    with pytest.raises(IllegalOrderError) as e:
        coastwatchers.parse_delay_line("japanese", ["COASTWATCHERS", "DELAY", "1"])
    assert e.value.rule == "13.8.1"
