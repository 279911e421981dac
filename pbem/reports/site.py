"""`pbem archive html`: a static site of one game, readable offline in a browser.

Layout::

    index.html                 the game, its verdict, every report by phase and audience
    reports/NNNN-AUD.html      each report's HTML part exactly as it was mailed
    reports/NNNN-AUD.txt       its plain-text part, exactly as mailed
    reports/NNNN-AUD.png       its map picture, as attached
    reports/NNNN-AUD.page.html the same report framed with navigation and its map
    record.html                after the game: the omniscient record (its play, not its mail)
    narrative.html             after the game: turn by turn, each side's orders and what happened
    final-map.png              after the game: the last state, every unit shown
    docs/                      the player's docs (guide, orders, rule index) as HTML;
                               each rule ID in a report's page links to its entry

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

from pbem import rulesets
from pbem.core.errors import LifecycleError
from pbem.core.events import Event
from pbem.core.ruleset import MappedRuleset
from pbem.core.sequence import phase_label
from pbem.record import journal
from pbem.record.replay import replay
from pbem.reports.narrative import narrative, when
from pbem.reports.pictures import picture
from pbem.reports.playerdocs import RULE_INDEXES, pages, write_docs
from pbem.reports.render import link_rules
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
_ENV.globals["phase_label"] = phase_label  # the dashboard names phases as subjects do

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
<p><a href="narrative.html">The game, turn by turn</a> (every side's orders and what came of them) and <a href="record.html">the full record</a> (every order, die roll and event).</p>
</section>
{% if final_map %}
<section id="final-map"><h2>The map at the end, seen by all</h2>
<figure><a href="{{ final_map }}"><img src="{{ final_map }}" alt="The map at the end of the game, every unit shown"></a><figcaption>Both sides' forces as they ended (click for full size).</figcaption></figure>
</section>
{% endif %}
{% else %}
<p><b>The game is still in play: this site holds both sides' reports. It is for the moderator only.</b></p>
{% endif %}
<p>The player's docs: <a href="docs/index.html">how to play by mail</a>{% if guide %} (<a href="{{ guide }}">the player's guide</a>){% endif %}.</p>
<section id="reports"><h2>Reports, as they were sent</h2>
<table>
<tr><th>sent</th><th>next phase</th>{% for a in audiences %}<th class="{{ a }}">{{ a }}</th>{% endfor %}</tr>
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
{% if png %}<figure><a href="{{ png }}"><img src="{{ png }}" alt="The map as {{ audience }} saw it"></a><figcaption>The map attached to this report (click for full size; the close-up under it shows {{ audience }}'s forces and the fighting).</figcaption></figure>{% endif %}
<h2>The report (plain-text part; rule IDs link to the <a href="../docs/index.html">player's docs</a>)</h2>
<pre>{{ text }}</pre>
</body></html>
"""
)

