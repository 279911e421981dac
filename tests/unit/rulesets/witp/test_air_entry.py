"""7.7.1 (R126): a Japanese wave composed of a majority of elite APs enters at the
arc rolled or either adjacent one, at the Japanese player's option: ``ENTRY <id>
ROLLED|FEWEST`` with the plot (none: FEWEST, the path passing the fewest ships)."""

from __future__ import annotations

from dataclasses import replace

from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import entry, plot
from pbem.rulesets.witp.air.display import Position
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.datapack import StoredPack, public_pack
from pbem.rulesets.witp.knowledge import PUBLIC
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.ruleset import WitpRuleset

from .strikeworld import RATINGS, opened, resolved
from .test_air_world import world

# The core's CV; two DDs in inner arc 1, one in inner arc 3; one DD in outer arc 1.
POSITIONS: dict[str, Position] = {
    "CV": ("core", 1),
    "D1": ("inner", 1),
    "D2": ("inner", 1),
    "D3": ("inner", 3),
    "D4": ("outer", 1),
}
ELITE_WAVE = [FlyingElement("D3A1", 2, "D", "M", elite=True), FlyingElement("D3A1", 1, "D", "M")]


def _pack() -> StoredPack:
    return public_pack(world()[PUBLIC])


def test_7_7_1_a_majority_of_elite_aps_half_is_none() -> None:
    assert entry.elite_majority(ELITE_WAVE)
    assert not entry.elite_majority([replace(ELITE_WAVE[0], n=1), ELITE_WAVE[1]])
    assert not entry.elite_majority([FlyingElement("B5N2", 2, "T", "L")])


def test_7_7_1_the_arc_rolled_and_its_neighbours_round_the_outer_ring() -> None:
    public = _pack()
    assert entry.adjacent(public, 1) == [1, 6, 2]
    assert entry.adjacent(public, 6) == [6, 5, 1]
    assert entry.adjacent(public, 3) == [3, 2, 4]


def test_7_7_1_fewest_takes_the_neighbour_whose_path_passes_fewest_ships() -> None:
    """Rolled 1: outer 1, inner 1 and the core pass 4 ships; arc 6 (outer 6, inner 3,
    core) 2; arc 2 (outer 2, inner 1, core) 3: the elite wave enters at 6."""
    public = _pack()

    def arc(side: str, aps: list[FlyingElement], choice: str | None = None) -> int:
        return entry.choose(public, POSITIONS, 1, "general", side, choice, aps)

    assert arc(JAPANESE, ELITE_WAVE) == 6  # the default: FEWEST
    assert arc(JAPANESE, ELITE_WAVE, "rolled") == 1
    assert arc(JAPANESE, [ELITE_WAVE[1]]) == 1  # no elite majority: the roll
    assert arc(ALLIED, [FlyingElement("SBD-3", 3, "D", "M", elite=True)]) == 1  # Japanese only


def test_7_7_1_ties_stay_at_the_arc_rolled() -> None:
    public = _pack()
    core_only: dict[str, Position] = {"CV": ("core", 1)}
    assert entry.choose(public, core_only, 4, "general", JAPANESE, None, ELITE_WAVE) == 4


def test_7_7_1_the_entry_order_is_judged(witp: WitpRuleset) -> None:
    state = opened(witp)
    strike = "STRIKE S1 FROM TF2 3xD3A1/D TARGET TF3"
    v = witp.validate(state, JAPANESE, f"{strike}\nENTRY S1 ROLLED\nENTRY S9 FEWEST\nENTRY S1")
    assert [(e.line, e.rule) for e in v.errors] == [(3, "7.7.1"), (4, "7.7.1")]
    p, _ = plot.judge(Knowledge.of(state, JAPANESE), JAPANESE, f"{strike}\nENTRY S1 ROLLED")
    assert p.air_strikes["S1"].entry == "rolled"
    allied = witp.validate(
        state, ALLIED, "STRIKE S1 FROM TF3 6xSBD-3/D TARGET TF2\nENTRY S1 FEWEST"
    )
    assert [(e.line, e.rule) for e in allied.errors] == [(2, "7.7.1")]
    assert "only a Japanese wave" in allied.errors[0].message


def test_7_7_1_the_elite_wave_enters_where_it_chose_told_to_both(witp: WitpRuleset) -> None:
    """The 5th Carrier Division's elite D3As and B5Ns strike Yorktown's TF: the wave's
    arc is one of the roll's three, the path with the fewest ships, and both sides
    are told the arc and the die."""
    base = opened(witp)
    seen = 0
    for seed in range(12):
        after, _events = resolved(base, seed, side=JAPANESE, ratings=RATINGS)
        waves = [d for d in after["disclosures"] if d["fact"]["kind"] == "wave-entry"]
        placed = next(
            d["fact"] for d in after["disclosures"] if d["fact"]["kind"] == "air-surface-placement"
        )
        priority = next(
            d["fact"]["priority"]
            for d in after["disclosures"]
            if d["fact"]["kind"] == "target-priority"
        )
        positions = {str(i): (s["ring"], int(s["arc"])) for i, s in enumerate(placed["ships"])}
        for d in waves:
            f = d["fact"]
            assert set(d["audience"]) == {JAPANESE, ALLIED}
            assert f["entry_arc"] in entry.adjacent(public_pack(after[PUBLIC]), f["rolled"])
            best = entry.choose(
                public_pack(after[PUBLIC]),
                positions,
                f["rolled"],
                priority,
                JAPANESE,
                None,
                ELITE_WAVE,
            )
            assert f["entry_arc"] == best
            seen += f["entry_arc"] != f["rolled"]
    assert seen  # the choice was taken somewhere, not only the roll
