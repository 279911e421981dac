"""One report, rendered: the view of one audience as text, HTML and a picture.

A report is rendered once per audience (each side's player, each observer)
from that audience's view alone: a plain-text part, the same content as HTML,
and a PNG picture. What it is rendered for, and where it goes, is the
lifecycle's business (pbem.lifecycle.publishing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.core import stages
from pbem.core.mapview import MapPicture
from pbem.reports.context import Header, map_title, report_context
from pbem.reports.pictures import picture
from pbem.reports.playerdocs import links
from pbem.reports.render import render


@dataclass(frozen=True, slots=True)
class RenderedReport:
    text: str
    html: str
    png: bytes | None
    attachment: str  # the PNG's file name: names the game, turn and audience only

    @property
    def attachments(self) -> list[tuple[str, str, bytes]]:
        return [] if self.png is None else [(self.attachment, "image/png", self.png)]


def render_report(
    header: Header,
    view: Mapping[str, Any],
    map_picture: MapPicture | None = None,
    *,
    with_map: bool = True,
    docs_url: str = "",
) -> RenderedReport:
    """Text, HTML and picture of one report, from the audience's view alone.

    ``map_picture`` is the ruleset's description of the view's map (None for a
    ruleset without one); ``with_map`` False skips the picture (tests that need
    only the words); ``docs_url`` is where the player's docs are published ("":
    attached to the first mail), for the links to the guide and the rule index."""
    with stages.stage("context"):
        ctx = {**report_context(header, view), "docs": links(header.ruleset, docs_url)}
    with stages.stage("text"):
        text = render(header.ruleset, "report.txt.j2", ctx)
    with stages.stage("html"):
        html = render(header.ruleset, "report.html.j2", ctx)
    turn = header.phase["turn"] if header.phase else "end"
    png = None
    if with_map:
        with stages.stage("maps"):
            png = picture(header.ruleset, view, map_title(header), map_picture)
    return RenderedReport(text, html, png, f"{header.game_id}-{turn}-{header.audience}-map.png")
