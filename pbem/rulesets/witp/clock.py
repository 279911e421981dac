"""The game clock: the 3.1 sequence of play and the 50.0 Strategic Game-Turn, as data,
and the mail rounds built from them.

3.0: Game-Turns are grouped into cycles of four; at the end of each cycle comes a
Strategic Game-Turn (50.0). Every phase and segment is listed here in the
rulebook's order, each with the stage of this implementation that moderates it
(docs/witp-rulings.md); a segment of a later stage is passed over as a no-op.

Mail rounds: a segment in which sides plot (``plotting``) and which the kernel
moderates opens a round; the round also runs every segment after it up to the
next such segment (adjudication resolves the plot, then plays on to the next
decision). The segments before the game's first plot form an automatic opening
round. A round is named after its plot segment: ``T1-naval1-plot`` (Game-Turn 1,
First Naval Phase, Plot Segment); a Strategic Game-Turn's ``S1-...`` (cycle 1).

The Japanese-first gate (42.3.1, ruling R70): when it applies, a naval Plot
Segment's round is split in two halves. ``T1-naval1-plot-japanese`` takes the
Japanese plot alone and resolves only its filing (his cards close; the Allies'
Sigint and Magic calls are carried out on them); ``T1-naval1-plot`` then takes the
Allied plot and runs on as the whole round would. Whether it applies is the
caller's (play.Clock: from public knowledge only).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pbem.core.sequence import StepTable
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side
from pbem.rulesets.witp.knowledge import Fact

KERNEL_STAGE = 2  # this package moderates the segments of this stage and below
TURNS_PER_CYCLE = 4  # 3.0: "each cycle representing four game turns"
BOTH = SIDES


@dataclass(frozen=True, slots=True)
class Segment:
    key: str  # "search", "plot", ... unique within its phase
    title: str  # the rulebook's name, e.g. "Air Search Segment"
    rule: str  # where the rules of the segment are, e.g. "13.3"
    stage: int  # the stage that moderates it (0: the kernel)
    plotting: tuple[str, ...] = ()  # sides that send orders in it
    initiative: bool = False  # 3.2: both sides roll 1D6 at its start


@dataclass(frozen=True, slots=True)
class Phase:
    key: str  # "air1", "naval1", ... ; strategic "ms", "si", ...
    letter: str  # the outline's letter: "B"
    title: str  # "First Air Phase"
    rule: str  # "3.1 B"
    segments: StepTable[Segment]  # in the outline's order, found by key


def _phase(key: str, letter: str, title: str, rule: str, *segments: Segment) -> Phase:
    return Phase(key, letter, title, rule, StepTable(segments))


def _air(n: int, letter: str, extra: tuple[Segment, ...] = ()) -> Phase:
    ordinal = ("First", "Second", "Third")[n - 1]
    return _phase(
        f"air{n}",
        letter,
        f"{ordinal} Air Phase",
        f"3.1 {letter}",
        Segment("search", "Air Search Segment", "13.3", 1),
        Segment("allocation", "Allocation Segment", "5.0", 2, plotting=BOTH),
        Segment("strike", "Strike Segment", "3.2, 5.0", 2, initiative=True),
        Segment("transfer", "Air Transfer Segment (Day)", "4.4", 5),
        *extra,
    )


def _naval(n: int, letter: str, extra: tuple[Segment, ...] = ()) -> Phase:
    ordinal = ("First", "Second", "Third")[n - 1]
    return _phase(
        f"naval{n}",
        letter,
        f"{ordinal} Naval Phase",
        f"3.1 {letter}",
        Segment("plot", "Plot Segment", "16.3", 0, plotting=BOTH),
        Segment("weather", "Weather Segment (Optional Rule 59.3)", "59.3.6", 7),
        Segment("execution", "Execution Segment", "3.2, 16.0", 1, initiative=True),
        *extra,
    )


# 3.1 A-I: one Game-Turn.
GAME_TURN: StepTable[Phase] = StepTable(
    (
        _phase(
            "weather",
            "A",
            "Weather Phase",
            "3.1 A",
            Segment("wind", "Wind Direction Segment (Optional Rule 59.3)", "59.3.3", 7),
        ),
        _air(1, "B"),
        _naval(1, "C"),
        _air(2, "D"),
        _naval(2, "E"),
        _air(3, "F", (Segment("offmap", "Allied Off-Map Air Movement", "46.7", 7),)),
        _naval(3, "G", (Segment("sealanes", "Allied Global Sea Lanes Movement", "46.4", 7),)),
        _phase(
            "ground",
            "H",
            "Ground Phase",
            "3.1 H",
            Segment("activation", "Joint Activation Segment", "28.0, 29.0", 6, plotting=BOTH),
            Segment("assault", "Joint Assault Segment", "23.0, 39.7.7", 6),
            # 3.1 H: ground initiative comes from the Day Initiative Table, not 3.2.
            Segment("first", "First Player Ground Segment", "3.1 H, 23.0", 6),
            Segment("second", "Second Player Ground Segment", "23.0", 6),
            Segment("engineering", "Engineering Segment (Joint)", "39.0, 29.5", 6),
            Segment("demolition", "Demolition Segment (Joint)", "41.0", 6),
            Segment("rally", "Rally Segment (Joint)", "23.8", 6),
        ),
        _phase(
            "end",
            "I",
            "End of the Game Turn",
            "3.1 I",
            Segment("advance", "Game-Turn marker advanced", "3.1 I", 0),
        ),
    )
)

# 50.0 A-J: the Strategic Game-Turn at the end of each cycle.
STRATEGIC_TURN: StepTable[Phase] = StepTable(
    (
        _phase(
            "ms",
            "A",
            "Merchant Shipping Phase",
            "50.0 A",
            Segment("escort", "Japanese Escort Segment", "57.1", 7, plotting=(JAPANESE,)),
            Segment("subs", "Allied Submarine Priority Segment", "57.2", 7, plotting=(ALLIED,)),
            Segment("attrition", "Merchant Shipping Attrition Segment", "57.3", 7),
            Segment("pool", "MS Pool Segment", "17.8.1", 7),
            Segment("interdiction", "Allied Strategic Air MS Interdiction Segment", "57.8", 7),
            Segment("tankers", "AO Tanker Assignment Segment", "28.7", 7),
        ),
        _phase(
            "si",
            "B",
            "Strategic Intelligence Phase",
            "50.0 B",
            Segment("si", "Strategic Intelligence Segment", "42.1", 7),
        ),
        _phase(
            "bombing",
            "C",
            "Strategic Bombing Phase",
            "50.0 C",
            Segment("plot", "Plot Segment", "55.1, 56.0", 7, plotting=BOTH),
            Segment("execution", "Strike Execution Segment", "55.0", 7),
            Segment("allocation", "Strategic Strike Allocation Segment", "55.0", 7),
        ),
        _phase(
            "command",
            "D",
            "Command Phase",
            "50.0 D",
            Segment("residual", "Residual Command Point Segment", "28.9", 6),
            Segment("determination", "Command Point Determination Segment", "28.1", 6),
            Segment("allocation", "Command Point Allocation Segment", "28.4", 6, plotting=BOTH),
            Segment("links", "Emergency Command Link Segment", "29.6", 6),
        ),
        _phase(
            "attrition",
            "E",
            "Attrition Phase",
            "50.0 E",
            Segment("ground", "Ground Unit Isolation & Attrition Segment", "25.1", 6),
            Segment("air", "Air Attrition Segment", "37.1", 7),
            Segment("naval", "Naval Attrition Determination Segment", "37.2", 7),
        ),
        _phase(
            "submarine",
            "F",
            "Submarine Phase",
            "50.0 F",
            Segment("deployment", "Deployment Segment", "22.4", 4, plotting=BOTH),
            Segment("asw", "ASW Air Allocation Segment", "4.5", 4),
            Segment("mtb", "US MTB Deployment Segment", "60.5", 4),
        ),
        _phase(
            "reinforcement",
            "G",
            "Reinforcement/Replacement Phase",
            "50.0 G",
            Segment("deactivation", "Deactivation Segment", "50.0 G", 6),
            Segment("reinforcement", "Reinforcement Segment", "50.0 G", 7),
            Segment("arrival", "Production Arrival Segment", "51.0", 7),
            Segment("replacement", "Replacement Segment", "58.0", 7),
            Segment("ports", "Port Activation Limits Segment (Optional Rule 38.4)", "38.4", 7),
        ),
        _phase(
            "production",
            "H",
            "Production Phase",
            "50.0 H",
            Segment("production", "Production Segment", "51.0", 7),
            Segment("repair", "Strategic Bombing Repair Segment", "55.4", 7),
        ),
        _phase(
            "weather",
            "I",
            "Weather Phase",
            "50.0 I",
            Segment("weather", "Weather Determination (Optional Rule 59.3)", "59.3", 7),
        ),
        _phase(
            "end",
            "J",
            "End of the Strategic Turn",
            "50.0 J",
            Segment("advance", "Cycle marker advanced", "50.0 J", 0),
        ),
    )
)


@dataclass(frozen=True, slots=True)
class Slot:
    """One segment at one time of the game: the clock's unit of position."""

    turn: int  # the Game-Turn (a Strategic Game-Turn carries the turn it follows)
    cycle: int
    strategic: bool
    phase: Phase
    segment: Segment

    @property
    def time(self) -> str:
        """Game time, e.g. "T1/naval1/plot" or "S1/ms/escort" (disclosures carry it)."""
        head = f"S{self.cycle}" if self.strategic else f"T{self.turn}"
        return f"{head}/{self.phase.key}/{self.segment.key}"

    @property
    def moderated(self) -> bool:
        return self.segment.stage <= KERNEL_STAGE

    @property
    def takes_orders(self) -> bool:
        return self.moderated and bool(self.segment.plotting)

    @property
    def round_name(self) -> str:
        return self.time.replace("/", "-")

    def step(self) -> str:
        """The segment as a player reads it: rule letter, name, the rules it follows."""
        later = "" if self.moderated else f"; moderated from stage {self.segment.stage}"
        return f"{self.phase.rule} {self.phase.title}: {self.segment.title} ({self.segment.rule}{later})"


