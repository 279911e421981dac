"""13.3 air search, 13.7 Located chits, 13.5.7 the owner's report from standing
deception orders, and the noninterference of secrets through a search."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp import chits, deception, located, search
from pbem.rulesets.witp.clock import schedule
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, projection
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.work import Work

from .searchworld import fill, tf, world

SLOTS = {s.time: s for s in schedule(3, 1)}
AIR1 = SLOTS["T1/air1/search"]
NAVAL1 = SLOTS["T1/naval1/execution"]
AIR2 = SLOTS["T1/air2/search"]
NAVAL2 = SLOTS["T1/naval2/execution"]
E1015 = HexId("E1015")
RABAUL = {"japanese": {"Rabaul": {"hex": "E1010", "air_points": {"H6K4": 2, "G4M1": 2}}}}


def always(n: int = 100) -> Any:
    """Dice whose percentile is always ``n`` (for thresholds <= n: a contact)."""

    class Fixed:
        def __init__(self) -> None:
            self.rolls: list[tuple[int, str]] = []
            self._i = 0

        def d6(self, purpose: str = "") -> int:
            tens, units = divmod(n % 100, 10)
            digits = [tens or 10, units or 10]
            d = digits[self._i // 2 % 2] - 1
            pair = (1 + d // 6, 1 + d % 6)
            v = pair[self._i % 2]
            self._i += 1
            self.rolls.append((v, purpose))
            return v

    return Fixed()


def test_13_1_3_bands_and_extended_reach() -> None:
    pub = public_pack(world()[PUBLIC])
    assert [search.band_of(pub, d, False, 24) for d in (1, 7, 8, 14, 20, 24, 25)] == [
        "short",
        "short",
        "medium",
        "long",
        "extended",
        "extended",
        None,
    ]
    assert search.band_of(pub, 9, True) == "long" and search.band_of(pub, 13, True) is None
    assert search.reach(pub, {"H6K4": 1}, "japanese") == 24
    assert search.reach(pub, {"G4M1": 3}, "japanese") == 0


def test_13_1_1_a_bases_value_is_the_sum_of_its_air_points() -> None:
    pub = public_pack(world()[PUBLIC])
    assert search.value_at(pub, {"H6K4": 2, "G4M1": 2, "A6M2": 5}, "medium") == 10
    assert search.threshold(pub, False, 10, "medium") == 40
    assert search.threshold(pub, False, 0, "short") is None


def test_13_3_1_search_order_is_checked_and_canonical() -> None:
    state = world(bases=RABAUL, japanese={"5": tf("E1012", "CA", "DD")})
    k = Knowledge.of(state, "japanese")
    assert (
        search.parse_search_line(k, ["search", "rabaul", "e1015", "E1020"])
        == "SEARCH Rabaul E1015 E1020"
    )
    assert search.parse_search_line(k, ["SEARCH", "Rabaul", "E1015", "intensive"]).endswith(
        "INTENSIVE"
    )
    with pytest.raises(IllegalOrderError) as e:
        search.parse_search_line(k, ["SEARCH", "Truk", "E1015"])
    assert e.value.rule == "13.0"
    with pytest.raises(IllegalOrderError) as e:
        search.parse_search_line(k, ["SEARCH", "Rabaul", "E1040"])  # 30 hexes: beyond reach
    assert e.value.rule == "13.1.3"
    with pytest.raises(IllegalOrderError) as e:
        search.parse_search_line(k, ["SEARCH", "TF", "5", "E1014"])
    assert e.value.rule == "13.3.3"
    assert (
        search.parse_search_line(k, ["SEARCH", "TF", "5", "E1014", "BLUFF", "9"])
        == "SEARCH TF 5 E1014 BLUFF 9"
    )
    with pytest.raises(IllegalOrderError):
        search.parse_search_line(k, ["SEARCH", "TF", "5", "E1022", "BLUFF", "9"])  # Long: never
    with pytest.raises(OrderSyntaxError):
        search.parse_search_line(k, ["SEARCH", "Rabaul"])


def test_13_3_1_a_split_search_divides_the_value_and_contact_draws_a_chit() -> None:
    work = Work.begin(
        world(bases=RABAUL, allied={"17": tf("E1015", "CV", "CA", "DD"), "44": tf("E1016", "CA")})
    )
    events = search.resolve_air_searches(
        work, {JAPANESE: ["SEARCH Rabaul E1015 E1016"]}, always(99), SecretDice(b"s", "t"), AIR1
    )
    state = work.finish().to_json()
    searches = [e for e in events if e.kind == "air-search"]
    assert [e.data["value"] for e in searches] == [5, 5]  # 10 // 2 at Short
    assert all(e.data["contact"] and e.witnesses is None for e in searches)  # open (13.3)
    assert set(state[PUBLIC]["located"]) == {"allied:17", "allied:44"}
    chit_events = [e for e in events if e.kind == "search-chit"]
    assert chit_events and all(e.witnesses == ("allied",) for e in chit_events)
    reports = [e for e in events if e.kind == "search-report"]
    assert reports and all(e.witnesses is None for e in reports)  # searcher and owner
    assert "chit" not in str(projection(state, "japanese")["disclosures"])


def test_13_3_3_a_successful_bluff_admits_no_search_took_place() -> None:
    work = Work.begin(world(japanese={"5": tf("E1012", "CA")}, allied={"17": tf("E1015", "CV")}))
    events = search.resolve_air_searches(
        work, {JAPANESE: ["SEARCH TF 5 E1015 BLUFF 9"]}, always(99), SecretDice(b"s", "t"), AIR1
    )
    state = work.finish().to_json()
    assert [e.kind for e in events] == ["air-search", "no-search-took-place"]
    assert "located" not in state[PUBLIC] or not state[PUBLIC]["located"]


def test_13_5_4_intensive_search_uses_cup1_and_costs_air_points() -> None:
    work = Work.begin(world(bases=RABAUL, allied={"17": tf("E1015", "CV", "CA")}))
    events = search.resolve_air_searches(
        work,
        {JAPANESE: ["SEARCH Rabaul E1015 INTENSIVE"]},
        always(99),
        SecretDice(b"s", "t"),
        AIR1,
    )
    assert chits.chit_cups(work).held["allied:17"][0].cup == "cup1"
    state = work.finish().to_json()
    loss = [e for e in events if e.kind == "intensive-search-loss"]
    assert loss and loss[0].witnesses == ("japanese",)
    assert state[PRIVATE]["japanese"]["intensive"][AIR1.time] == ["Rabaul"]


def only(work: Work, cup: str, chit: str) -> Work:
    """Fill ``cup`` with ``chit`` alone, so the owner's draw is known in advance."""
    return fill(work, cup, {c: (10 if c == chit else 0) for c in chits.CHITS})


