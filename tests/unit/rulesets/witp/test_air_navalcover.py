"""5.3.4 Naval Cover plotted at the outset of a Naval Phase (R138): the NAVALCOVER
line of the naval plot, judged as the Air Phase's, its fighters committed, flown in
that Naval Phase by R124's machinery (navalcover.py, airplay.py); the plot secret."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.rulesets.witp import airplay
from pbem.rulesets.witp.air import naval_strike
from pbem.rulesets.witp.knowledge import PRIVATE
from pbem.rulesets.witp.ruleset import WitpRuleset

from .test_air_cover import world  # noqa: F401  (the fixture)
from .test_air_play import play

MOVE = "TF2 SPEED 2\nTF2 MOVE E2321 EV 4"  # the Striking Force into Yorktown's range
SPECIAL = "SPECIAL X1 FROM TF3 3xSBD-3 AGAINST CV"


def _spy(mp: pytest.MonkeyPatch) -> list[Any]:
    """The cover and committed fighters each strike met."""
    given_: list[Any] = []
    real = naval_strike.resolve_into

    def spy(*a: Any, **k: Any) -> Any:
        given_.append((k.get("cover"), dict(k.get("committed") or {})))
        return real(*a, **k)

    mp.setattr(naval_strike, "resolve_into", spy)
    return given_


def _naval(
    witp: WitpRuleset, state: dict[str, Any], japanese: str, air_japanese: str = "PASS"
) -> tuple[Any, Any]:
    """The Air Phase (Yorktown's standing special strike filed), then the Naval Phase
    with the Japanese naval plot ``japanese``: (the Air Phase, the Naval Phase)."""
    air = play(witp, state, allied=SPECIAL, japanese=air_japanese)
    return air, play(witp, air.state, japanese=japanese, allied="PASS")


def _facts(result: Any, kind: str) -> list[Any]:
    return [e for e in result.events if e.kind == kind]


def test_5_3_4_naval_cover_plotted_at_the_outset_of_the_naval_phase_flies_in_it(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Shoho's fighter plotted in the naval plot as Naval Cover over the Striking
    Force: filed not yet rolled, it makes its carrier coordination check and APAT
    roll (2R) when Yorktown's special strike meets the TF in that Naval Phase, told
    the Japanese alone, and flies CAP there; the Naval Phase over, it is home."""
    given_ = _spy(monkeypatch)
    air = play(witp, world, allied=SPECIAL, japanese="PASS")
    plot = f"{MOVE}\nNAVALCOVER C1 FROM TF1 1xA6M2 OVER TF2"
    v = witp.validate(air.state, "japanese", plot)
    assert not v.errors and "NAVALCOVER C1 FROM TF1 1xA6M2 OVER TF2" in v.accepted
    naval = play(witp, air.state, japanese=plot, allied="PASS")
    assert _facts(naval, "special-strike")
    (met,) = given_
    assert met[0] and met[0][0].type == "A6M2" and met[1] == {}
    (rolled,) = _facts(naval, "cover-availability")
    assert rolled.witnesses == ("japanese",) and rolled.data["tf"] == "TF2"
    assert rolled.data["mission"] == "plotted-naval-cover"  # 2R, 5.3.4
    (cc,) = _facts(naval, "cover-coordination")
    assert cc.witnesses == ("japanese",)
    assert airplay.ALOFT not in naval.state[PRIVATE]["japanese"]


def test_5_3_4_without_the_naval_plots_cover_the_special_strike_meets_none(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given_ = _spy(monkeypatch)
    _air, naval = _naval(witp, world, MOVE)
    assert given_ == [([], {})] and not _facts(naval, "cover-availability")


def test_5_3_4_the_naval_phases_cover_is_committed_no_cap_twice(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Striking Force's own A6M2 plotted over it in the naval plot fly as the
    cover, not again as the TF's own CAP (R124's committed)."""
    given_ = _spy(monkeypatch)
    _naval(witp, world, f"{MOVE}\nNAVALCOVER C1 FROM TF2 2xA6M2 OVER TF2")
    ((_cover, committed),) = given_
    assert committed == {"A6M2": 2}


def test_5_3_4_the_naval_plots_line_is_refused_with_its_line_reason_and_rule(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
) -> None:
    """Judged as the Air Phase's line: the TF, the fighter, the APs the base holds
    less the lines above and the Air Phase's cover still aloft (whose id it may not
    take); a syntax refusal names 5.3.4."""
    air = play(witp, world, allied="PASS", japanese="NAVALCOVER A1 FROM TF2 2xA6M2 OVER TF2")
    text = "\n".join(
        [
            "NAVALCOVER C1 FROM TF1 1xA6M2 OVER TF9",  # 1: not his TF
            "NAVALCOVER C2 FROM TF1 1xD3A1 OVER TF2",  # 2: no fighter
            "NAVALCOVER C3 FROM TF1 1xA6M2 TF2",  # 3: syntax
            "NAVALCOVER A1 FROM TF1 1xA6M2 OVER TF2",  # 4: A1 is aloft (R124)
            "NAVALCOVER C5 FROM TF1 1xA6M2 OVER TF2",  # 5: accepted
            "NAVALCOVER C5 FROM TF1 1xA6M2 OVER TF2",  # 6: the id again
            "NAVALCOVER C7 FROM TF2 99xA6M2 OVER TF2",  # 7: too many
        ]
    )
    v = witp.validate(air.state, "japanese", text)
    refused = {e.line: e.rule for e in v.errors}
    assert refused == {1: "5.3.4", 2: "5.3", 3: "5.3.4", 4: "5.3.4", 6: "5.3.2", 7: "5.1.1"}
    assert all(e.message for e in v.errors)
    assert v.accepted == ("NAVALCOVER C5 FROM TF1 1xA6M2 OVER TF2",)


def test_5_3_4_the_air_phases_cover_aloft_is_counted_against_the_base(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
) -> None:
    """R124's Naval Cover over its TF stays committed: the naval plot may fly only
    the fighters its base holds besides (5.1.1)."""
    air = play(witp, world, allied="PASS", japanese="NAVALCOVER A1 FROM TF2 2xA6M2 OVER TF2")
    own = air.state[PRIVATE]["japanese"]
    total = sum(
        int(own["ships"][s].get("air", {}).get("A6M2", 0)) for s in own["tfs"]["TF2"]["ships"]
    )
    ok = witp.validate(air.state, "japanese", f"NAVALCOVER C1 FROM TF2 {total - 2}xA6M2 OVER TF2")
    assert not ok.errors
    bad = witp.validate(air.state, "japanese", f"NAVALCOVER C1 FROM TF2 {total - 1}xA6M2 OVER TF2")
    assert [e.rule for e in bad.errors] == ["5.1.1"]


def test_5_3_4_the_order_form_shows_the_naval_cover_line(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
) -> None:
    air = play(witp, world, allied="PASS", japanese="NAVALCOVER A1 FROM TF2 2xA6M2 OVER TF2")
    form = witp.order_template(air.state, "japanese")
    assert "NAVALCOVER <id> FROM <base|TFn> <n>x<type> OVER <TFn>" in form
    assert "A1 2xA6M2 from TF2 over TF2" in form
    mine = [ln for ln in form.splitlines() if "Naval Cover" in ln or "NAVALCOVER" in ln]
    assert len(mine) == 1  # the syntax and what is aloft, on one line


# -- secrecy ---------------------------------------------------------------------------


class AirPhase:
    """The Air Phase played (Yorktown's standing special strike filed): its state,
    with a short repr for Hypothesis' reports."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state

    def __repr__(self) -> str:
        return "AirPhase(T1 air1 played)"


@pytest.fixture(scope="module")
def air_phase(witp: WitpRuleset) -> AirPhase:
    from pbem.core.dice import SeededDice

    from .conftest import SCENARIO
    from .naval import NO_GATE, tfs
    from .test_air_play import located

    state = witp.initial_state(SCENARIO, {"datapack": NO_GATE})
    state = dict(witp.adjudicate(state, {}, SeededDice(b"n", "g", 1, "T1-open")).state)
    tfs(state, "japanese")["TF2"]["hex"] = "E2320"
    located(state, "japanese", "TF2", "2 CV 2 CA 3 DD 1 AO TOTAL 8")
    located(state, "allied", "TF3", "1 CV 3 CA 2 DD TOTAL 6")
    return AirPhase(dict(play(witp, state, allied=SPECIAL, japanese="PASS").state))


def test_5_3_4_the_comparison_can_fail_the_owner_reads_its_naval_cover(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
) -> None:
    """The control: the Naval Cover the special strike meets is rolled and told its
    owner, so the Japanese report changes; the plot alone tells the Allies nothing."""
    air = play(witp, world, allied=SPECIAL, japanese="PASS")
    a = play(witp, air.state, japanese=MOVE, allied="PASS")
    b = play(witp, air.state, japanese=f"{MOVE}\nNAVALCOVER C1 FROM TF1 1xA6M2 OVER TF2")
    mine = [witp.view(r.state, r.events, "japanese") for r in (a, b)]
    assert mine[0] != mine[1]
    (block,) = mine[1]["strikes"]
    assert block["title"] == "T1/naval1/execution: Enemy (allied) strike on your TF2"
    notes = "\n".join(block["notes"])
    assert "[5.3.4] cover C1 (A6M2 over TF2, 18 MP, 2R): APAT 2D6" in notes
    assert "[8.1.4] cover C1 carrier coordination, TF1" in notes
    assert [e for e in b.events if e.kind == "cover-availability"]
    assert not any(e.seen_by("allied") for e in b.events if e.kind.startswith("cover-"))


# -- R139: the Naval Cover over a TF escorts no special strike ------------------------


def _escorts_flown(
    witp: WitpRuleset, state: dict[str, Any], mp: pytest.MonkeyPatch, allied_naval: str
) -> list[Any]:
    """Yorktown's standing special strike escorted by both its F4F-3, the Striking
    Force moving into its range: the escorts each launched strike flew with."""
    flown: list[Any] = []
    real = naval_strike.resolve_into

    def spy(*a: Any, **k: Any) -> Any:
        flown.append([e.to_json() for p in a[1].parts for e in p.escorts])
        return real(*a, **k)

    mp.setattr(naval_strike, "resolve_into", spy)
    special = "SPECIAL X1 FROM TF3 3xSBD-3 ESCORT 2xF4F-3@M LOOSE AGAINST CV"
    air = play(witp, state, allied=special, japanese="PASS")
    play(witp, air.state, japanese=MOVE, allied=allied_naval)
    return flown


def test_r139_fighters_on_naval_cover_escort_no_special_strike(
    witp: WitpRuleset,
    world: dict[str, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One of Yorktown's two F4F-3 plotted in the naval plot as Naval Cover over
    TF17: the special strike launched that phase takes the other alone (5.1.1)."""
    bare = _escorts_flown(witp, world, monkeypatch, "PASS")
    assert [[(e["type"], e["n"]) for e in x] for x in bare] == [[("F4F-3", 2)]]
    covered = _escorts_flown(witp, world, monkeypatch, "NAVALCOVER C1 FROM TF3 1xF4F-3 OVER TF3")
    assert [[(e["type"], e["n"]) for e in x] for x in covered] == [[("F4F-3", 1)]]
