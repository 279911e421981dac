"""The air rules' reads and writes of the round's work area (work.Work): the parts of
its working copy they keep, still JSON until their records are typed, each reached
here alone so that no rule of theirs reads ``work.json`` itself."""

from __future__ import annotations

from typing import Any

from pbem.rulesets.witp import draws
from pbem.rulesets.witp.knowledge import PUBLIC
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.work import Work


def public_part(work: Work) -> dict[str, Any]:
    """The public part: the pack's charts the air tables read, the shared markers."""
    part: dict[str, Any] = work.json[PUBLIC]
    return part


def knowledge(work: Work, side: str) -> Knowledge:
    """What ``side`` may know now: the only thing its choices read."""
    return Knowledge.of(work.json, side)


def secret_stream(work: Work, label: str) -> draws.SecretDice:
    """The round's secret stream for one step (draws.round_secret): the moderator's."""
    return draws.round_secret(work, label)
