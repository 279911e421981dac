"""42 Strategic intelligence in a Naval Phase's Plot Segment: the Japanese-first
plotting gate, Sigint samples of the Japanese plot cards (the dummy plot card of
42.9 among them), ruses, Magic chits and the JN-25 counters the dummy card needs.

The gate (42.3.1, ruling R70): the Japanese plot closes first in every naval Plot
Segment while the Allies may hold Sigint as far as the Japanese can know (the SI
levels are the Allies' until the cycle ends, 42.1.3): the round splits in two
(clock.Round.japanese_half). It reads public knowledge only, so the round a side
is mailed never tells it whether the Allies hold or call Sigint.

Sigint (42.3.1): after the Japanese cards close, a secret 1D6; each pip shows the
Allies 10% of the cards, rounded up, drawn at random; the Japanese learn only
that "a Sigint event occurred", which a ruse (42.3.5) makes look the same. Once a
Naval Phase (42.3.2). Uses, ruses and the Magic draw come with the cycle (42.2.2).

Magic (42.4.1): Reveal 1/2 TF shows the Allies plot cards by the SI differential
(nominees told to the Japanese at +1 and +2, never which card was read); Reveal
Dummy TF removes a Japanese dummy of their choice, or burns an unused sortie.

A plot card as another side sees it (``card_face``) has the same shape whether it
is a TF's real card or the 42.9 dummy card: TF, speed class, composition, lines.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp import draws, dummies, located
from pbem.rulesets.witp import taskforces as tfs
from pbem.rulesets.witp.clock import Slot
from pbem.rulesets.witp.datapack import Pack, PackItem
from pbem.rulesets.witp.intelrecords import NO_JN25 as NO_JN25
from pbem.rulesets.witp.intelrecords import DummyPlotCard as DummyPlotCard
from pbem.rulesets.witp.intelrecords import Holdings as Holdings
from pbem.rulesets.witp.intelrecords import Jn25 as Jn25
from pbem.rulesets.witp.intelrecords import PlotCard as PlotCard
from pbem.rulesets.witp.intelrecords import card_face as card_face
from pbem.rulesets.witp.intelrecords import count as _count
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.markers import LocatedChit
from pbem.rulesets.witp.moderatorrecords import RevealLog, SigintLog
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.work import Work

MAGIC_TABLE = "tables/magic-cup"
REVEAL_TF = "tables/magic-reveal-tf"
SI_LEVELS = "scenario/si-levels"
DUMMY_CARDS = "tables/dummy-plot-cards"
GATE = "rulings/sigint-plot-gate"  # "japanese-first" (R70) or "off" (no Sigint: a house rule)
SI_EFFECTS = "tables/si-difference-effects"
JN25 = "tables/jn25"
DRAW_CHITS = {"draw-1d6": 1, "draw-2d6": 2}  # 42.4.1: roll, draw that many more
INTEL = "intelligence"  # private[side][INTEL]: the side's own intelligence holdings


def gate_on(pack: Mapping[str, PackItem]) -> bool:
    """The game plays Sigint (``rulings.sigint-plot-gate`` is not "off")."""
    item = pack.get(GATE)
    return item is None or item.value != "off"


def public_si_difference(pack: Mapping[str, PackItem]) -> int | None:
    """The SI difference as both sides know it: the scenario's levels, which its pack
    gives openly; None where only the Allies know it (42.1.3)."""
    item = pack.get(SI_LEVELS)
    if item is None:
        return None
    return int(item.value["allied"]) - int(item.value["japanese"])


def japanese_plot_first(pack: Mapping[str, PackItem]) -> bool:
    """R70 (42.3.1, 42.2.1): the Japanese plot closes first while the Allies may hold
    Sigint as far as the Japanese can know (the public ``pack``'s items): public
    knowledge only, never the Allies' uses left or their call (either would tell the
    Japanese before his cards close)."""
    diff = public_si_difference(pack)
    return gate_on(pack) and (diff is None or diff > 0)


def holdings(parts: tfs.Parts) -> Holdings:
    """The Allies' holdings (in the round's Work, or as a side knows them: none, every
    key absent, in the Japanese's knowledge)."""
    return parts.part(ALLIED).holdings()


