"""The Allies' Magic chits filed with the Air Strike Plot, and how a strike plays them
(42.4.1, 42.4.3; docs/witp-orders.md)::

    MAGIC STRIKE-SEQUENCE-2|STRIKE-SEQUENCE-1 <id> +n|-n
        42.4.1: a DRM of +/-2 (+/-1) on strike <id>'s Strike Sequence Table roll (12.1)
    MAGIC PLANES-ON-DECK <id> WAVE <k> <chit> <chit>
        42.4.3, US only: wave <k> of strike <id> rolls 2D6 as it attacks a Japanese
        carrier; the difference of the dice is a column shift right on the Naval CRT;
        the chits: any two Strike Sequence chits, (2) or (1)

A chit is played (shown openly and back in the cup, 42.4.2; an SI +1 counter owed,
42.5.2) only when its roll is made (ruling R140): a strike not sequenced (12.0), or a nominated
wave that attacks no Japanese carrier, leaves it held. The holdings are read and
spent through intelligence.py's accessors only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp import intelligence
from pbem.rulesets.witp.air.ships import CARRIER_TYPES
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.air.strikeplot import AirPlot, Context
from pbem.rulesets.witp.air.strikes import AirStrike, PlanesOnDeck, SequenceChit
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.taskforces import Ship
from pbem.rulesets.witp.work import Work

SEQUENCE_CHITS = {"strike-sequence-2": 2, "strike-sequence-1": 1}  # 42.4.1: the DRM
PLANES_ON_DECK = "planes-on-deck"
SYNTAX = (
    "MAGIC STRIKE-SEQUENCE-2|STRIKE-SEQUENCE-1 <id> +n|-n, or "
    "MAGIC PLANES-ON-DECK <id> WAVE <k> <chit> <chit>"
)


class StrikeSequenceChit(Fact, kind="strike-sequence-chit"):
    """42.4.1: the Strike Sequence chit played on the 12.1 roll of a strike at ``tf``
    and the DRM it gives (shown openly, 42.4.2; told to both)."""

    tf: str
    chit: str
    drm: int


class PlanesOnDeckRoll(Fact, kind="planes-on-deck"):
    """42.4.3: the wave's 2D6 as it attacks the Japanese carrier ``ship``, and the
    column shift right on the Naval CRT, the difference of the dice (told to both)."""

    tf: str
    wave: int
    ship: str
    dice: tuple[int, int]
    shift: int


class MagicNotPlayed(Fact, kind="magic-not-played"):
    """42.4: Magic chits filed with a strike and not played (they stay held), and why
    (told to the Allies)."""

    chits: tuple[str, ...]
    why: str


# -- the plot line (judged like the Air Strike Plot's others, plot.JUDGES) ----------


def judge(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    """A MAGIC line of the Air Strike Plot: the chit filed with strike ``<id>``."""
    what = words[0].lower() if words else ""
    if what == PLANES_ON_DECK:
        return _planes_on_deck(ctx, plot, words[1:])
    if what not in SEQUENCE_CHITS:
        raise OrderSyntaxError(
            f"{SYNTAX} (an air plot plays no other Magic chit)" if words else SYNTAX,
            rule="42.4.1",
        )
    if ctx.side != ALLIED:
        raise IllegalOrderError("only the Allies hold Magic chits", rule="42.4")
    if len(words) != 3 or words[2][:1] not in "+-" or not words[2][1:].isdigit():
        raise OrderSyntaxError(f"MAGIC {words[0].upper()} <id> +n|-n", rule="42.4.1")
    strike = _strike(plot, words[1], "42.4.1")
    drm, most = int(words[2]), SEQUENCE_CHITS[what]
    if abs(drm) != most:
        raise IllegalOrderError(f"{what} gives a DRM of +{most} or -{most}", rule="42.4.1")
    if strike.sequence is not None:
        raise IllegalOrderError(f"strike {strike.id}'s roll has a chit already", rule="42.4.1")
    _hold(ctx, plot, [what])
    plot.air_strikes[strike.id] = replace(strike, sequence=SequenceChit(what, drm))
    return f"MAGIC {what.upper()} {strike.id} {drm:+d}"


def _planes_on_deck(ctx: Context, plot: AirPlot, words: Sequence[str]) -> str:
    if ctx.side != ALLIED:
        raise IllegalOrderError("only the US player claims Planes on Deck", rule="42.4.3")
    chits = [w.lower() for w in words[3:]]
    if len(words) != 5 or words[1].upper() != "WAVE" or not words[2].isdigit():
        raise OrderSyntaxError(
            "MAGIC PLANES-ON-DECK <id> WAVE <k> and two Strike Sequence chits", rule="42.4.3"
        )
    if any(c not in SEQUENCE_CHITS for c in chits):
        raise OrderSyntaxError(
            "Planes on Deck plays two Strike Sequence chits, each STRIKE-SEQUENCE-2 or "
            "STRIKE-SEQUENCE-1",
            rule="42.4.3",
        )
    strike = _strike(plot, words[0], "42.4.3")
    wave, most = int(words[2]), _most_waves(strike)
    if not 1 <= wave <= most:
        raise IllegalOrderError(
            f"strike {strike.id} flies wave 1 to {most} at most (one a launching base by day,"
            " one an AP at night: 7.5, R92)",
            rule="42.4.3",
        )
    if strike.planes_on_deck is not None:
        raise IllegalOrderError(f"strike {strike.id} has Planes on Deck already", rule="42.4.3")
    _hold(ctx, plot, chits)
    plot.air_strikes[strike.id] = replace(strike, planes_on_deck=PlanesOnDeck(wave, tuple(chits)))
    return f"MAGIC PLANES-ON-DECK {strike.id} WAVE {wave} {' '.join(chits).upper()}"


def _strike(plot: AirPlot, sid: str, rule: str) -> AirStrike:
    if sid not in plot.air_strikes:
        raise IllegalOrderError(f"no STRIKE {sid} above this line", rule=rule)
    return plot.air_strikes[sid]


def _most_waves(strike: AirStrike) -> int:
    """7.5 and the doctrine (R92): one wave a launching hex by day (at most one a
    base), one an AP at night (14.2.2)."""
    if strike.night:
        return sum(e.n for p in strike.parts for e in p.elements)
    return len(strike.parts)


def filed_chits(strikes: Iterable[AirStrike]) -> Counter[str]:
    """The Magic chits the plot's strikes are filed to play."""
    out: Counter[str] = Counter()
    for s in strikes:
        if s.sequence is not None:
            out[s.sequence.chit] += 1
        if s.planes_on_deck is not None:
            out.update(s.planes_on_deck.chits)
    return out


