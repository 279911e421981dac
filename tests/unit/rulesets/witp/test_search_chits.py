"""13.5 Search Effectiveness Chits: cups, draws, returns, and the report validator."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.errors import OrderSyntaxError
from pbem.rulesets.witp import chits
from pbem.rulesets.witp.chits import Report, parse_report, problems
from pbem.rulesets.witp.draws import SecretDice, below, percentile
from pbem.rulesets.witp.work import Work

from .searchworld import fill, ship, world


def r(text: str) -> Report:
    return parse_report(text.split())


def ships(*types: str) -> list[dict[str, object]]:
    return [ship(t) for t in types]


KIDO = ships("CV", "CV", "CA", "CA", "DD", "DD", "DD")  # 7 ships, capitals present
CONVOY = ships("CL", "DD", "DD", "MSU", "MSU")  # no capital ships


def test_13_5_1_cups_hold_the_printed_chits() -> None:
    work = Work.begin(world())
    rec = chits.chit_cups(work)
    assert {c: sum(v.values()) for c, v in rec.cups.items()} == {
        "cup1": 40,
        "cup2": 40,
        "cup3": 30,
    }
    assert rec.cups["cup1"]["true"] == 12 and rec.cups["cup2"]["error-3"] == 4


def test_13_5_3_a_draw_leaves_the_cup_and_stays_with_the_tf() -> None:
    work = Work.begin(world())
    secret = SecretDice(b"s", "t")
    drawn = [chits.draw(work, "japanese", "1", "cup2", secret) for _ in range(3)]
    assert chits.held(work, "japanese", "1") == drawn
    assert chits.chit_cups(work).left("cup2") == 37


def test_13_5_6_cup3_when_cup2_is_empty() -> None:
    work = Work.begin(world())
    fill(work, "cup2", dict.fromkeys(chits.CHITS, 0))
    chits.draw(work, "japanese", "1", "cup2", SecretDice(b"s", "t"))
    assert chits.chit_cups(work).held["japanese:1"][0].cup == "cup3"


def test_13_6_5_chits_return_to_their_cups() -> None:
    work = Work.begin(world())
    secret = SecretDice(b"s", "t")
    chits.draw(work, "japanese", "1", "cup1", secret)
    chits.draw(work, "allied", "4", "cup2", secret)
    assert chits.end_of_game_turn(work, 1) == 0  # odd Game-Turn: they stay
    assert chits.end_of_game_turn(work, 2) == 2
    assert {c: sum(v.values()) for c, v in chits.chit_cups(work).cups.items()} == {
        "cup1": 40,
        "cup2": 40,
        "cup3": 30,
    }


def test_13_5_3_draws_are_uniform_over_the_cup() -> None:
    work = Work.begin(world())
    secret = SecretDice(b"uniform", "t")
    seen: Counter[str] = Counter()
    for i in range(400):
        seen[chits.draw(work, "japanese", str(i), "cup2", secret)] += 1
        chits.return_chits(work, "japanese", str(i))
    assert seen["approx-1"] > seen["true"] and seen["error-2"] > seen["error-3"]


def test_percentile_reads_00_as_100_and_blind_draws_cover_all() -> None:
    # d10 from two 1D6: (1,1) -> 1 ... ; tens 10 -> 0, units 10 -> 0: "00" = 100
    assert percentile(ScriptedDice([2, 4, 2, 4]), "x") == 100
    assert percentile(ScriptedDice([1, 1, 1, 2]), "x") == 12
    assert {below(SeededDice(b"k", "g", 1, str(i)), 40, "x") for i in range(600)} == set(range(40))


def test_secret_stream_takes_a_constant_number_of_open_rolls() -> None:
    a, b = SeededDice(b"k", "g", 1, "p"), SeededDice(b"k", "g", 1, "p")
    s = SecretDice.from_dice(a, "r")
    for _ in range(17):
        s.d6("secret")
    SecretDice.from_dice(b, "r")
    assert a.d6("open") == b.d6("open")


# -- 13.5.7 the validator ------------------------------------------------------


def test_13_5_7_true_exact_with_total_rounded_up_to_5() -> None:
    assert problems(KIDO, False, "true", r("2 CV 2 CA 3 DD TOTAL 7")) == []
    assert problems(KIDO, False, "true", r("2 CV 2 CA 3 DD TOTAL 10")) == []
    assert problems(KIDO, False, "true", r("2 CV 2 CA 3 DD TOTAL 8"))
    assert problems(KIDO, False, "true", r("1 CV 2 CA 3 DD TOTAL 7"))
    assert problems(KIDO, False, "true", r("DUMMY"))


def test_13_5_7_true_gives_transport_damage() -> None:
    convoy = [ship("CL"), ship("MSU", damage=2), ship("MSU")]
    assert problems(convoy, False, "true", r("1 CL 2 MSU TOTAL 3 DAMAGE MSU D0 D2")) == []
    assert problems(convoy, False, "true", r("1 CL 2 MSU TOTAL 3"))
    assert problems(convoy, False, "approx-1", r("1 CL 2 MSU TOTAL 3 DAMAGE MSU D4")) == []


def test_13_5_7_approx_per_type_without_zeroing_or_inventing() -> None:
    assert problems(KIDO, False, "approx-1", r("1 CV 3 CA 4 DD TOTAL 12")) == []
    assert problems(KIDO, False, "approx-1", r("2 CV 2 CA 3 DD TOTAL 13"))  # total +6
    assert problems(KIDO, False, "approx-2", r("4 CV 2 CA 1 DD TOTAL 17")) == []
    bad_zero = problems(KIDO, False, "approx-2", r("2 CA 3 DD TOTAL 7"))
    assert bad_zero and "13.5.7 Report Approx ±2" in bad_zero[0]
    assert problems(KIDO, False, "approx-1", r("2 CV 2 CA 3 DD 1 BB TOTAL 8"))  # invented BB


def test_13_5_7_error_no_capitals_is_approx_with_its_level() -> None:
    assert problems(CONVOY, False, "error-3", r("4 CL 1 DD 5 MSU TOTAL 20")) == []
    assert problems(CONVOY, False, "error-3", r("1 DD 5 MSU TOTAL 5"))  # zeroed the CL
    assert problems(CONVOY, False, "error-1", r("1 CL 2 DD 2 MSU 1 CV TOTAL 6"))  # invented CV


def test_13_5_7_error_with_capitals_may_hide_and_invent_carriers() -> None:
    # 2 CV, error-2: may report none (actual <= level)
    assert problems(KIDO, False, "error-2", r("2 CA 3 DD TOTAL 5")) == []
    # error-1 may not hide 2 CVs
    assert problems(KIDO, False, "error-1", r("2 CA 3 DD TOTAL 5"))
    # carriers invented up to min(level, capital ships present)
    cruisers = ships("CA", "DD", "DD")
    assert problems(cruisers, False, "error-2", r("1 CV 1 CA 2 DD TOTAL 4")) == []
    assert problems(cruisers, False, "error-2", r("2 CV 1 CA 2 DD TOTAL 5"))  # only 1 CA present
    # capital ships from carriers, up to the level, and capitals to zero
    assert problems(KIDO, False, "error-1", r("2 CV 2 CA 1 BB 3 DD TOTAL 8")) == []
    assert problems(KIDO, False, "error-2", r("2 CV 3 DD TOTAL 5")) == []


def test_13_5_7_error_swaps_carrier_types() -> None:
    mixed = ships("CV", "CVL", "CA", "DD")
    assert problems(mixed, False, "error-1", r("2 CVL 1 CA 1 DD TOTAL 4")) == []  # 1 swap
    assert problems(mixed, False, "error-1", r("2 CVE 1 CA 1 DD TOTAL 4"))  # 2 swaps
    # level 2: swap and add combined
    assert problems(mixed, False, "error-2", r("3 CVE 1 CA 1 DD TOTAL 5")) == []


def test_13_6_2_a_dummy_is_reported_as_a_dummy_unless_false() -> None:
    for chit in chits.CHITS[:-1]:
        assert problems([], True, chit, r("DUMMY")) == []
        assert problems([], True, chit, r("1 CV TOTAL 1"))


def test_13_5_7_false_limits_only_a_dummy() -> None:
    assert problems([], True, "false", r("2 CV 2 CA 2 DD TOTAL 6")) == []
    # witp-core-proposal 6.4's "2 CV, 2 CA, 4 DD" breaks the printed two-a-type limit
    assert problems([], True, "false", r("2 CV 2 CA 4 DD TOTAL 8"))
    assert problems([], True, "false", r("3 CV TOTAL 3"))
    assert problems([], True, "false", r("2 CV 2 CA 2 CL 2 DD 2 MSU 2 AO TOTAL 12"))
    assert problems(KIDO, False, "false", r("DUMMY")) == []
    assert problems(KIDO, False, "false", r("9 BB TOTAL 40")) == []


def test_report_text_round_trips() -> None:
    rep = r("2 cv, 1 ca, 4 dd; total 10")
    assert rep.text() == "1 CA, 2 CV, 4 DD; total 10"
    assert parse_report(rep.text().replace(";", " ").split()) == rep
    with pytest.raises(OrderSyntaxError) as e:
        r("two CV")
    assert e.value.rule == "13.5.7"


@given(
    st.lists(
        st.sampled_from(["CV", "CVL", "CA", "BB", "CL", "DD", "MSU", "AO"]), min_size=1, max_size=9
    ),
    st.sampled_from(chits.CHITS),
)
def test_13_5_7_the_truth_is_always_legal(types: list[str], chit: str) -> None:
    s = ships(*types)
    assert problems(s, False, chit, Report.of_ships(s)) == []