def cycle_of(turn: int, turn_in_cycle: int) -> tuple[int, int]:
    """(cycle, position 1-4 within it) of Game-Turn ``turn``, when the scenario's first
    Game-Turn is the ``turn_in_cycle``-th of cycle 1 (3.0)."""
    n = turn_in_cycle - 1 + turn - 1
    return n // TURNS_PER_CYCLE + 1, n % TURNS_PER_CYCLE + 1


@lru_cache(maxsize=32)
def schedule(game_turns: int, turn_in_cycle: int = 1) -> tuple[Slot, ...]:
    """Every segment of the game in order. A Strategic Game-Turn follows each
    Game-Turn that ends a cycle, except the last (3.1 I: it comes "before
    beginning another game turn", and none begins)."""
    slots: list[Slot] = []
    for turn in range(1, game_turns + 1):
        cycle, position = cycle_of(turn, turn_in_cycle)
        slots += [Slot(turn, cycle, False, p, s) for p in GAME_TURN for s in p.segments]
        if position == TURNS_PER_CYCLE and turn < game_turns:
            slots += [Slot(turn, cycle, True, p, s) for p in STRATEGIC_TURN for s in p.segments]
    return tuple(slots)


JAPANESE_HALF, ALLIED_HALF = JAPANESE, ALLIED  # the halves of a gated Plot Segment
HALF_SUFFIX = "-japanese"  # the Japanese half's name: "T1-naval1-plot-japanese"


