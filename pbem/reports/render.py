"""The Jinja environment for reports and answers.

Templates live in the repository's ``templates/`` folder: ``<ruleset>/NAME``
first, then ``common/NAME``. StrictUndefined: a missing value is a bug, not
an empty line in a player's report. ``.html.j2`` templates are autoescaped;
plain-text ones are not (a mail body is not HTML).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    PackageLoader,
    StrictUndefined,
    pass_context,
    select_autoescape,
)
from jinja2.runtime import Context
from markupsafe import Markup, escape

from pbem.core.sequence import phase_label
from pbem.reports.playerdocs import rule_anchor

WIDTH = 72  # plain-text reports: readable in any mail client, quotable once

# Players have the rulebook and the player's docs, not the engine's rules inventory:
# rule IDs in HTML reports link to their entry in the published rule index
# (pbem.reports.playerdocs; the render context's ``docs``, its "rules" the links' base).
# U.S.N.'s case IDs ([NM.SURF.5]); War in the Pacific's rulebook cases, steps of its
# sequence of play and pbem's rulings ([16.3], [3.1 C], [R106]).
_RULE = re.compile(
    r"\[([A-Z][A-Z0-9]*(?:\.[A-Za-z0-9]+)+|GEN\.[A-Z]+|\d+(?:\.\d+)+(?: [A-J])?|R\d+)\]"
)


def rule_link(rule: Any, base: str | None) -> Markup:
    """``NM.SURF.5`` -> a bracketed link to the rule's entry, ``base`` + the ID
    (no base: no rule index published, the bracketed ID)."""
    r = escape(str(rule))
    if not base:
        return Markup(f"[{r}]")
    return Markup(
        f'[<a class="rule" href="{escape(base)}{escape(rule_anchor(str(rule)))}">{r}</a>]'
    )


def link_rules(text: Any, base: str | None) -> Markup:
    """Escape ``text`` and turn every ``[RULE.ID]`` in it into a link to its entry."""
    return Markup(_RULE.sub(lambda m: str(rule_link(m.group(1), base)), str(escape(str(text)))))


def _rules_base(ctx: Context) -> str | None:
    docs = ctx.get("docs")
    return str(docs.get("rules") or "") if isinstance(docs, Mapping) else None


@pass_context
def _rule_link(ctx: Context, rule: Any) -> Markup:
    return rule_link(rule, _rules_base(ctx))


@pass_context
def _link_rules(ctx: Context, text: Any) -> Markup:
    return link_rules(text, _rules_base(ctx))


def _wrap(text: Any, indent: str = "", width: int = WIDTH) -> str:
    """Wrap each paragraph line at ``width`` columns, continuation lines indented."""
    return "\n".join(
        textwrap.fill(
            line,
            width,
            initial_indent=indent,
            subsequent_indent=indent + "  ",
            break_long_words=True,
            break_on_hyphens=False,
        )
        if line.strip()
        else ""
        for line in str(text).splitlines()
    )


def _columns(rows: list[list[Any]], widths: list[int], least: int = 20) -> str:
    """Fixed-width table rows; the last cell of a row takes the rest, wrapped (at
    ``least`` columns however little is left)."""
    out = []
    for row in rows:
        cells = [str(c) for c in row]
        heads = [c.ljust(w) for c, w in zip(cells[:-1], widths, strict=False)]
        lead = len(" ".join(heads)) + (1 if heads else 0)
        tail = textwrap.wrap(cells[-1], max(least, WIDTH - 2 - lead)) or [""]
        out.append(("  " + " ".join([*heads, tail[0]])).rstrip())
        out += [" " * (2 + lead) + t for t in tail[1:]]
    return "\n".join(out)


def _table(head: list[Any], rows: list[list[Any]]) -> str:
    """A table with its head: each column as wide as its widest cell, the last
    wrapped in what the others leave of the 72 columns (``_columns``)."""
    cells = [[str(c) for c in r] for r in [head, *rows]]
    widths = [max(len(r[i]) for r in cells if i < len(r)) for i in range(len(head) - 1)]
    return _columns(cells, widths, least=8)


def _underline(text: str, char: str = "-") -> str:
    return f"{text}\n{char * min(len(text), WIDTH)}"


@lru_cache(maxsize=8)
def environment(ruleset: str) -> Environment:
    loaders = [
        # Shipped inside the package (pbem/templates), so a wheel finds them too.
        PackageLoader("pbem", f"templates/{ruleset}"),
        PackageLoader("pbem", "templates/common"),
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
    env.filters["columns"] = _columns
    env.filters["table"] = _table
    env.filters["underline"] = _underline
    env.filters["link_rules"] = _link_rules
    env.globals["rule_link"] = _rule_link
    env.globals["phase_label"] = phase_label  # headings name a phase as subjects do
    env.globals["rule_anchor"] = rule_anchor  # "3.1 C" -> "3.1-C", the index's anchor
    return env


def warm_up(rulesets: Iterable[str]) -> None:
    """Compile every template of the answers ("common") and of each ruleset now:
    compiling is the first render's cost (tens of ms), paid before a daemon
    says it is ready rather than by the first player's answer."""
    for ruleset in ("common", *rulesets):
        env = environment(ruleset)
        for name in env.list_templates():
            env.get_template(name)


def render(ruleset: str, name: str, context: dict[str, Any]) -> str:
    return environment(ruleset).get_template(name).render(**context)