def allied_holdings(work: Work) -> Holdings:
    """The Allies' holdings in the round's work area."""
    return holdings(work)


def put_holdings(work: Work, held: Holdings) -> None:
    work.put_part(ALLIED, work.part(ALLIED).put(intelligence=held))


def jn25(parts: tfs.Parts) -> Jn25 | None:
    """The Japanese JN-25 counters (in the round's Work, or as the Japanese know
    them); None before 42.8."""
    rec = parts.part(JAPANESE).jn25
    return None if rec is ABSENT else rec


def _put_jn25(work: Work, jn: Jn25) -> None:
    work.put_part(JAPANESE, work.part(JAPANESE).put(jn25=jn))


def filed_dummy_card(parts: tfs.Parts) -> DummyPlotCard | None:
    """The 42.9 dummy plot card the Japanese filed, if any."""
    rec = parts.part(JAPANESE).dummy_plot_card
    return None if rec is ABSENT else rec


def _put_dummy_card(work: Work, filed: DummyPlotCard) -> None:
    work.put_part(JAPANESE, work.part(JAPANESE).put(dummy_plot_card=filed))


def _log_sigint(work: Work, entry: SigintLog) -> None:
    """Append ``entry`` to the moderator's Sigint log (no side sees it)."""
    mod = work.moderator()
    logged = () if mod.sigint is ABSENT else mod.sigint
    work.put_moderator(mod.put(sigint=(*logged, entry)))


def _log_reveal(work: Work, entry: RevealLog) -> None:
    """Append ``entry`` to the moderator's Magic Reveal log (no side sees it)."""
    mod = work.moderator()
    logged = () if mod.magic_reveals is ABSENT else mod.magic_reveals
    work.put_moderator(mod.put(magic_reveals=(*logged, entry)))


def magic_cup(work: Work) -> dict[str, int]:
    """The Magic cup (the moderator's, 42.4): chits left by name; the pack's full cup
    before the first draw."""
    cup = work.moderator().magic_cup
    return dict(cup if cup is not ABSENT else _table(work, MAGIC_TABLE)["chits"])


def _put_cup(work: Work, cup: Mapping[str, int]) -> None:
    work.put_moderator(work.moderator().put(magic_cup=dict(cup)))


def _table(work: Work, key: str) -> Any:
    """A chart of the pack."""
    return work.pack[key].value


def sigint_uses(work: Work) -> int:
    return _count(allied_holdings(work).sigint_left)


# -- the facts 42 discloses ---------------------------------------------------------


class SigintEvent(Fact, kind="sigint-event"):
    """42.3.1: the Japanese learn only that "a Sigint event occurred" (a ruse too)."""


class SigintRuse(Fact, kind="sigint-ruse"):
    """42.3.5: the Allies' ruse was played (told to them; the Japanese see a Sigint event)."""


class SigintSample(Fact, kind="sigint"):
    """42.3.1: the Allies' secret 1D6 and the cards it showed them, of all the cards."""

    pips: int
    of: int
    cards: tuple[PlotCard, ...]


class SiCapabilities(Fact, kind="si-capabilities"):
    """42.2.2: the cycle's Sigint uses, ruses (42.3.5) and Magic draws, told to the Allies."""

    cycle: int
    si_difference: int
    sigint: int
    ruses: int
    magic_draws: int


class MagicDrawn(Fact, kind="magic-drawn"):
    """42.4: the Magic chits the Allies drew, and each Draw chit with its extra draws."""

    chits: tuple[str, ...]
    draw_chits: tuple[tuple[str, int], ...]


class MagicPlayed(Fact, kind="magic-played"):
    """42.4.2: a Magic chit shown as it is played."""

    chit: str


class MagicCardBacks(Fact, kind="magic-card-backs"):
    """42.4.1 at SI +3: the numbered backs of every Japanese card this phase."""

    tfs: tuple[str, ...]


