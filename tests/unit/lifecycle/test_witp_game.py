"""A War in the Pacific game through the game machine: CREATE with the moderator's
own data pack (as ``datapack=@pack.toml`` reaches the command), START, mail rounds
of air strike and naval plots, reports that print the clock and the illustrative notice and keep
each side's forces its own."""

from __future__ import annotations

import shlex

import pytest
from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle import moderator
from pbem.outbox.queue import open_outbound
from pbem.storage.models import OutboundMail

PACK = """\
[pack]
name = "club"

[scenario.game-turns]
value = 2
source = "the club's scenario card"
"""


def _create(gm, pack: str) -> str:  # type: ignore[no-untyped-def]
    words = ["CREATE", "w1", "witp", "coral-sea-1942", "early_adjudication=yes", f"datapack={pack}"]
    return moderator.execute(gm, " ".join(shlex.quote(w) for w in words))


def test_a_bad_pack_is_refused_at_create(table) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LifecycleError, match="cannot replace"):
        table.run(lambda gm: _create(gm, '[scenario.game-turns]\nvalue = "two"\n'))
    with pytest.raises(LifecycleError, match="not valid TOML"):
        table.run(lambda gm: _create(gm, "[scenario"))


def test_witp_game_plays_naval_plot_rounds_by_mail(table) -> None:  # type: ignore[no-untyped-def]
    keys = {side: generate_keypair(side) for side in ("japanese", "allied")}

    def setup(gm):  # type: ignore[no-untyped-def]
        answer = _create(gm, PACK)
        for side, (_private, public) in keys.items():
            gm.acts.assign("w1", side, f"{side}@example.org", public_key=public)
        gm.acts.start("w1")
        return answer

    assert "game w1 created (witp, coral-sea-1942)" in table.run(setup)
    phase = table.run(
        lambda gm: (gm.lookups.open_phase("w1").turn, gm.lookups.open_phase("w1").name)
    )
    # T1-open was automatic; the First Air Phase's Allocation Segment is the first
    # round (5.0), both sides at once
    assert phase == (1, "T1-air1-allocation")

    def reports(gm):  # type: ignore[no-untyped-def]
        rows = gm.desk.session.scalars(
            select(OutboundMail).where(OutboundMail.kind == "report")
        ).all()
        return {r.recipient: open_outbound(gm.desk.key, r).decode("utf-8", "replace") for r in rows}

    first = table.run(reports)
    allied = first["allied@example.org"]
    assert (
        "Game-Turn 1 of 2" in allied and "Where this report rests on illustrative values" in allied
    )
    assert "units/ship-cv-yorktown" in allied and "Yorktown" in allied
    assert "Shokaku" not in allied and "Yorktown" not in first["japanese@example.org"]
    for turn, name in ((1, "T1-naval1-plot"), (1, "T1-naval2-plot"), (1, "T1-naval3-plot")):
        air = name.replace("naval", "air").replace("-plot", "-allocation")
        for side in ("japanese", "allied"):  # no strike plotted (5.0)
            table.run(lambda gm, t=turn, n=air, s=side: gm.phases.submit("w1", s, t, n, ["PASS"]))
        table.run(lambda gm: gm.clock.tick("w1"))
        # The Allies hold the SI advantage openly, so the Japanese plot first (42.3.1, R70)
        j = f"{name}-japanese"
        table.run(lambda gm, t=turn, n=j: gm.phases.submit("w1", "japanese", t, n, ["PASS"]))
        table.run(lambda gm: gm.clock.tick("w1"))
        table.run(lambda gm, t=turn, n=name: gm.phases.submit("w1", "allied", t, n, ["PASS"]))
        table.run(lambda gm: gm.clock.tick("w1"))
    phase = table.run(
        lambda gm: (gm.lookups.open_phase("w1").turn, gm.lookups.open_phase("w1").name)
    )
    assert phase == (2, "T2-air1-allocation")
