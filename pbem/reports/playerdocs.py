"""The player's docs: what a player reads to play by mail, published where he can reach it.

The pages are Markdown files shipped inside the package (``pbem/docs``; the
repository's ``docs/`` links to them, one copy). They are rendered to HTML here,
each heading and each rule of the rule index with an anchor of its own, for three
places: the archive site (``docs/`` beside a game's pages), the folder a moderator
publishes at ``[reports] docs_url``, and, when no URL is set, one self-contained
file attached to each player's first mail of a game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import escape

# Each game's pages, its guide first; a ruleset not named here gets the common pages.
COMMON = ("players-signing", "players-openpgp", "disputes")
PAGES: dict[str, tuple[str, ...]] = {
    "usn": ("usn-guide", "usn-orders", "usn-rule-index", "usn-fog", "usn-units", *COMMON),
    "witp": ("witp-guide", "witp-orders", "witp-rule-index", "witp-rulings", *COMMON),
}
# The page whose anchors are the rule IDs reports cite ([NM.SURF.5], [16.3], [R106]).
RULE_INDEXES = {"usn": "usn-rule-index", "witp": "witp-rule-index"}
ATTACHED = "the attached guide"  # how a mail without a docs URL names the docs

STYLE = """
body { font-family: Georgia, serif; max-width: 60em; margin: 1em auto; padding: 0 1em;
       color: #1d1d1d; background: #fbfaf6; line-height: 1.4; }
h1 { font-size: 1.5em; border-bottom: 2px solid #333; }
h2 { font-size: 1.2em; margin-top: 1.5em; border-bottom: 1px solid #999; }
table { border-collapse: collapse; } th, td { border: 1px solid #bbb; padding: .2em .6em; }
th { background: #ece8dc; text-align: left; }
pre, code { background: #f0ede4; } pre { padding: .5em; overflow-x: auto; }
nav a { margin-right: 1em; } :target { background: #fff3b0; }
"""


def pages(ruleset: str) -> tuple[str, ...]:
    return PAGES.get(ruleset, COMMON)


def all_pages(rulesets: Iterable[str] = PAGES) -> list[str]:
    """Every page of these rulesets, each once, in reading order."""
    return list(dict.fromkeys(p for r in rulesets for p in pages(r)))


def source(page: str) -> str:
    """A page's Markdown, as shipped in the package."""
    return (files("pbem") / "docs" / f"{page}.md").read_text(encoding="utf-8")


def title(page: str) -> str:
    first = source(page).splitlines()[0]
    return first.lstrip("# ").strip()


def rule_anchor(rule: str) -> str:
    """The anchor of a rule's entry in its index: the ID a citation starts with
    ("42.4.1 (played on a search chit, 13.5)" -> "42.4.1"), a space as a hyphen
    (War in the Pacific's sequence of play: "3.1 C" -> "3.1-C")."""
    return str(rule).split(" (")[0].split(",")[0].strip().replace(" ", "-")


def rule_url(docs_url: str, ruleset: str, rule: str) -> str | None:
    """Where a rule ID's entry is read: ``<docs_url>/usn-rule-index.html#ID``; None
    without a published URL or for a game with no rule index."""
    index = RULE_INDEXES.get(ruleset)
    if not docs_url or index is None:
        return None
    return f"{docs_url}/{index}.html#{rule_anchor(rule)}"


def attachment_name(ruleset: str) -> str:
    return f"pbem-{ruleset}-guide.html"


def links(ruleset: str, docs_url: str) -> dict[str, str]:
    """What a report or an answer says of the docs: the guide's address and the
    base of the rule links (``rules`` + ID), or, with no docs published, the name
    of the file attached to the first mail."""
    index = RULE_INDEXES.get(ruleset)
    return {
        "guide": f"{docs_url}/{pages(ruleset)[0]}.html" if docs_url else "",
        "rules": f"{docs_url}/{index}.html#" if docs_url and index else "",
        "attached": "" if docs_url else attachment_name(ruleset),
        "index": "yes" if index else "",
    }


def slug(text: str) -> str:
    """A heading's anchor: lower case, words joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # Raw HTML stays: the pages are pbem's own, and the rule index anchors its rows
    # with <a id="ID">.
    return MarkdownIt("commonmark", {"html": True}).enable("table")


LinkFix = Callable[[str], str | None]


def to_html(markdown: str, fix_link: LinkFix) -> str:
    """A page's body as HTML: each heading with an id (its slug), each link's
    target through ``fix_link`` (None: the link is dropped, its words kept)."""
    md = _parser()
    tokens = md.parse(markdown)
    seen: set[str] = set()
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            anchor = slug(tokens[i + 1].content)
            while anchor in seen:
                anchor += "-1"
            seen.add(anchor)
            token.attrSet("id", anchor)
        for child in token.children or ():
            _fix(child, fix_link)
    return str(md.renderer.render(tokens, md.options, {}))


def _fix(token: Token, fix_link: LinkFix) -> None:
    if token.type != "link_open":
        return
    target = fix_link(str(token.attrGet("href") or ""))
    if target is None:
        token.attrs.pop("href", None)
    else:
        token.attrSet("href", target)


_MD_LINK = re.compile(r"^([a-z0-9-]+)\.md(#.*)?$")


def site_link(shipped: Iterable[str]) -> LinkFix:
    """Links between the published pages: ``usn-orders.md#x`` -> ``usn-orders.html#x``."""
    names = set(shipped)

    def fix(href: str) -> str | None:
        m = _MD_LINK.match(href)
        if m is None:
            return href
        return f"{m.group(1)}.html{m.group(2) or ''}" if m.group(1) in names else None

    return fix


def _page(page: str, body: str, nav: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title(page))}</title><style>{STYLE}</style></head>\n"
        f"<body>\n<nav>{nav}</nav>\n<main>\n{body}</main>\n</body></html>\n"
    )


def write_docs(out: Path, rulesets: Iterable[str] = PAGES) -> Path:
    """Write the player's pages of ``rulesets`` as HTML into ``out``, with an index
    page; returns the index. The folder is what ``[reports] docs_url`` points at."""
    out.mkdir(parents=True, exist_ok=True)
    shipped = all_pages(rulesets)
    nav = '<a href="index.html">Player\'s docs</a>'
    for page in shipped:
        body = to_html(source(page), site_link(shipped))
        (out / f"{page}.html").write_text(_page(page, body, nav), encoding="utf-8")
    items = "".join(f'<li><a href="{p}.html">{escape(title(p))}</a></li>\n' for p in shipped)
    index = out / "index.html"
    index.write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Player's docs</title><style>{STYLE}</style></head>\n<body>\n"
        f"<h1>Playing by mail: the player's docs</h1>\n<ul>\n{items}</ul>\n</body></html>\n",
        encoding="utf-8",
    )
    return index


def _attached_link(page: str, shipped: Iterable[str]) -> LinkFix:
    """Links inside the one attached file: every anchor is prefixed with its page."""
    names = set(shipped)

    def fix(href: str) -> str | None:
        if href.startswith("#"):
            return f"#{page}-{href[1:]}"
        m = _MD_LINK.match(href)
        if m is None:
            return href
        if m.group(1) not in names:
            return None
        return f"#{m.group(1)}-{m.group(2)[1:]}" if m.group(2) else f"#{m.group(1)}"

    return fix


@lru_cache(maxsize=4)
def guide_attachment(ruleset: str) -> tuple[str, str, bytes]:
    """One self-contained HTML file of a game's player pages, for the first mail of
    a game when no docs URL is published: (file name, content type, bytes)."""
    shipped = pages(ruleset)
    sections = []
    for page in shipped:
        body = to_html(source(page), _attached_link(page, shipped))
        body = re.sub(r'\bid="([^"]+)"', rf'id="{page}-\1"', body)
        sections.append(f'<section id="{page}">\n{body}</section>\n')
    contents = "".join(f'<a href="#{p}">{escape(title(p))}</a>' for p in shipped)
    html = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>The player's guide</title><style>{STYLE}</style></head>\n<body>\n"
        f"<nav>{contents}</nav>\n{''.join(sections)}</body></html>\n"
    )
    return (attachment_name(ruleset), "text/html", html.encode("utf-8"))