@dataclass(frozen=True, slots=True)
class Round:
    """One mail round: ``slots[0]`` takes the orders (unless ``sides`` is empty: the
    automatic opening round); every slot is resolved in order when it is adjudicated.
    ``half``: "" for a whole round, else which half of a gated Plot Segment (42.3.1)."""

    name: str
    turn: int
    sides: tuple[str, ...]
    slots: tuple[Slot, ...]
    start: int  # index of slots[0] in the schedule
    end: int  # index after the last slot
    half: str = ""

    @property
    def title(self) -> str:
        first = self.slots[0]
        if not self.sides:
            return "Opening: the segments before the first plot"
        head = f"{first.phase.title}: {first.segment.title}"
        if self.half == JAPANESE_HALF:
            return f"{head}, the Japanese plot first (42.3.1; the Allies plot next)"
        if self.half == ALLIED_HALF:
            return f"{head}, the Allied plot (the Japanese cards are closed, 42.3.1)"
        return head

    def japanese_half(self) -> Round:
        """42.3.1: the Japanese plot alone, before the Allied; only its filing."""
        return Round(
            self.name + HALF_SUFFIX,
            self.turn,
            (JAPANESE,),
            self.slots[:1],
            self.start,
            self.start,
            JAPANESE_HALF,
        )

    def allied_half(self) -> Round:
        """The Allied plot, after the Japanese cards closed; the rest of the round."""
        return Round(self.name, self.turn, (ALLIED,), self.slots, self.start, self.end, ALLIED_HALF)

    @property
    def naval_plot(self) -> bool:
        """A naval Plot Segment both sides plot in: the gate's round (42.3.1)."""
        first = self.slots[0]
        return (
            first.phase.key.startswith("naval")
            and first.segment.key == "plot"
            and set(self.sides) == set(BOTH)
            and not first.strategic
        )

    def steps(self) -> tuple[str, ...]:
        """Rule-cited steps; a phase none of whose segments is moderated yet is one line."""
        if self.half == JAPANESE_HALF:
            return (f"{self.slots[0].step()}: the Japanese plot cards only (42.3.1)",)
        out: list[str] = []
        i = 0
        while i < len(self.slots):
            slot = self.slots[i]
            same = [
                s
                for s in self.slots[i:]
                if s.phase is slot.phase and s.turn == slot.turn and s.strategic == slot.strategic
            ]
            if not any(s.moderated for s in same) and len(same) > 1:
                stage = min(s.segment.stage for s in same)
                out.append(
                    f"{slot.phase.rule} {slot.phase.title} (all segments; moderated from stage {stage})"
                )
                i += len(same)
                continue
            out.append(slot.step())
            i += 1
        return tuple(out)