def test_13_5_4_no_loss_against_a_reported_dummy() -> None:
    work = Work.begin(world(bases=RABAUL, allied={"9": tf("E1015", dummy=True)}))
    only(work, "cup1", "true")  # not False: the dummy must be reported as one (13.6.2)
    events = search.resolve_air_searches(
        work,
        {JAPANESE: ["SEARCH Rabaul E1015 INTENSIVE"]},
        always(99),
        SecretDice(b"s", "t"),
        AIR1,
    )
    assert [e.data["report"] for e in events if e.kind == "search-report"] == ["dummy"]
    assert not [e for e in events if e.kind == "intensive-search-loss"]


def test_13_3_a_naval_phase_search_once_per_band_as_the_tf_enters_it() -> None:
    work = Work.begin(world(bases=RABAUL, allied={"17": tf("E1040", "CV")}))
    dice, secret = always(1), SecretDice(b"s", "t")  # every roll fails
    kinds = []
    for row in (33, 32, 31, 25, 24, 23):  # 23-21 hexes: extended; 15, 14: long; 13: medium
        h = HexId(f"E10{row}")
        kinds += search.moving_tf_entered(work, ALLIED, "17", h, NAVAL1, dice, secret)
    bands = [e.data["band"] for e in kinds]
    assert bands == ["extended", "long", "medium"]
    e1018 = HexId("E1018")
    again = search.moving_tf_entered(work, ALLIED, "17", e1018, NAVAL2, dice, secret)
    assert [e.data["band"] for e in again] == ["medium"]  # a new phase, a new record
    assert (
        search.moving_tf_entered(work, ALLIED, "17", e1018, NAVAL2, dice, secret, night=True) == []
    )


