"""The moderator's dashboard: a worklist over every game, and a page per game, in
the archive site's style.

The worklist puts first what waits for the moderator (:func:`urgency`): games
with disputes waiting, then late players, failed mail, held games, then the
soonest deadlines; finished games last. Each game links to its own page (seats,
the deadline in the moderator's zone and in UTC, the last reports, disputes).
The pages hold no secret a moderator may not read (who is in, never what a
sealed plot says) and are built from plain values, so the reports package stays
ignorant of the game machine. ``pbem mod dashboard`` serves them on the loopback
interface, built anew for every request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pbem.reports.site import _ENV, STYLE

# The pages reload themselves: a browser left open follows the games without a click.
REFRESH_SECONDS = 30

# A held game waits for the moderator: its state's class (see state_of) is this.
HELD = "held"
# The states of a game that waits for the moderator, as the listings word them.
STOPPED = ("paused", "held", "rules-held", "waiting-for-ruling")


def state_of(game: Mapping[str, Any]) -> tuple[str, str]:
    """A game's state as the dashboard words it, and its class (the colour; ``held``
    for a game that waits for the moderator). The one place the wording lives."""
    status = str(game["status"])
    if status == "created":
        return "not started", "created"
    # Each stop by its name alone ("held", not why: the game's page and LIST say why),
    # so a worklist row stays one line.
    short = ", ".join(part.split(" (", 1)[0] for part in status.split(", "))
    if status.startswith(STOPPED):  # paused, held, rules-held, waiting-for-ruling
        return short, HELD
    return short, short.split(" ", 1)[0]


def marks(game: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What a game needs of the moderator, most urgent first: (text, class)."""
    out: list[tuple[str, str]] = []
    if game["open_disputes"]:
        out.append((f"{game['open_disputes']} dispute(s) waiting", "dispute"))
    if game["late"]:
        out.append((f"late: {', '.join(game['late'])}", "late"))
    if game["failed"]:
        out.append((f"{game['failed']} mail(s) failed", "failed"))
    wording, kind = state_of(game)
    if kind == HELD and not wording.startswith("waiting-for-ruling"):  # disputes: above
        out.append((wording.split(",", 1)[0], HELD))
    return out


def urgency(game: Mapping[str, Any]) -> tuple[object, ...]:
    """The worklist's order: disputes waiting, late players, failed mail, held games
    first; then the soonest deadline; games not started, then finished ones, last.

    The requirement lists "disputes waiting, late players, deadlines soonest, failed
    mail, held games". Sorted in that order, the deadline would decide between any
    two games (no two deadlines are the same instant), so failed mail and held games
    would never come first: a held or paused game has no deadline running at all
    and would sink below every running game. Yet both wait on the moderator alone:
    a held game moves only when he acts (ADJUDICATE, RESUME), and a player whose
    report failed cannot plot by his deadline however soon it is. So whatever
    waits on the moderator comes first, each kind in the listed order, and the
    soonest deadline orders the games that only wait on their players."""
    deadline: datetime = game["deadline"] or datetime.max.replace(tzinfo=UTC)
    return (
        not game["open_disputes"],
        not game["late"],
        not game["failed"],
        state_of(game)[1] != HELD,
        {"over": 2, "created": 1}.get(game["status"], 0),
        deadline,
        game["id"],
    )


WIDE = """
body { max-width: none; margin: .5em 1em; font-size: 14px; }
h1 { margin: .2em 0; } h2 { margin: .8em 0 .3em; }
table { width: 100%; table-layout: fixed; }
td, th { overflow-wrap: anywhere; vertical-align: top; padding: .15em .4em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.mark { display: inline-block; padding: 0 .4em; margin: 0 .3em .1em 0; border-radius: .3em;
        font-weight: bold; font-size: .9em; }
.mark.dispute { background: #f6d3d3; color: #8a1010; } .mark.late { background: #f8e0c0; color: #8a4a00; }
.mark.failed { background: #e6d6f2; color: #5a1e8a; } .mark.held { background: #d6e4f2; color: #1e3c6e; }
.state { font-weight: bold; } .state.over, .state.created { color: #777; } .state.held { color: #1e3c6e; }
.late { color: #b01e1e; font-weight: bold; } .ok { color: #2a6e2a; }
tr.quiet td { color: #666; } .utc { color: #666; font-size: .9em; }
header p { margin: .3em 0; } .summary span { margin-right: 1.2em; }
"""