def round_at(slots: tuple[Slot, ...], start: int) -> Round | None:
    """The round beginning at schedule index ``start``; None past the end (game over)."""
    if start >= len(slots):
        return None
    first = slots[start]
    end = start + 1
    while end < len(slots) and not slots[end].takes_orders:
        end += 1
    if first.takes_orders:
        return Round(
            first.round_name, first.turn, first.segment.plotting, slots[start:end], start, end
        )
    # Only the game's opening: run up to the first plot without orders.
    head = f"S{first.cycle}" if first.strategic else f"T{first.turn}"
    return Round(f"{head}-open", first.turn, (), slots[start:end], start, end)


def rounds(slots: tuple[Slot, ...]) -> list[Round]:
    """Every round of a game, in order."""
    out: list[Round] = []
    at = 0
    while (r := round_at(slots, at)) is not None:
        out.append(r)
        at = r.end
    return out


@dataclass(frozen=True, slots=True)
class TurnTrack:
    """The public Turn Record Track (3.0): where the marker stands (``at``, an index of
    the schedule), the scenario's length and its first Game-Turn's place in its cycle,
    and, between the halves of a gated Plot Segment, the sides whose plot is filed
    (42.3.1). Stored as ``public["clock"]``; ``plotted`` only while it is not empty."""

    at: int
    game_turns: int
    turn_in_cycle: int
    plotted: tuple[Side, ...] = ()

    @property
    def slots(self) -> tuple[Slot, ...]:
        return schedule(self.game_turns, self.turn_in_cycle)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "at": self.at,
            "game_turns": self.game_turns,
            "turn_in_cycle": self.turn_in_cycle,
        }
        return {**out, "plotted": [str(s) for s in self.plotted]} if self.plotted else out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TurnTrack:
        plotted = tuple(Side(s) for s in obj.get("plotted", ()))
        return cls(int(obj["at"]), int(obj["game_turns"]), int(obj["turn_in_cycle"]), plotted)


class TurnEnded(Fact, kind="turn-ended"):
    """3.1 I: the Game-Turn marker advanced past Game-Turn ``turn``, told to both sides."""

    turn: int


class CycleEnded(Fact, kind="cycle-ended"):
    """50.0 J: the cycle marker advanced past ``cycle`` (its Strategic Game-Turn played)."""

    cycle: int