class MagicRevealNamed(Fact, kind="magic-reveal-named"):
    """42.4.1 at SI +1 and +2: the TFs the Allies named (the Japanese hand those cards over)."""

    tfs: tuple[str, ...]


class MagicRevealTf(Fact, kind="magic-reveal-tf"):
    """42.4.1: the cards Reveal 1/2 TF read, for the Allies' eyes only."""

    cards: tuple[PlotCard, ...]


class DummySortieBurnt(Fact, kind="dummy-sortie-burnt"):
    """42.4.1 Reveal Dummy TF with no dummy at sea: an unused dummy sortie burnt (0 or 1)."""

    burnt: int


class Jn25Counters(Fact, kind="jn25-counters"):
    """42.8: the JN-25 Code Change counters the Japanese hold at the outset."""

    held: int


class Jn25Committed(Fact, kind="jn25-committed"):
    """42.9, R72: a dummy plot card committed a JN-25 counter to this cycle's end."""

    cycle: int


class Jn25Played(Fact, kind="jn25-played"):
    """42.8, R72: a committed JN-25 counter played openly onto the next cycle."""

    arrives_cycle: int


def plot_cards(work: Work, slot: Slot) -> list[PlotCard]:
    """The Japanese cards of this Naval Phase: one for each TF with a plot (16.3), and
    the dummy plot card of 42.9 if filed for this phase; in TF-number order, so the
    Allies cannot tell the dummy card by its place."""
    written = work.part(JAPANESE).card_lines
    cards = [
        card_face(
            tf,
            t.mission.speed or t.speed_class,
            ["dummy"] if t.dummy else list(t.ships),
            () if written is ABSENT else written.get(tf, ()),
        )
        for tf, t in tfs.task_forces(work, JAPANESE).items()
        if t.mission
    ]
    fake = filed_dummy_card(work)
    if fake and fake.time == slot.time:
        cards.append(fake.card)
    return sorted(cards, key=lambda c: (len(c.tf), c.tf))


def dummy_card_problem(parts: tfs.Parts, tf: str, slot: Slot) -> str | None:
    """Why the Japanese may not file a 42.9 dummy plot card as ``tf`` now (None: he
    may). R72: filing one commits a JN-25 Code Change counter he holds to the
    Strategic Game-Turn that ends this cycle, so this Game-Turn is among the 4 before
    its play; one card a Game-Turn (re-filed, the same TF, in any of its Naval
    Phases); a TF number of his own TFs would be a second card for that TF (16.3)."""
    jn = jn25(parts) or NO_JN25
    committed = jn.committed_cycle
    if committed != slot.cycle and (committed is not None or jn.held < 1):
        return "a dummy plot card needs a JN-25 Code Change counter to play at this cycle's end"
    if tf in tfs.task_forces(parts, JAPANESE):
        return f"{tf} is one of your TFs: its card is its own plot (16.3)"
    held = filed_dummy_card(parts)
    if held and held.turn == slot.turn and held.card.tf != tf:
        return f"one dummy plot card a Game-Turn: this Game-Turn's is {held.card.tf}"
    return None


def file_dummy_plot_card(work: Work, card: PlotCard, slot: Slot) -> list[Event]:
    """42.9: the card (a ``card_face``) goes into this phase's deck; the JN-25 play it
    commits is told to the Japanese (R72)."""
    problem = dummy_card_problem(work, card.tf, slot)
    if problem:
        raise IllegalOrderError(problem, rule="42.9")
    _put_dummy_card(work, DummyPlotCard(card, slot.turn, slot.time))
    jn = jn25(work) or NO_JN25
    _put_jn25(work, jn)
    if jn.committed_cycle == slot.cycle:
        return []
    _put_jn25(work, jn.put(committed_cycle=slot.cycle))
    return [work.disclose(Jn25Committed(slot.cycle), [JAPANESE], slot.time, "42.9")]


