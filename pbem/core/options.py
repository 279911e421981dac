"""Game options: what a scenario accepts at CREATE, checked rather than guessed.

A ruleset describes each option it takes (``ScenarioInfo.options``); the
lifecycle checks a moderator's ``key=value`` words against that description
alone, so every ruleset gets the same checks and the same refusals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

OptionValue = str | bool

TRUE_WORDS = frozenset({"true", "yes", "on"})
FALSE_WORDS = frozenset({"false", "no", "off"})


class OptionError(ValueError):
    """An option a scenario does not take, or a value it does not allow."""


@dataclass(frozen=True, slots=True)
class GameOption:
    """One option: a switch (no ``choices``) or one word of ``choices``."""

    key: str
    description: str = ""
    choices: tuple[str, ...] = ()
    default: OptionValue = False

    @property
    def is_switch(self) -> bool:
        return not self.choices

    def allowed(self) -> str:
        return "true/false, yes/no or on/off" if self.is_switch else ", ".join(self.choices)

    def parse(self, value: object) -> OptionValue:
        """The value in force for ``value`` as written (any case), or OptionError."""
        if self.is_switch:
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word in TRUE_WORDS:
                return True
            if word in FALSE_WORDS:
                return False
        else:
            word = str(value).strip().lower()
            for choice in self.choices:
                if choice.lower() == word:
                    return choice
        raise OptionError(f"{self.key}={value!r} is not allowed: {self.key} takes {self.allowed()}")


def resolve(accepted: Mapping[str, GameOption], given: Mapping[str, Any]) -> dict[str, Any]:
    """Every option in force: ``given`` checked against ``accepted``, defaults filled in."""
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        known = "; ".join(f"{o.key} ({o.allowed()})" for o in accepted.values())
        raise OptionError(
            f"unknown option(s) {', '.join(unknown)}; "
            + (f"this scenario takes: {known}" if known else "this scenario takes no options")
        )
    return {
        key: opt.parse(given[key]) if key in given else opt.default for key, opt in accepted.items()
    }


def describe(options: Mapping[str, Any]) -> str:
    """``key=value`` words for options in force, as a moderator would write them."""
    return " ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()
    )