_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<meta http-equiv="refresh" content="{{ refresh }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{{ style }}{{ wide }}</style></head>
<body>
"""

_DISPUTES = """{% macro disputes_table(disputes, with_game) %}
<table>
<colgroup>{% if with_game %}<col style="width:7%">{% endif %}<col style="width:4%"><col style="width:8%"><col style="width:11%"><col style="width:13%"><col style="width:8%"><col><col style="width:22%"></colgroup>
<tr>{% if with_game %}<th>game</th>{% endif %}<th>#</th><th>by</th><th>phase</th><th>filed</th><th>status</th><th>dispute</th><th>ruling</th></tr>
{% for d in disputes %}
<tr>{% if with_game %}<td><a href="game/{{ d.game | urlencode }}">{{ d.game }}</a></td>{% endif %}<td>{{ d.id }}</td><td class="{{ d.side }}">{{ d.side }}</td><td>{{ phase_label(d.turn, d.phase) }}</td><td>{{ d.filed }}</td>
<td class="{{ 'late' if d.status == 'open' else '' }}">{{ d.status }}</td><td><pre>{{ d.text }}</pre></td><td>{{ d.ruling }}</td></tr>
{% endfor %}
</table>
{% endmacro %}"""

WORKLIST = _ENV.from_string(
    _DISPUTES
    + _HEAD
    + """<header><h1>The moderator's desk</h1>
<p class="summary"><span><b>{{ games | length }}</b> games</span><span class="late"><b>{{ waiting_disputes }}</b> dispute(s) waiting</span><span class="late"><b>{{ late_games }}</b> game(s) with late players</span><span><b>{{ failed | length }}</b> mail(s) failed</span><span><b>{{ held_games }}</b> held</span></p>
<p>As of <b id="generated">{{ generated }}</b>; deadlines in <b>{{ zone }}</b> and UTC. Reloads every {{ refresh }} seconds. Read-only: act with <code>pbem mod</code> or by signed mail.</p>
</header>
<main>
<section id="games"><h2>Games, most urgent first ({{ games | length }})</h2>
{% if games %}
<table>
<colgroup><col style="width:3.5%"><col style="width:8%"><col style="width:17%"><col style="width:8%"><col style="width:8%"><col style="width:21%"><col style="width:20%"><col></colgroup>
<tr><th>#</th><th>game</th><th>needs</th><th>state</th><th>phase</th><th>deadline</th><th>orders</th><th>ruleset, scenario; outcome</th></tr>
{% for g in games %}
{% set state = state_of(g) %}
<tr id="game-{{ g.id }}"{% if not marks(g) %} class="quiet"{% endif %}><td>{{ loop.index }}</td><td><a href="game/{{ g.id | urlencode }}"><b>{{ g.id }}</b></a></td>
<td>{% for text, kind in marks(g) %}<span class="mark {{ kind }}">{{ text }}</span>{% endfor %}</td>
<td><span class="state {{ state[1] }}">{{ state[0] }}</span></td>
<td>{% if g.turn is not none %}{{ phase_label(g.turn, g.phase) }}{% endif %}</td>
<td>{{ g.deadline_short }}{% if g.deadline_utc %} <span class="utc">{{ g.deadline_utc[5:] }}</span>{% endif %}</td>
<td>{% for side, s in g.sides.items() %}<span class="{{ 'late' if side in g.late else 'ok' if s == 'in' else '' }}">{{ side }}: {{ 'LATE' if side in g.late else s }}</span>{% if not loop.last %}, {% endif %}{% endfor %}</td>
<td>{{ g.ruleset }}, {{ g.scenario }}{% if g.outcome %}; {{ g.outcome }}{% endif %}</td></tr>
{% endfor %}
</table>
{% else %}<p>No games yet (<code>pbem mod CREATE ...</code>).</p>{% endif %}
</section>
<section id="late"><h2>Late</h2>
{% set late = games | selectattr("late") | list %}
{% if late %}<ul>{% for g in late %}<li class="late">{{ g.id }}: {{ g.late | join(", ") }} owe{{ "s" if g.late | length == 1 }} orders for {{ phase_label(g.turn, g.phase) }} (deadline {{ g.deadline_local }})</li>{% endfor %}</ul>
{% else %}<p class="ok">Nobody is late.</p>{% endif %}
</section>
<section id="disputes"><h2>Disputes ({{ waiting_disputes }} open)</h2>
{% if disputes %}{{ disputes_table(disputes, true) }}{% else %}<p>No disputes.</p>{% endif %}
</section>
<section id="failed-mail"><h2>Mail that failed for good ({{ failed | length }})</h2>
{% if failed %}
<table>
<colgroup><col style="width:8%"><col style="width:10%"><col style="width:10%"><col style="width:20%"><col style="width:8%"><col></colgroup>
<tr><th>game</th><th>mail (RESEND-MAIL id)</th><th>kind</th><th>to</th><th>attempts</th><th>last error</th></tr>
{% for m in failed %}
<tr><td>{{ m.game }}</td><td>{{ m.id }}</td><td>{{ m.kind }}</td><td>{{ m.to }}</td><td>{{ m.attempts }}</td><td>{{ m.error }}</td></tr>
{% endfor %}
</table>
{% else %}<p class="ok">Every mail went out.</p>{% endif %}
</section>
</main>
</body></html>
"""
)

GAME = _ENV.from_string(
    _DISPUTES
    + _HEAD
    + """{% set state = state_of(g) %}
