"""The Jinja environment for reports and answers.

Templates live in the repository's ``templates/`` folder: ``<ruleset>/NAME``
first, then ``common/NAME``. StrictUndefined: a missing value is a bug, not
an empty line in a player's report.
"""

from __future__ import annotations

import textwrap
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def _wrap(text: str, indent: str = "", width: int = 72) -> str:
    """Wrap each paragraph line at ``width`` columns (72: readable in any mail client)."""
    return "\n".join(
        textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent + "  ")
        if line.strip()
        else ""
        for line in str(text).splitlines()
    )


@lru_cache(maxsize=8)
def environment(ruleset: str) -> Environment:
    loaders = [
        FileSystemLoader(str(TEMPLATES / ruleset)),
        FileSystemLoader(str(TEMPLATES / "common")),
    ]
    env = Environment(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["wrap72"] = _wrap
    return env


def render(ruleset: str, name: str, context: dict[str, Any]) -> str:
    return environment(ruleset).get_template(name).render(**context)