def _hold(ctx: Context, plot: AirPlot, chits: Sequence[str]) -> None:
    """42.4: the chits must be held, beyond those the lines above already play."""
    held = Counter(intelligence.holdings(ctx.knowledge).chits)
    want = filed_chits(plot.air_strikes.values()) + Counter(chits)
    short = sorted(c for c in set(chits) if want[c] > held[c])
    if short:
        raise IllegalOrderError(f"you hold no (more) Magic chit {', '.join(short)}", rule="42.4")


# -- in play ------------------------------------------------------------------------


def _short(work: Work, chits: Sequence[str]) -> list[str]:
    held = Counter(intelligence.allied_holdings(work).chits)
    return sorted(c for c, n in Counter(chits).items() if held[c] < n)


def sequence_drm(work: Work, strike: AirStrike, time: str) -> tuple[int, list[Event]]:
    """42.4.1: the DRM of the Strike Sequence chit filed with ``strike`` on its 12.1
    roll, the chit played (42.4.2); none filed, or no longer held: 0."""
    filed = strike.sequence
    if filed is None or strike.side != ALLIED:
        return 0, []
    if _short(work, [filed.chit]):
        fact = MagicNotPlayed((filed.chit,), "the chit is no longer held")
        return 0, [work.disclose(fact, [ALLIED], time, "42.4")]
    played = intelligence.play_magic(work, filed.chit, time)
    chit = StrikeSequenceChit(strike.target.tf, filed.chit, filed.drm)
    both = [strike.side, strike.target.owner]
    return filed.drm, [played, work.disclose(chit, both, time, "42.4.1")]


def planes_on_deck(r: Resolution, wave: int, ship: Ship) -> tuple[int, list[Event]]:
    """42.4.3: the nominated wave's attack on a Japanese carrier: the two chits played
    (42.4.2), 2D6 rolled openly, the difference the column shift right on the Naval
    CRT; any other wave or ship: 0."""
    pod = r.strike.plot.planes_on_deck
    if pod is None or pod.wave != wave or r.strike.side != ALLIED:
        return 0, []
    if r.strike.owner != JAPANESE or ship.type not in CARRIER_TYPES:
        return 0, []
    time = r.context.time
    if _short(r.work, pod.chits):
        gone = MagicNotPlayed(pod.chits, "the chits are no longer held")
        return 0, [r.tell(gone, [ALLIED], "42.4")]
    told = [intelligence.play_magic(r.work, c, time) for c in pod.chits]
    dice = r.context.dice
    rolled = (dice.d6(f"wave {wave} planes on deck"), dice.d6(f"wave {wave} planes on deck"))
    shift = abs(rolled[0] - rolled[1])
    fact = PlanesOnDeckRoll(r.strike.tf, wave, str(ship.name), rolled, shift)
    return shift, [*told, r.tell_both(fact, "42.4.3")]


def planes_on_deck_unplayed(r: Resolution, played: Sequence[Event]) -> list[Event]:
    """42.4.3: the nominated wave attacked no Japanese carrier: the chits stay held,
    the Allies told."""
    pod = r.strike.plot.planes_on_deck
    if pod is None or r.strike.side != ALLIED:
        return []
    if any(e.kind in (PlanesOnDeckRoll.KIND, MagicNotPlayed.KIND) for e in played):
        return []
    why = f"wave {pod.wave} attacked no Japanese carrier; they stay held"
    return [r.tell(MagicNotPlayed(pod.chits, why), [ALLIED], "42.4.3")]