def test_13_3_2_a_moving_carrier_tf_searches_one_enemy_tf_a_phase() -> None:
    carrier = tf("E1010", "CV", air={"SBD-3": 4})
    carrier["log"] = [{"hex": h, "mp": n, "night": False} for n, h in enumerate(("E1011", "E1010"))]
    state = world(allied={"17": carrier}, japanese={"1": tf("E1013", "CA"), "2": tf("E1013", "DD")})
    work, dice, secret = Work.begin(state), always(1), SecretDice(b"s", "t")
    h = HexId("E1013")
    first = search.moving_tf_entered(work, JAPANESE, "1", h, NAVAL1, dice, secret)
    second = search.moving_tf_entered(work, JAPANESE, "2", h, NAVAL1, dice, secret)
    assert len(first) == 1 and second == []


def test_13_8_a_tf_entering_an_enemy_base_by_day_gets_a_true_report() -> None:
    work = Work.begin(world(japanese={"1": tf("E1013", "CV", "CA")}))
    events = search.entered_enemy_installation(
        work, JAPANESE, "1", NAVAL1, SecretDice(b"s", "t"), night=False
    )
    state = work.finish().to_json()
    report = [e.data["report"] for e in events if e.kind == "search-report"]
    assert report == ["1 CA, 1 CV; total 2"]
    assert state[PUBLIC]["located"]["japanese:1"]["source"] == "installation"


# -- 13.7 Located ---------------------------------------------------------------


def test_13_7_5_located_lasts_to_the_end_of_the_next_phase() -> None:
    work = Work.begin(world())
    located.place(work, ALLIED, "17", E1015, "air", AIR1)
    assert located.on_map(work)["allied:17"].label == "Located 1A"
    assert located.end_of_phase(work, AIR1) == []
    events = located.end_of_phase(work, NAVAL1)
    assert [e.kind for e in events] == ["located-removed"] and not located.on_map(work)


def test_13_7_5_a_stationary_tf_keeps_its_chit_renewed() -> None:
    work = Work.begin(world())
    located.place(work, ALLIED, "17", E1015, "air", NAVAL1)
    located.end_of_phase(work, AIR2)
    # AIR2 ends the succeeding phase: gone unless ... it is an Air Phase, so it goes
    assert not located.on_map(work)
    located.place(work, ALLIED, "17", E1015, "air", AIR2)
    located.end_of_phase(work, NAVAL2, stationary={"allied:17"})
    assert located.on_map(work)["allied:17"].label == "Located 2N"


def test_13_7_5_night_movement_removes_air_but_not_coastwatcher_chits() -> None:
    work = Work.begin(world())
    located.place(work, ALLIED, "17", E1015, "air", NAVAL1)
    located.place(work, JAPANESE, "1", HexId("E1016"), "coastwatcher", NAVAL1)
    assert located.night_movement(work, ALLIED, "17", NAVAL1)
    assert located.night_movement(work, JAPANESE, "1", NAVAL1) == []
    assert set(located.on_map(work)) == {"japanese:1"}


def test_5_1_6_13_6_4_strike_targets_need_air_contact_and_no_dummy_report() -> None:
    state = world(japanese={"1": tf("E1013", "CA"), "2": tf("E1014", dummy=True)})
    work, secret = only(Work.begin(state), "cup2", "approx-1"), SecretDice(b"s", "t")
    # not False above: TF 2 is reported as the dummy it is
    search.contact(work, JAPANESE, "1", ALLIED, source="air", cup=None, slot=AIR1, secret=secret)
    search.contact(work, JAPANESE, "2", ALLIED, source="air", cup="cup2", slot=AIR1, secret=secret)
    located.place(work, JAPANESE, "3", E1015, "coastwatcher", AIR1)
    k = Knowledge.of(work.finish().to_json(), "allied")
    assert k.strike_target_problem("japanese", "1") is None
    assert "13.6.4" in (k.strike_target_problem("japanese", "2") or "")
    assert "13.8" in (k.strike_target_problem("japanese", "3") or "")
    assert "5.1.6" in (k.strike_target_problem("japanese", "9") or "")


# -- 13.5.7 the owner's report from standing orders ------------------------------