def sigint(work: Work, slot: Slot, secret: Dice, *, ruse: bool = False) -> list[Event]:
    """42.3.1 (or a 42.3.5 ruse): the Allies see a random 10% per pip of the cards."""
    held = allied_holdings(work)
    if held.sigint_phase == slot.time:
        raise IllegalOrderError("Sigint may be used once a Naval Phase", rule="42.3.2")
    key = "ruses_left" if ruse else "sigint_left"
    left = _count(held.ruses_left if ruse else held.sigint_left)
    if left < 1:
        raise IllegalOrderError(
            f"no {'ruse' if ruse else 'Sigint use'} is left this cycle",
            rule="42.3.5" if ruse else "42.2.2",
        )
    put_holdings(work, held.put(**{key: left - 1}, sigint_phase=slot.time))
    events = [work.disclose(SigintEvent(), [JAPANESE], slot.time, "42.3.1")]
    if ruse:
        return [*events, work.disclose(SigintRuse(), [ALLIED], slot.time, "42.3.5")]
    pips = secret.d6("sigint")
    cards = plot_cards(work, slot)
    n = min(len(cards), math.ceil(len(cards) * pips / 10))
    pool = list(range(len(cards)))
    seen = sorted(pool.pop(draws.below(secret, len(pool), "sigint card")) for _ in range(n))
    fact = SigintSample(pips, len(cards), tuple(cards[i] for i in seen))
    _log_sigint(work, SigintLog(slot.time, tuple(seen)))
    return [*events, work.disclose(fact, [ALLIED], slot.time, "42.3.1")]


def draw_magic(work: Work, count: int, secret: Dice, slot: Slot) -> Event:
    """42.4: the Allies draw ``count`` Magic chits (kept secret until played, 42.4.2).
    A Draw chit rolls 1D6 (2D6) for as many more and goes back to the cup once the
    cycle's chits are drawn (42.4.1, R73)."""
    cup = magic_cup(work)
    drawn: list[str] = []
    extra: list[tuple[str, int]] = []
    todo = count
    while todo > 0:
        pool = [c for c, n in sorted(cup.items()) for _ in range(n)]
        if not pool:
            break
        chit = pool[draws.below(secret, len(pool), "magic chit")]
        cup[chit] -= 1
        todo -= 1
        if chit in DRAW_CHITS:
            more = sum(secret.d6(f"magic {chit}") for _ in range(DRAW_CHITS[chit]))
            extra.append((chit, more))
            todo += more
        else:
            drawn.append(chit)
    for chit, _ in extra:
        cup[chit] += 1
    _put_cup(work, cup)
    held = allied_holdings(work)
    put_holdings(work, held.put(magic=(*held.chits, *drawn)))
    return work.disclose(MagicDrawn(tuple(drawn), tuple(extra)), [ALLIED], slot.time, "42.4")


def play_magic(work: Work, chit: str, slot: Slot | str) -> Event:
    """42.4.2: a Magic chit is shown when played, all but Report False (``slot``: when,
    or its game time: a chit played in an air strike, 42.4.3)."""
    held = allied_holdings(work)
    if chit not in held.chits:
        raise IllegalOrderError(f"you hold no Magic chit {chit!r}", rule="42.4")
    chits = list(held.chits)
    chits.remove(chit)
    put_holdings(work, held.put(magic=tuple(chits)))
    cup = magic_cup(work)
    _put_cup(work, {**cup, chit: cup[chit] + 1})
    # 42.5.2: one SI +1 counter in the next Japanese cup; kept by the moderator, as a
    # Report False must stay secret until the cycle's draw
    mod = work.moderator()
    owed = 0 if mod.si_plus_one is ABSENT else mod.si_plus_one
    work.put_moderator(mod.put(si_plus_one=owed + 1))
    secret_ones: Sequence[str] = _table(work, MAGIC_TABLE)["secret_when_played"]
    audience = [ALLIED] if chit in secret_ones else [ALLIED, JAPANESE]
    time = slot if isinstance(slot, str) else slot.time
    return work.disclose(MagicPlayed(chit), audience, time, "42.4.2")


