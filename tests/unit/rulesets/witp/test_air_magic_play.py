"""42.4.1 through the Air Phase: a Strike Sequence chit written in the Allies' Air
Strike Plot is kept with the filed plot and played on the strike's Strike Sequence
Table roll when the Strike Segment sequences it (12.0, R95, R140)."""

from __future__ import annotations

import copy
from typing import Any

from pbem.rulesets.witp import intelligence
from pbem.rulesets.witp.knowledge import PUBLIC
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.work import Work

from .test_air_play import YORKTOWN_STRIKE, _winner_first, allocation, battle, kinds, play

__all__ = ["allocation", "battle"]  # the fixtures this module's tests use

JAPANESE_STRIKE = "STRIKE K1 FROM TF2 2xD3A1 2xB5N2 TARGET TF3"


def _holding(state: dict[str, Any], *chits: str) -> dict[str, Any]:
    work = Work.begin(state)
    intelligence.put_holdings(work, intelligence.Holdings(magic=chits))
    return dict(work.finish().to_json())


def test_42_4_1_strike_sequence_chit_in_the_air_plot_moves_the_sequence_roll(
    witp: WitpRuleset, battle: dict[str, Any]
) -> None:
    """'a DRM (of either +2 or -2, at his discretion) to any single Strike Sequence
    Table DR': the same dice, the Allied strike's roll 2 lower with the chit; the chit
    shown to both and spent."""
    state = _holding(copy.deepcopy(battle), "strike-sequence-2")
    state[PUBLIC]["pack"]["rulings/initiative-choice"]["value"] = "first"
    seed = next(  # the Allies win 3.2 and strike first: their strike is the one rolled for
        s for s in (bytes([i]) for i in range(64)) if _winner_first(witp, state, s) == "allied"
    )
    plain = play(witp, state, seed, allied=YORKTOWN_STRIKE, japanese=JAPANESE_STRIKE)
    with_chit = f"{YORKTOWN_STRIKE}\nMAGIC STRIKE-SEQUENCE-2 S1 -2"
    out = play(witp, state, seed, allied=with_chit, japanese=JAPANESE_STRIKE)
    (before,) = [s for s in kinds(plain, "strike-sequence") if s["tf"] == "TF2"]
    (after,) = [s for s in kinds(out, "strike-sequence") if s["tf"] == "TF2"]
    assert after["roll"] == before["roll"] and after["drm"] == before["drm"] - 2
    (chit,) = kinds(out, "strike-sequence-chit")
    assert chit["drm"] == -2 and chit["chit"] == "strike-sequence-2"
    (shown,) = [e for e in out.events if e.kind == "magic-played"]
    assert shown.witnesses is None  # 42.4.2: openly
    assert intelligence.allied_holdings(Work.begin(out.state)).chits == ()
    assert intelligence.allied_holdings(Work.begin(plain.state)).chits == ("strike-sequence-2",)