def test_6_4_deception_policy_goals_and_fixed_reports() -> None:
    own = {"1": tf("E1013", "CV", "CV", "CA", "DD")}
    _, under = deception.parse_line(
        ["DECEPTION", "TF", "1", "UNDERSTATE", "CARRIERS", "OVERSTATE", "escorts"], own
    )
    ships = own["1"]["ships"]
    rep, why = deception.compose(ships, False, "approx-1", under, SecretDice(b"s", "t"))
    assert rep.types["CV"] == 1 and rep.types["DD"] == 2 and why is None
    text, fixed = deception.parse_line(
        ["DECEPTION", "TF", "1", "IF", "approx2", "REPORT", "9", "BB", "TOTAL", "9"], own
    )
    assert text == "DECEPTION TF 1 IF APPROX-2 REPORT 9 BB; total 9"
    rep, why = deception.compose(ships, False, "approx-2", fixed, SecretDice(b"s", "t"))
    assert why and "13.5.7" in why and not chits.problems(ships, False, "approx-2", rep)
    with pytest.raises(IllegalOrderError):
        deception.parse_line(["DECEPTION", "TF", "8", "TRUE"], own)


@given(
    st.lists(st.sampled_from(["CV", "CVL", "CA", "BB", "CL", "DD", "MSU"]), max_size=8),
    st.sampled_from(chits.CHITS),
    st.sampled_from(
        ["RANDOM", "TRUE", "UNDERSTATE CARRIERS", "OVERSTATE TOTAL OVERSTATE CAPITALS"]
    ),
    st.binary(min_size=1, max_size=4),
)
def test_13_5_7_the_generator_only_makes_legal_reports(
    types: list[str], chit: str, goal: str, seed: bytes
) -> None:
    ships = tf("E1010", *types)["ships"]
    _, policy = deception.parse_line(f"DECEPTION ALL {goal}".split(), {})
    rep, _ = deception.compose(ships, not ships, chit, policy, SecretDice(seed, "t"))
    assert chits.problems(ships, not ships, chit, rep) == []


# -- noninterference: what the searcher learns rests only on what rules disclose -


@given(
    st.lists(st.sampled_from(["CV", "CA", "DD", "MSU"]), max_size=5),
    st.lists(st.sampled_from(["CV", "CA", "DD", "MSU"]), max_size=5),
    st.binary(min_size=1, max_size=4),
    st.integers(1, 99),
)
def test_13_5_7_a_searcher_cannot_tell_worlds_that_report_alike(
    a: list[str], b: list[str], seed: bytes, roll: int
) -> None:
    """Two worlds differing only in the searched side's TF (dummy or ships), its
    chit cups and its policy give the searcher equal knowledge whenever the
    report crossing is equal, and always when the search fails."""
    worlds = []
    for types in (a, b):
        state = world(bases=RABAUL, allied={"17": tf("E1015", *types, dummy=not types)})
        state[PRIVATE]["allied"]["standing"] = {
            "deception": {"*": {"goals": {}, "fixed": {"any": "dummy"}, "mode": "random"}}
        }
        secret = SecretDice(seed + bytes(len(types)), "t")  # the secret stream differs too
        work = Work.begin(state)
        search.resolve_air_searches(
            work, {JAPANESE: ["SEARCH Rabaul E1015"]}, always(roll), secret, AIR1
        )
        worlds.append(work.finish().to_json())
    reports = [
        [d["fact"].get("report") for d in w["disclosures"] if d["fact"]["kind"] == "search-report"]
        for w in worlds
    ]
    if reports[0] == reports[1]:
        assert projection(worlds[0], "japanese") == projection(worlds[1], "japanese")


def test_13_6_2_a_dummy_and_a_real_tf_reported_dummy_under_false_look_alike() -> None:
    """A dummy (any chit but False) and a real TF whose owner turns a False chit
    into "dummy" give the searcher byte-equal knowledge."""
    worlds = []
    for types, cup in (((), "true"), (("CV", "CA"), "false")):
        state = world(bases=RABAUL, allied={"17": tf("E1015", *types, dummy=not types)})
        _, pol = deception.parse_line(["DECEPTION", "ALL", "IF", "FALSE", "REPORT", "DUMMY"], {})
        state[PRIVATE]["allied"]["standing"] = {"deception": {"*": pol.to_json()}}
        work = only(Work.begin(state), "cup2", cup)
        search.resolve_air_searches(
            work, {JAPANESE: ["SEARCH Rabaul E1015"]}, always(99), SecretDice(b"x", "t"), AIR1
        )
        worlds.append(work.finish().to_json())
    assert projection(worlds[0], "japanese") == projection(worlds[1], "japanese")
    assert projection(worlds[0], "allied") != projection(worlds[1], "allied")


# -- 13.1.4 cruiser floatplanes, 13.4 US VS search hits ---------------------------