NARRATIVE = _ENV.from_string(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Game {{ game_id }}: turn by turn</title>
<style>{{ style }}</style></head>
<body>
<nav><a href="index.html">Game {{ game_id }}</a><a href="record.html">the record</a></nav>
<h1>Game {{ game_id }}, turn by turn</h1>
<p>Each phase as it was adjudicated: what each side ordered, the dice, and what happened, hidden moves included (the game is over).</p>
{% for turn in turns %}
<section><h2>Turn {{ turn.turn }}</h2>
{% for ph in turn.phases %}
<h3>{{ ph.title }} <small>({{ ph.name }}, adjudicated {{ ph.when }})</small></h3>
<ul>
{% for side, orders in ph.orders %}<li><b class="{{ side }}">{{ side }}</b> ordered: {% if orders %}{{ orders | join("; ") }}{% else %}nothing{% endif %}</li>
{% endfor %}
{% if ph.rolls %}<li>{{ ph.rolls }} die roll{{ "s" if ph.rolls != 1 }}, from the seed revealed: <code>{{ ph.seed }}</code></li>{% endif %}
{% for line in ph.happened %}<li>{{ line }}</li>
{% endfor %}
{% if not ph.happened %}<li>Nothing else happened.</li>{% endif %}
</ul>
{% endfor %}
</section>
{% endfor %}
{% if verdict %}<section><h2>The end</h2><p><b>{{ verdict }}</b></p></section>{% endif %}
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
<p>The entries of the hash-chained record, in order. Check it with <code>pbem verify</code> on the exported archive.
{% if left_out %}The {{ left_out }} entries of mail bookkeeping (each report queued, delivered or failed) are left out here; the exported <code>record.jsonl</code> has them.{% endif %}</p>
{% for e in entries %}
<details{% if e.kind in ("game-over",) %} open{% endif %}><summary>#{{ e.seq }} {{ e.when }} <b>{{ e.kind }}</b></summary>
<pre>{{ e.pretty }}</pre></details>
{% endfor %}
</body></html>
"""
)


# Record entries written for each mailed report: bookkeeping, not play.
NOISE = frozenset({"report-sent", "report-queued", "report-delivered", "report-failed"})


def _phase_label(phase: Phase | None) -> str:
    return "game over" if phase is None else phase_label(phase.turn, phase.name)


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
    write_docs(out / "docs", [game.ruleset])
    files = _write_reports(folder, game_id, reports, _site_rules(game.ruleset))

    rows = _rows(reports, files, phases)
    audiences = sorted({r.audience for r in reports}, key=lambda a: (a == "omniscient", a))
    entries = journal.entries(session, game_id) if over else []
    final_map = _final_map(out, game, entries) if over else None
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
            final_map=final_map,
            guide=f"docs/{pages(game.ruleset)[0]}.html",
            rows=rows,
            audiences=audiences,
            style=STYLE,
        ),
        encoding="utf-8",
    )
    if over:  # the omniscient record is disclosed at game end only
        shown = [
            {
                **e,
                "when": when(e["at"]),
                "pretty": json.dumps(e["payload"], indent=2, sort_keys=True, ensure_ascii=False),
            }
            for e in entries
            if e["kind"] not in NOISE
        ]
        (out / "record.html").write_text(
            RECORD.render(
                game_id=game_id,
                entries=shown,
                left_out=len(entries) - len(shown),
                style=STYLE,
            ),
            encoding="utf-8",
        )
        verdict = (game.outcome or {}).get("summary")
        (out / "narrative.html").write_text(
            NARRATIVE.render(
                game_id=game_id, turns=narrative(entries), verdict=verdict, style=STYLE
            ),
            encoding="utf-8",
        )
    return index


def _rows(
    reports: Sequence[Report], files: Sequence[dict[str, Any]], phases: dict[int, Phase]
) -> list[dict[str, Any]]:
    """The index's table: one row a phase, its reports by audience."""
    rows: list[dict[str, Any]] = []
    for r, f in zip(reports, files, strict=True):
        key = r.phase_id
        if not rows or rows[-1]["key"] != key:
            phase = phases.get(key) if key is not None else None
            rows.append(
                {
                    "key": key,
                    "label": _phase_label(phase),
                    "after": when(r.created_at),
                    "by_audience": {},
                }
            )
        rows[-1]["by_audience"].setdefault(r.audience, []).append(f)
    return rows


def _final_map(out: Path, game: Game, entries: list[dict[str, Any]]) -> str | None:
    """The omniscient picture of the game's last state (replayed from the record),
    written as final-map.png; None for a ruleset that draws none."""
    ruleset = rulesets.get(game.ruleset)
    states = replay(ruleset, game.id, game.scenario, game.options, entries).states
    if not states:
        return None
    adjudicated = [e for e in entries if e["kind"] == "phase-adjudicated"]
    last = adjudicated[-1]["payload"].get("events", []) if adjudicated else []
    view = ruleset.view(states[max(states)], [Event.from_json(e) for e in last], None)
    drawn = ruleset.map_picture(view) if isinstance(ruleset, MappedRuleset) else None
    png = picture(game.ruleset, view, f"Game {game.id}: the end, seen by all", drawn)
    if png is None:
        return None
    (out / "final-map.png").write_bytes(png)
    return "final-map.png"


def _site_rules(ruleset: str) -> str | None:
    """The base of the rule links in the site's report pages: its own docs folder."""
    index = RULE_INDEXES.get(ruleset)
    return f"../docs/{index}.html#" if index else None


def _write_reports(
    folder: Path, game_id: str, reports: Sequence[Report], rules: str | None
) -> list[dict[str, Any]]:
    names = [f"{r.id:04d}-{r.audience}" for r in reports]
    files: list[dict[str, Any]] = []
    for i, (r, name) in enumerate(zip(reports, names, strict=True)):
        (folder / f"{name}.txt").write_text(r.text, encoding="utf-8")
        # The HTML part as mailed; a report from before HTML parts existed gets its text.
        (folder / f"{name}.html").write_text(
            r.html or PAGE.render(**_page_args(r, name, None, None, game_id, rules)),
            encoding="utf-8",
        )
        if r.png:
            (folder / f"{name}.png").write_bytes(r.png)
        same = [j for j, x in enumerate(reports) if x.audience == r.audience]
        k = same.index(i)
        prev = f"{names[same[k - 1]]}.page.html" if k > 0 else None
        nxt = f"{names[same[k + 1]]}.page.html" if k + 1 < len(same) else None
        (folder / f"{name}.page.html").write_text(
            PAGE.render(**_page_args(r, name, prev, nxt, game_id, rules)), encoding="utf-8"
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
    r: Report, name: str, prev: str | None, nxt: str | None, game_id: str, rules: str | None
) -> dict[str, Any]:
    return {
        "subject": r.subject,
        "game_id": game_id,
        "audience": r.audience,
        "sent": when(r.created_at),
        "png": f"{name}.png" if r.png else None,
        "text": link_rules(r.text, rules),
        "prev": prev,
        "next": nxt,
        "raw_html": f"{name}.html",
        "raw_text": f"{name}.txt",
        "style": STYLE,
    }