def open_cycle(work: Work, cycle: int, secret: Dice, slot: Slot) -> list[Event]:
    """42.2.2: the Allies' Sigint uses and Magic draw for ``cycle``, from the SI
    difference, and their ruses (42.3.5: the Allied SI level / 2, rounded up); told
    to the Allies alone. Until stage 7 draws SI levels (42.1), every cycle plays at
    the scenario's (ruling R71); unused uses lapse with their cycle."""
    pack = work.pack
    item = pack.get(SI_LEVELS)
    if item is None or not gate_on(pack):
        return []
    allied, japanese = int(item.value["allied"]), int(item.value["japanese"])
    diff = allied - japanese
    effects = pack[SI_EFFECTS].value.get(f"+{min(diff, 3)}", {})
    uses, magic = int(effects.get("sigint", 0)), int(effects.get("magic", 0))
    ruses = math.ceil(allied / 2) if uses else 0
    held = allied_holdings(work).put(
        cycle=cycle, si_difference=diff, sigint_left=uses, ruses_left=ruses, sigint_phase=None
    )
    put_holdings(work, held)
    fact = SiCapabilities(cycle, diff, uses, ruses, magic)
    events = [work.disclose(fact, [ALLIED], slot.time, "42.2.2")]
    if magic:
        events.append(draw_magic(work, magic, secret, slot))
    return events


def roll_jn25(work: Work, secret: Dice, slot: Slot) -> Event:
    """42.8: at the outset the Japanese roll 1D6 + 1 (at most 6) secretly: the JN-25
    Code Change counters they hold."""
    held = min(6, secret.d6("JN-25 counters") + 1)
    _put_jn25(work, Jn25(held, None))
    return work.disclose(Jn25Counters(held), [JAPANESE], slot.time, "42.8")


def play_committed_jn25(work: Work, cycle: int, slot: Slot) -> list[Event]:
    """R72: a JN-25 counter committed by a dummy plot card is played at the Strategic
    Game-Turn ending its cycle, onto the next cycle (42.8; placed openly on the
    Cycle Track). Its 2D6 takes effect in that cycle's SI Phase (stage 7)."""
    jn = jn25(work)
    if jn is None or jn.committed_cycle != cycle:
        return []
    _put_jn25(work, jn.put(held=jn.held - 1, committed_cycle=None))
    return [work.disclose(Jn25Played(cycle + 1), [ALLIED, JAPANESE], slot.time, "42.8")]


# -- Magic: Reveal TF and Reveal Dummy TF (42.4.1) -------------------------------

REVEAL_DUMMY_ORDER = "reveal_dummy_order"  # private["japanese"]["standing"][...]: TF list


def si_difference(work: Work) -> int:
    """The Allied SI level less the Japanese (42.2.2), as the Allies hold it this
    cycle (``intelligence["si_difference"]``), else the scenario's levels."""
    held = allied_holdings(work).si_difference
    if held is not ABSENT:
        return held
    levels = _table(work, SI_LEVELS)
    return int(levels["allied"]) - int(levels["japanese"])


def on_map_japanese(chits: Mapping[str, LocatedChit]) -> list[str]:
    """The Japanese TF markers the Allies see (R30: those a rule put on the map, the
    Located ones, ``chits``), which they may nominate for Reveal TF (42.4.1)."""
    return sorted(c.tf for c in chits.values() if c.owner == JAPANESE)


def reveal_tf_problem(
    pack: Pack,
    chits: Mapping[str, LocatedChit],
    difference: int,
    chit: str,
    named: Sequence[str],
) -> str | None:
    """Why the Allies may not name ``named`` with Reveal 1/2 TF at SI ``difference``
    (42.4.1, ruling R25), the Located ``chits`` on the map; None if they may. Reads
    only what the Allies know."""
    table = pack[REVEAL_TF].value
    if chit not in table["picks"]:
        return f"{chit!r} is not a Reveal TF chit"
    if difference < 1:
        return "Magic needs the Allied SI level above the Japanese (42.2.1)"
    if len(set(named)) != len(named):
        return "name each TF once (42.4.1)"
    rule = table[f"+{min(difference, 3)}"]
    if not rule["on_map_only"]:
        return None if len(named) <= table["picks"][chit] else "name at most the cards you see"
    seen = on_map_japanese(chits)
    lo, hi = rule["nominate"]
    if any(t not in seen for t in named):
        return f"only Japanese TFs on the map may be named ({', '.join(seen) or 'none is'})"
    if not min(lo, len(seen)) <= len(named) <= hi or not named:
        return f"name {lo}-{hi} Japanese TFs on the map ({len(seen)} are) (42.4.1)"
    return None


