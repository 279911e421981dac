"""The air rules' reads of the round's work area (work.Work) beyond their owners'
accessors: a side's Knowledge of it and the moderator's secret stream, each reached
here alone so that no rule of theirs reads ``work.json`` itself."""

from __future__ import annotations

from pbem.rulesets.witp import draws
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.work import Work


def knowledge(work: Work, side: str) -> Knowledge:
    """What ``side`` may know now: the only thing its choices read."""
    return Knowledge.of(work.json, side)


def secret_stream(work: Work, label: str) -> draws.SecretDice:
    """The round's secret stream for one step (draws.round_secret): the moderator's."""
    return draws.round_secret(work, label)
