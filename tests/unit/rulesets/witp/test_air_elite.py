"""7.11 Japanese aircrew superiority (air/elite.py, R111): the elite APs of the
scenario's pack, split off a strike's parts, and their bonuses where the strike
rolls: A6M +1 air combat, D3A/B5N/G3M/G4M +2 anti-ship and no air combat lost off
their rated altitude (7.11.4); an elite AP eliminated leaves the count (7.11.2)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import attack, elite, plot
from pbem.rulesets.witp.air.flying import FlyingElement, LaunchedPart
from pbem.rulesets.witp.air.ships import holdings
from pbem.rulesets.witp.air.strike import aircombat
from pbem.rulesets.witp.air.strike import cap as strike_cap
from pbem.rulesets.witp.air.strike import losses as strike_losses
from pbem.rulesets.witp.air.strike.plotted import Covering
from pbem.rulesets.witp.air.strikes import StrikePart
from pbem.rulesets.witp.datapack import StoredPack, public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.work import Work

from .conftest import SCENARIO
from .test_air_naval_strike import STRIKE, TIME
from .test_air_world import in_tf, kido_butai, knowing, resolve_stored, told, world


def ap(**fields: Any) -> FlyingElement:
    """APs in the air: one unmarked fighter at Low but for ``fields``."""
    return FlyingElement(**{"type": "A6M2", "n": 1, "role": "F", "alt": "L", **fields})


def _pack() -> StoredPack:
    return public_pack(world()[PUBLIC])


def _elite_kido_butai() -> dict[str, Any]:
    state = world(japanese=kido_butai())
    for s in in_tf(state, "japanese", "TF1")[:1]:  # Shokaku's group
        s["elite"] = {"A6M2": 2, "D3A1": 1}
    return state


def test_7_11_1_the_scenario_embarks_its_elite_counts(witp: WitpRuleset) -> None:
    ships = witp.initial_state(SCENARIO, {})[PRIVATE]["japanese"]["ships"]
    assert ships["Shokaku"]["elite"] == {"A6M2": 2, "D3A1": 2, "B5N2": 2}
    assert "elite" not in ships["Shoho"]  # the pack names only the 5th Carrier Division


def test_7_11_a_parts_aps_are_elite_up_to_what_its_base_holds() -> None:
    state = _elite_kido_butai()
    holders = holdings(knowing(state, "japanese"), "japanese", "TF1")
    got = elite.split(holders, [ap(type="D3A1", n=3, alt="M")])
    assert got == [ap(type="D3A1", n=1, alt="M", elite=True), ap(type="D3A1", n=2, alt="M")]


def test_7_11_elite_a6m_plus_one_air_combat() -> None:
    pack = public_pack(world()[PUBLIC])
    regular, best = aircombat.air_stacks(
        pack,
        [
            ap(type="A6M2", alt="M"),
            ap(type="A6M2", alt="M", elite=True),
        ],
        "M",
        bombers=False,
    )
    assert (best.attack, best.defence) == (regular.attack + 1, regular.defence + 1)
    assert best.told().to_json()["elite"] is True and "elite" not in regular.told().to_json()


def test_7_11_4_elite_level_bombers_lose_nothing_off_their_altitude() -> None:
    pack = public_pack(world()[PUBLIC])
    group = [
        ap(type="D3A1", alt="H"),
        ap(type="D3A1", alt="H", elite=True),
    ]
    regular, best = aircombat.air_stacks(pack, group, "H", bombers=True)
    assert best.defence == 2 and regular.defence < best.defence  # rated M, flown H


def test_7_11_elite_bombers_plus_two_anti_ship_each() -> None:
    public = _pack()
    aps = [ap(type="D3A1", n=2, role="D", range="normal")]
    plain = attack.anti_ship(public, aps)
    assert attack.anti_ship(public, [replace(aps[0], elite=True)]) == plain + 2 * 2
    # no bonus to a rating the type does not have (7.11 "+2 to ... rating")
    torpedo = [ap(type="D3A1", n=2, role="T", elite=True)]
    assert attack.anti_ship(public, torpedo) == 0


def test_7_11_2_an_elite_ap_eliminated_leaves_the_count() -> None:
    work = Work.begin(_elite_kido_butai())
    elite.lose(work, JAPANESE, "TF1", "A6M2", 1)
    assert elite.held(holdings(work, JAPANESE, "TF1"), "A6M2") == 1
    part = LaunchedPart(StrikePart("TF1", "E2114", True, 6, ()), (), (ap(type="A6M2"),))
    strike_losses.elite_losses(work, JAPANESE, [part], {"A6M2": 3})
    assert elite.held(holdings(work, JAPANESE, "TF1"), "A6M2") == 0


def _cap_told(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for f in told(state, JAPANESE, "air-combat") for c in f["cap"]]


def _strike_at_tf1(state: dict[str, Any], seed: int = 3, **kw: Any) -> dict[str, Any]:
    p, errors = plot.judge(knowing(state, ALLIED), ALLIED, STRIKE)
    assert errors == []
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    secret = SecretDice(bytes([seed + 1]) * 12, "secret")
    got, _ = resolve_stored(state, next(iter(p.air_strikes.values())), dice, secret, TIME, **kw)
    return got


def test_7_11_elite_cap_is_split_off_level_by_level_lowest_first() -> None:
    cap = [ap(type="A6M2", n=2, alt="L"), ap(type="A6M2", n=2, alt="M")]
    assert strike_cap.elite_first(cap, {"A6M2": 3}) == [
        ap(type="A6M2", n=2, alt="L", elite=True),
        ap(type="A6M2", n=1, alt="M", elite=True),
        ap(type="A6M2", n=1, alt="M"),
    ]


def test_7_11_a_tfs_elite_cap_fights_marked_with_its_bonus() -> None:
    got = _strike_at_tf1(_elite_kido_butai())
    cap = _cap_told(got)
    flying = sum(c["n"] for c in cap)  # what carrier coordination let up (8.1.4)
    # Shokaku's two elite A6M2 fly first
    assert flying and sum(c["n"] for c in cap if c.get("elite")) == min(2, flying)
    plain = _cap_told(_strike_at_tf1(world(japanese=kido_butai())))
    assert not any(c.get("elite") for c in plain)


def test_7_11_a_strike_takes_the_elite_first_so_committed_fighters_leave_regulars() -> None:
    got = _strike_at_tf1(_elite_kido_butai(), committed={"A6M2": 2})
    cap = _cap_told(got)
    assert cap and not any(c.get("elite") for c in cap)


def test_7_11_elite_cover_fights_elite_and_its_elite_losses_are_reported() -> None:
    hit = 0
    for seed in range(30):
        losses: dict[str, list[int]] = {}
        got = _strike_at_tf1(
            world(japanese=kido_butai()),
            seed,
            committed={"A6M2": 4},  # the TF's own fighters all away: the cover alone flies
            cover=[Covering("A6M2", 3, elite=3)],
            cover_losses=losses,
        )
        cap = _cap_told(got)
        assert cap and all(c.get("elite") for c in cap)  # none of the TF's regulars
        for eliminated, aborted, elite_lost in losses.values():
            hit += eliminated + aborted
            assert elite_lost == eliminated  # every cover AP lost was elite
    assert hit  # the cover was hurt at least once