def reveal_tf(work: Work, chit: str, named: Sequence[str], slot: Slot, secret: Dice) -> list[Event]:
    """Magic Reveal 1 TF / Reveal 2 TF (42.4.1). At SI +1 and +2 the Allies name
    on-map TFs, the Japanese are told which (they hand those cards over) and the
    moderator picks 1 (2) at random for the Allies' eyes only. At +3 the Allies see
    the numbered backs of every card, hidden TFs and a 42.9 dummy card included, and
    read the ones they named (a name with no card: one drawn at random, R25); the
    Japanese learn only that the chit was played."""
    diff = si_difference(work)
    # the public markers as the Allies see them
    problem = reveal_tf_problem(work.pack, located.on_map(work), diff, chit, named)
    if problem:
        raise IllegalOrderError(problem, rule="42.4.1")
    events = [play_magic(work, chit, slot)]
    cards = {c.tf: c for c in plot_cards(work, slot)}
    picks = int(_table(work, REVEAL_TF)["picks"][chit])
    rng = draws.fork(secret, f"magic {chit} {slot.time}")
    if diff >= 3:
        backs = sorted(cards)
        events.append(work.disclose(MagicCardBacks(tuple(backs)), [ALLIED], slot.time, "42.4.1"))
        chosen = [t for t in named if t in cards]
        pool = [t for t in backs if t not in chosen]
        while len(chosen) < min(picks, len(backs)):
            chosen.append(pool.pop(draws.below(rng, len(pool), "magic card")))
    else:
        named_fact = MagicRevealNamed(tuple(named))
        events.append(work.disclose(named_fact, [ALLIED, JAPANESE], slot.time, "42.4.1"))
        pool = [t for t in named if t in cards]
        chosen = [pool.pop(draws.below(rng, len(pool), "magic card")) for _ in range(picks) if pool]
    _log_reveal(work, RevealLog(slot.time, chit, tuple(chosen)))
    read = MagicRevealTf(tuple(cards[t] for t in chosen))
    return [*events, work.disclose(read, [ALLIED], slot.time, "42.4.1")]


def reveal_dummy(work: Work, slot: Slot) -> list[Event]:
    """Magic Reveal Dummy TF (42.4.1): the Japanese reveal one dummy at sea of their
    choice (their standing ``REVEAL_DUMMY_ORDER``, else the lowest-numbered, R26),
    which leaves the map (13.6.3); with none at sea, one unused dummy sortie of the
    cycle is burnt. Both sides are told which happened."""
    events = [play_magic(work, "reveal-dummy-tf", slot)]
    at_sea = sorted(
        (t for t, r in tfs.task_forces(work, JAPANESE).items() if r.dummy and r.hex),
        key=lambda t: (len(t), t),
    )
    order = work.part(JAPANESE).orders().reveal_dummy_order
    preferred = [t for t in (() if order is ABSENT else order) if t in at_sea]
    if at_sea:
        tf = (preferred or at_sea)[0]
        return [*events, *dummies.reveal(work, JAPANESE, tf, "Magic Reveal Dummy TF", slot)]
    allot = dummies.allotment(work, JAPANESE)
    burnt = 1 if allot is not None and allot.left > 0 else 0
    if allot is not None and burnt:
        dummies.put_allotment(work, JAPANESE, replace(allot, allowed=allot.allowed - 1))
    return [
        *events,
        work.disclose(DummySortieBurnt(burnt), [ALLIED, JAPANESE], slot.time, "42.4.1"),
    ]