def test_13_1_4_a_japanese_carrier_tfs_capital_ships_search_with_floatplanes() -> None:
    pub = public_pack(world()[PUBLIC])
    carrier = tf("E1010", "CV", "CA", "CA", "BB", "BC", "DD", air={"B5N2": 2})
    carrier["ships"][1:5] = [
        replace(s, name=name, ship_class=cls)
        for s, (name, cls) in zip(
            carrier["ships"][1:5],
            (("Myoko", "ship-ca-myoko"), ("Kako", ""), ("Kirishima", ""), ("Haruna", "")),
            strict=True,
        )
    ]
    ships = carrier["ships"]
    assert search.floatplanes(pub, JAPANESE, ships) == {"E13A1": 2, "F1M2": 2}
    assert search.floatplanes(pub, ALLIED, ships) == {}
    no_carrier = tf("E1010", "CA")["ships"]
    assert search.floatplanes(pub, JAPANESE, no_carrier) == {}  # no carrier TF (13.0)
    state = world(japanese={"5": carrier})
    k = Knowledge.of(state, "japanese")
    # 10 hexes is Long for a carrier: B5N2s add nothing there, the E13A1s do
    assert search.parse_search_line(k, ["SEARCH", "TF", "5", "E1020"]) == "SEARCH TF 5 E1020"
    assert search.searcher(k, JAPANESE, "TF 5").air == {"B5N2": 2}


def test_13_4_1_a_us_carrier_search_rolling_90_at_medium_scores_a_strike() -> None:
    def run(roll: int, target: str, *, dummy: bool = False) -> tuple[dict[str, Any], list[Any]]:
        state = world(
            allied={"17": tf("E1010", "CV", air={"SBD-3": 4})},
            japanese={"1": tf(target, *(() if dummy else ("CVL", "CA")), dummy=dummy)},
        )
        work = only(Work.begin(state), "cup2", "approx-1")
        events = search.resolve_air_searches(
            work, {ALLIED: [f"SEARCH TF 17 {target}"]}, always(roll), SecretDice(b"s", "t"), AIR1
        )
        return work.finish().to_json(), events

    state, events = run(95, "E1013")  # 3 hexes: Short
    hit = [e for e in events if e.kind == "vs-search-hit"]
    assert len(hit) == 1 and hit[0].witnesses is None and hit[0].data["anti_ship"] == 1
    assert state[PUBLIC]["pending_strikes"][0]["tf"] == "1"
    assert not [e for e in run(89, "E1013")[1] if e.kind == "vs-search-hit"]
    long_search = run(95, "E1020")[1]  # 10 hexes: Long, a contact but no hit
    assert [e.data["contact"] for e in long_search if e.kind == "air-search"] == [True]
    assert not [e for e in long_search if e.kind == "vs-search-hit"]
    assert not [e for e in run(95, "E1013", dummy=True)[1] if e.kind == "vs-search-hit"]


def test_13_4_1_only_the_us_scores_search_hits() -> None:
    state = world(
        japanese={"5": tf("E1010", "CV", air={"B5N2": 4})}, allied={"17": tf("E1013", "CA")}
    )
    events = search.resolve_air_searches(
        Work.begin(state),
        {JAPANESE: ["SEARCH TF 5 E1013"]},
        always(99),
        SecretDice(b"s", "t"),
        AIR1,
    )
    assert any(e.kind == "search-report" for e in events)
    assert not [e for e in events if e.kind == "vs-search-hit"]


@given(st.lists(st.sampled_from(["CV", "CA", "DD", "AP", "BB"]), min_size=1, max_size=8))
def test_13_5_7_a_hidden_make_up_never_shifts_the_next_contacts_report(types: list[str]) -> None:
    """Two worlds that differ only in what TF 1 holds (hidden from the Allies until
    its report, which a dummy-or-not Error chit may blur): TF 2's report, told next,
    is the same in both, because each contact draws from its own secret fork."""

    def second_report(first: list[str]) -> str:
        state = world(japanese={"1": tf("E1013", *first), "2": tf("E1014", "CV", "DD")})
        work = only(Work.begin(state), "cup2", "error-3")  # drawn per ship type: the most draws
        secret = SecretDice(b"same seed", "T1/air1")
        for name in ("1", "2"):
            _, report = search.contact(
                work,
                JAPANESE,
                name,
                ALLIED,
                source="air",
                cup="cup2",
                slot=AIR1,
                secret=secret,
            )
        return report.text()

    assert second_report(types) == second_report(["DD"])
