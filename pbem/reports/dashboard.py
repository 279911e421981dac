"""The moderator's dashboard: one page over every game, in the archive site's style.

Games (state, phase, deadline, who is late), open and ruled disputes, and mail
that failed for good. It holds no secret a moderator may not read (who is in,
never what a sealed plot says) and is built from plain values, so the reports
package stays ignorant of the game machine. ``pbem mod dashboard`` serves it
on the loopback interface, built anew for every request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.reports.site import _ENV, STYLE

# The page reloads itself: a browser left open follows the games without a click.
REFRESH_SECONDS = 30

PAGE = _ENV.from_string(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>pbem: the moderator's desk</title>
<meta http-equiv="refresh" content="{{ refresh }}">
<style>{{ style }}
.late { color: #b01e1e; font-weight: bold; } .ok { color: #2a6e2a; }
</style></head>
<body>
<header><h1>The moderator's desk</h1>
<p>As of <b id="generated">{{ generated }}</b>; this page reloads every {{ refresh }} seconds. Read-only: act with <code>pbem mod</code> or by signed mail.</p>
</header>
<main>
<section id="games"><h2>Games ({{ games | length }})</h2>
{% if games %}
<table>
<tr><th>game</th><th>ruleset, scenario</th><th>state</th><th>phase</th><th>deadline</th><th>orders</th><th>disputes open</th><th>outcome</th></tr>
{% for g in games %}
<tr id="game-{{ g.id }}"><td><b>{{ g.id }}</b></td><td>{{ g.ruleset }}, {{ g.scenario }}</td><td>{{ g.status }}</td>
<td>{% if g.turn is not none %}{{ phase_label(g.turn, g.phase) }}{% endif %}</td>
<td>{{ g.deadline_text }}</td>
<td>{% for side, state in g.sides.items() %}<span class="{{ 'late' if side in g.late else 'ok' if state == 'in' else '' }}">{{ side }}: {{ 'LATE' if side in g.late else state }}</span>{% if not loop.last %}, {% endif %}{% endfor %}</td>
<td>{{ g.open_disputes or "" }}</td><td>{{ g.outcome }}</td></tr>
{% endfor %}
</table>
{% else %}<p>No games yet (<code>pbem mod CREATE ...</code>).</p>{% endif %}
</section>
<section id="late"><h2>Late</h2>
{% set late = games | selectattr("late") | list %}
{% if late %}<ul>{% for g in late %}<li class="late">{{ g.id }}: {{ g.late | join(", ") }} owe{{ "s" if g.late | length == 1 }} orders for {{ phase_label(g.turn, g.phase) }} (deadline {{ g.deadline_text }})</li>{% endfor %}</ul>
{% else %}<p class="ok">Nobody is late.</p>{% endif %}
</section>
<section id="disputes"><h2>Disputes ({{ disputes | selectattr("status", "equalto", "open") | list | length }} open)</h2>
{% if disputes %}
<table>
<tr><th>game</th><th>#</th><th>by</th><th>phase</th><th>filed</th><th>status</th><th>dispute</th><th>ruling</th></tr>
{% for d in disputes %}
<tr><td>{{ d.game }}</td><td>{{ d.id }}</td><td class="{{ d.side }}">{{ d.side }}</td><td>{{ phase_label(d.turn, d.phase) }}</td><td>{{ d.filed }}</td>
<td class="{{ 'late' if d.status == 'open' else '' }}">{{ d.status }}</td><td><pre>{{ d.text }}</pre></td><td>{{ d.ruling }}</td></tr>
{% endfor %}
</table>
{% else %}<p>No disputes.</p>{% endif %}
</section>
<section id="failed-mail"><h2>Mail that failed for good ({{ failed | length }})</h2>
{% if failed %}
<table>
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


def render_dashboard(
    generated: str,
    games: Sequence[Mapping[str, Any]],
    disputes: Sequence[Mapping[str, Any]],
    failed: Sequence[Mapping[str, Any]],
) -> str:
    """The dashboard page; each game carries ``deadline_text`` and its ``late`` sides."""
    return PAGE.render(
        generated=generated,
        games=games,
        disputes=disputes,
        failed=failed,
        refresh=REFRESH_SECONDS,
        style=STYLE,
    )