<header><nav><a href="../">&larr; every game</a></nav>
<h1>Game {{ g.id }}</h1>
<p>{{ g.ruleset }}, {{ g.scenario }}: <span class="state {{ state[1] }}">{{ state[0] }}</span>{% if g.turn is not none %}, {{ phase_label(g.turn, g.phase) }}{% endif %}{% if g.outcome %}; {{ g.outcome }}{% endif %}.
{% for text, kind in marks(g) %}<span class="mark {{ kind }}">{{ text }}</span>{% endfor %}</p>
<p id="deadline">Deadline: <b>{{ g.deadline_local }}</b>{% if g.deadline_utc %} <span class="utc">({{ g.deadline_utc }})</span>{% endif %}</p>
<p>As of <b id="generated">{{ generated }}</b>. Read-only.</p>
</header>
<main>
<section id="seats"><h2>Seats ({{ seats | length }})</h2>
{% if seats %}
<table>
<colgroup><col style="width:18%"><col style="width:30%"><col style="width:14%"><col style="width:12%"><col></colgroup>
<tr><th>seat</th><th>address</th><th>time zone</th><th>orders</th><th>keys</th></tr>
{% for s in seats %}
<tr><td class="{{ s.side or '' }}">{{ s.who }}</td><td>{{ s.email }}{% if not s.active %} (retired){% endif %}</td><td>{{ s.timezone }}</td>
<td>{% if s.orders %}<span class="{{ 'late' if s.orders == 'LATE' else 'ok' if s.orders == 'in' else '' }}">{{ s.orders }}</span>{% endif %}</td><td>{{ s["keys"] }}</td></tr>
{% endfor %}
</table>
{% else %}<p>No seats yet (<code>ASSIGN</code>, <code>OBSERVE</code>).</p>{% endif %}
</section>
<section id="disputes"><h2>Disputes ({{ disputes | selectattr("status", "equalto", "open") | list | length }} open)</h2>
{% if disputes %}{{ disputes_table(disputes, false) }}{% else %}<p>No disputes.</p>{% endif %}
</section>
<section id="reports"><h2>The last reports ({{ reports | length }})</h2>
{% if reports %}
{% for r in reports %}
<details><summary>{{ r.sent }}: {{ phase_label(r.turn, r.phase) }}, for <span class="{{ r.audience }}">{{ r.audience }}</span>: {{ r.subject }}</summary><pre>{{ r.text }}</pre></details>
{% endfor %}
{% else %}<p>No reports yet.</p>{% endif %}
</section>
<section id="failed-mail"><h2>Mail that failed for good ({{ failed | length }})</h2>
{% if failed %}<ul>{% for m in failed %}<li>{{ m.kind }} to {{ m.to }} (RESEND-MAIL {{ m.id }}, {{ m.attempts }} attempts): {{ m.error }}</li>{% endfor %}</ul>
{% else %}<p class="ok">Every mail went out.</p>{% endif %}
</section>
</main>
</body></html>
"""
)


def render_dashboard(
    generated: str,
    zone: str,
    games: Sequence[Mapping[str, Any]],
    disputes: Sequence[Mapping[str, Any]],
    failed: Sequence[Mapping[str, Any]],
) -> str:
    """The worklist. Each game carries its GameLine's fields, ``deadline_local`` and
    ``deadline_utc`` (text) and ``failed`` (how many of its mails failed for good)."""
    ordered = sorted(games, key=urgency)
    return WORKLIST.render(
        title="pbem: the moderator's desk",
        generated=generated,
        zone=zone,
        games=ordered,
        waiting_disputes=sum(d["status"] == "open" for d in disputes),
        late_games=sum(bool(g["late"]) for g in games),
        held_games=sum(state_of(g)[1] == HELD for g in games),
        disputes=disputes,
        failed=failed,
        **_common(),
    )


def render_game(
    generated: str,
    game: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    disputes: Sequence[Mapping[str, Any]],
    reports: Sequence[Mapping[str, Any]],
    failed: Sequence[Mapping[str, Any]],
) -> str:
    """One game's page: its seats, disputes, last reports (newest first), failed mail."""
    return GAME.render(
        title=f"pbem: game {game['id']}",
        generated=generated,
        g=game,
        seats=seats,
        disputes=disputes,
        reports=reports,
        failed=failed,
        **_common(),
    )


def _common() -> dict[str, Any]:
    return {
        "refresh": REFRESH_SECONDS,
        "style": STYLE,
        "wide": WIDE,
        "state_of": state_of,
        "marks": marks,
    }
