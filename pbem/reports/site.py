"""`pbem archive html`: a static site of one game, readable offline in a browser.

Layout::

    index.html                 the game, its verdict, every report by phase and audience
    reports/NNNN-AUD.html      each report's HTML part exactly as it was mailed
    reports/NNNN-AUD.txt       its plain-text part, exactly as mailed
    reports/NNNN-AUD.png       its map picture, as attached
    reports/NNNN-AUD.page.html the same report framed with navigation and its map
    record.html                after the game: the omniscient record, every entry

No JavaScript, no external resources: plain HTML with an inline style sheet.
The per-side reports of a game in play are secret from the other side, so the
site of an unfinished game is for the moderator only (``unfinished=True``),
and it never holds the record before the game is over.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, StrictUndefined
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.core.errors import LifecycleError
from pbem.record import journal
from pbem.storage.enums import GameStatus
from pbem.storage.models import Game, Phase, Report

STYLE = """
body { font-family: Georgia, serif; max-width: 60em; margin: 1em auto; padding: 0 1em;
       color: #1d1d1d; background: #fbfaf6; }
h1 { font-size: 1.5em; border-bottom: 2px solid #333; }
h2 { font-size: 1.15em; margin-top: 1.5em; border-bottom: 1px solid #999; }
table { border-collapse: collapse; } th, td { border: 1px solid #bbb; padding: .2em .6em; }
th { background: #ece8dc; text-align: left; }
nav a { margin-right: 1em; } img { max-width: 100%; border: 1px solid #999; }
pre { background: #f0ede4; padding: .5em; overflow-x: auto; }
details { margin: .3em 0; } summary { cursor: pointer; }
.japanese, .south { color: #b01e1e; } .allied, .north { color: #1e3cb0; }
"""

_ENV = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)

INDEX = _ENV.from_string(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Game {{ game.id }}</title>
<style>{{ style }}</style></head>
<body>
<header><h1>Game {{ game.id }}</h1>
<p>Ruleset <b>{{ game.ruleset }}</b>, scenario <b>{{ game.scenario }}</b>, status <b>{{ game.status }}</b>.</p>
</header>
<main>
{% if game.outcome %}
<section id="verdict"><h2>Verdict</h2>
<p><b>{{ game.outcome.summary }}</b>{% if game.outcome.winner %}: {{ game.outcome.winner }} wins ({{ game.outcome.level }}){% endif %}.</p>
<p><a href="record.html">The full record</a> (every order, die roll and event).</p>
</section>
{% else %}
<p><b>The game is still in play: this site holds both sides' reports. It is for the moderator only.</b></p>
{% endif %}
<section id="reports"><h2>Reports, as they were sent</h2>
<table>
<tr><th>after</th><th>next phase</th>{% for a in audiences %}<th class="{{ a }}">{{ a }}</th>{% endfor %}</tr>
{% for row in rows %}
<tr><td>{{ row.after }}</td><td>{{ row.label }}</td>
{% for a in audiences %}<td>{% for r in row.by_audience.get(a, []) %}<a href="{{ r.page }}">report</a> (<a href="{{ r.text }}">text</a>{% if r.png %}, <a href="{{ r.png }}">map</a>{% endif %}) {% endfor %}</td>{% endfor %}
</tr>
{% endfor %}
</table>
</section>
</main>
</body></html>
"""
)

PAGE = _ENV.from_string(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ subject }}</title>
<style>{{ style }}</style></head>
<body>
<nav><a href="../index.html">Game {{ game_id }}</a>{% if prev %}<a href="{{ prev }}">previous ({{ audience }})</a>{% endif %}{% if next %}<a href="{{ next }}">next ({{ audience }})</a>{% endif %}<a href="{{ raw_html }}">as mailed (HTML)</a><a href="{{ raw_text }}">as mailed (text)</a></nav>
<h1>{{ subject }}</h1>
<p>Sent {{ sent }} to <b class="{{ audience }}">{{ audience }}</b>.</p>
{% if png %}<figure><img src="{{ png }}" alt="The map as {{ audience }} saw it"><figcaption>The map attached to this report.</figcaption></figure>{% endif %}
<h2>The report (plain-text part)</h2>
<pre>{{ text }}</pre>
</body></html>
"""
)

RECORD = _ENV.from_string(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Game {{ game_id }}: the record</title>
<style>{{ style }}</style></head>
<body>
<nav><a href="index.html">Game {{ game_id }}</a></nav>
<h1>Game {{ game_id }}: the omniscient record</h1>
<p>Every entry of the hash-chained record, in order. Check it with <code>pbem verify</code> on the exported archive.</p>
{% for e in entries %}
<details{% if e.kind in ("game-over",) %} open{% endif %}><summary>#{{ e.seq }} {{ e.at }} <b>{{ e.kind }}</b></summary>
<pre>{{ e.pretty }}</pre></details>
{% endfor %}
</body></html>
"""
)


def _phase_label(phase: Phase | None) -> str:
    return "game over" if phase is None else f"turn {phase.turn} {phase.name}"


def write_site(session: Session, game_id: str, out: Path, *, unfinished: bool = False) -> Path:
    """Write the static site of ``game_id`` into ``out``; returns the index page."""
    game = session.get(Game, game_id)
    if game is None:
        raise LifecycleError(f"no game {game_id!r}")
    over = game.status == GameStatus.OVER
    if not over and not unfinished:
        raise LifecycleError(
            f"game {game_id} is not over; its site holds both sides' reports "
            "(use --unfinished for the moderator's own copy)"
        )
    folder = out / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    reports = list(
        session.scalars(select(Report).where(Report.game_id == game_id).order_by(Report.id))
    )
    phases = {p.id: p for p in session.scalars(select(Phase).where(Phase.game_id == game_id))}
    files = _write_reports(folder, game_id, reports)

    rows: list[dict[str, Any]] = []
    for r, f in zip(reports, files, strict=True):
        key = r.phase_id
        if not rows or rows[-1]["key"] != key:
            phase = phases.get(key) if key is not None else None
            rows.append(
                {"key": key, "label": _phase_label(phase), "after": r.created_at, "by_audience": {}}
            )
        rows[-1]["by_audience"].setdefault(r.audience, []).append(f)
    audiences = sorted({r.audience for r in reports}, key=lambda a: (a == "omniscient", a))
    index = out / "index.html"
    index.write_text(
        INDEX.render(
            game={
                "id": game.id,
                "ruleset": game.ruleset,
                "scenario": game.scenario,
                "status": game.status,
                "outcome": game.outcome,
            },
            rows=rows,
            audiences=audiences,
            style=STYLE,
        ),
        encoding="utf-8",
    )
    if over:  # the omniscient record is disclosed at game end only
        entries = [
            {**e, "pretty": json.dumps(e["payload"], indent=2, sort_keys=True, ensure_ascii=False)}
            for e in journal.entries(session, game_id)
        ]
        (out / "record.html").write_text(
            RECORD.render(game_id=game_id, entries=entries, style=STYLE), encoding="utf-8"
        )
    return index


def _write_reports(folder: Path, game_id: str, reports: Sequence[Report]) -> list[dict[str, Any]]:
    names = [f"{r.id:04d}-{r.audience}" for r in reports]
    files: list[dict[str, Any]] = []
    for i, (r, name) in enumerate(zip(reports, names, strict=True)):
        (folder / f"{name}.txt").write_text(r.text, encoding="utf-8")
        # The HTML part as mailed; a report from before HTML parts existed gets its text.
        (folder / f"{name}.html").write_text(
            r.html or PAGE.render(**_page_args(r, name, None, None, game_id)), encoding="utf-8"
        )
        if r.png:
            (folder / f"{name}.png").write_bytes(r.png)
        same = [j for j, x in enumerate(reports) if x.audience == r.audience]
        k = same.index(i)
        prev = f"{names[same[k - 1]]}.page.html" if k > 0 else None
        nxt = f"{names[same[k + 1]]}.page.html" if k + 1 < len(same) else None
        (folder / f"{name}.page.html").write_text(
            PAGE.render(**_page_args(r, name, prev, nxt, game_id)), encoding="utf-8"
        )
        files.append(
            {
                "page": f"reports/{name}.page.html",
                "text": f"reports/{name}.txt",
                "png": f"reports/{name}.png" if r.png else None,
            }
        )
    return files


def _page_args(
    r: Report, name: str, prev: str | None, nxt: str | None, game_id: str
) -> dict[str, Any]:
    return {
        "subject": r.subject,
        "game_id": game_id,
        "audience": r.audience,
        "sent": r.created_at.isoformat(sep=" ", timespec="minutes"),
        "png": f"{name}.png" if r.png else None,
        "text": r.text,
        "prev": prev,
        "next": nxt,
        "raw_html": f"{name}.html",
        "raw_text": f"{name}.txt",
        "style": STYLE,
    }
