"""No leaks, proven by property: a side's report never depends on what the rules hide.

Hidden from the other side (usn-rules-inventory HID flags): transport cargo
(NM.TRANS.HIDDEN, NM.TRANS.AIR, H1), standing orders, orders that failed, and in
the double-blind mode every enemy unit, air point and base state out of sight.

Three kinds of property, for both fog modes:

* differential: two worlds that differ only in the enemy's hidden part give
  the viewer byte-identical reports (text, HTML, attachment name, the map's
  inputs; the PNG bytes themselves on a few examples: a render takes ~0.5 s);
* tokens: no hidden identifier or position appears in any part of the mail
  as composed for the outbox (headers, text, HTML, attachment names);
* answers: the viewer's own order validation (the errors and receipts he is
  mailed) is the same whatever the enemy's hidden part.

The worlds are random: public units near the viewer (columns 14-22), hidden
enemy units far away (columns 30-44, beyond every detection radius), random
cargo, standing orders and strengths. IDs of hidden units come from a pool
(type SNLF/MAR for cargo, "-9n" numbers for far ships) no public unit uses.
The enemy's troops on the quay beside his transport (``World.quay``) are each
ashore or aboard it (``Hidden.aboard``), still covered in the port they embarked
from (docs/usn-fog.md, *Cargo in port*): the viewer may not tell which, neither
from his report and answers nor from the strikes he flies at them
(test_hid_played_strikes_identical_whatever_went_aboard).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import Message
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pbem.core.dice import ScriptedDice
from pbem.core.events import Event
from pbem.lifecycle.publishing import audience_view
from pbem.outbox.compose import compose_reply
from pbem.reports.context import Header
from pbem.reports.render import render
from pbem.reports.report import render_report
from pbem.rulesets.usn import fog, hexgrid
from pbem.rulesets.usn.loader import load_world
from pbem.rulesets.usn.picture import combat_hexes, view_units
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import Air, Base, GameState, Unit
from tests.unit.rulesets.usn.builders import land, make_state, ship, stub_geo

J, A = "japanese", "allied"
SIDES = (J, A)
PORT = int(hexgrid.hex_id(18, 10))  # a coastal land hex: transports load there (NM.TRANS.COST)
RULESET = UsnRuleset(load_world(), stub_geo(land={PORT: "class2"}))
NEAR_COLS = range(14, 23)
FAR_COLS = range(30, 45)
ROWS = range(3, 30)
FAR_BASE = int(hexgrid.hex_id(40, 30))  # an enemy base out of the viewer's sight
SHIP_TYPES = ("CA", "CL", "DD", "BB", "CV")
MODES = ("open", "double-blind")


def other(side: str) -> str:
    return A if side == J else J


def near_hexes() -> st.SearchStrategy[int]:
    return st.builds(
        lambda c, r: int(hexgrid.hex_id(c, r)), st.sampled_from(NEAR_COLS), st.sampled_from(ROWS)
    )


def far_hexes() -> st.SearchStrategy[int]:
    return st.builds(
        lambda c, r: int(hexgrid.hex_id(c, r)), st.sampled_from(FAR_COLS), st.sampled_from(ROWS)
    ).filter(lambda h: h != FAR_BASE)


@dataclass(frozen=True)
class Hidden:
    """The enemy's hidden part of a world."""

    cargo: tuple[Unit, ...]
    air_cargo: int
    standing: tuple[str, ...]
    far_units: tuple[Unit, ...]  # double-blind only: out of sight
    far_air: int  # air points at the far base
    far_base_capacity: int
    far_base_neutralized: int
    events: tuple[Event, ...]
    far_events: tuple[Event, ...]  # double-blind only: moves out of sight
    aboard: frozenset[str] = frozenset()  # IDs of the quay's units aboard TR-1 (H1)


@dataclass(frozen=True)
class World:
    viewer: str
    mode: str
    public: tuple[Unit, ...]
    bases: tuple[Base, ...]
    air: dict[str, dict[str, Air]]
    events: tuple[Event, ...]
    quay: tuple[Unit, ...] = ()  # enemy land units by TR-1, seen ashore: some may be aboard

    def with_hidden(self, h: Hidden) -> GameState:
        enemy = other(self.viewer)
        if self.mode == "open":  # the open map shows the far base and its air counters
            h = replace(h, far_air=3, far_base_capacity=4, far_base_neutralized=0)
        air = {s: dict(v) for s, v in self.air.items()}
        if h.air_cargo:
            air.setdefault(enemy, {})["TR-1"] = Air(lac=h.air_cargo)
        if h.far_air:
            air.setdefault(enemy, {})[f"{FAR_BASE:04d}"] = Air(lac=h.far_air)
        far_base = Base(
            hex=FAR_BASE,
            owner=enemy,
            air=True,
            naval=True,
            air_capacity=h.far_base_capacity,
            neutralized_until=h.far_base_neutralized,
        )
        units = [*self.public, *h.cargo, *(h.far_units if self.mode == "double-blind" else ())]
        quay, cover = self.on_the_quay(h.aboard)
        return make_state(
            [*units, *quay],
            air=air,
            bases=[*self.bases, far_base],
            options={"fog": self.mode},
            standing={enemy: h.standing},
            vp={J: 3, A: 1},
            extra={"fog": {"cargo_cover": cover}} if cover else {},
        )

    def on_the_quay(self, aboard: frozenset[str]) -> tuple[list[Unit], dict[str, Any]]:
        """The quay's units, those in ``aboard`` embarked on TR-1 in an earlier round and
        still covered where they embarked (fog.update_cargo_cover's record)."""
        units: list[Unit] = []
        cover: dict[str, Any] = {}
        for u in self.quay:
            if u.uid not in aboard:
                units.append(u)
                continue
            units.append(replace(u, hex=None, carried_by="TR-1", entrenched=False))
            cover[u.key] = {"at": u.where(), "entrenched": u.entrenched, "transport": "TR-1"}
        return units, cover

    def all_events(self, h: Hidden) -> list[Event]:
        far = h.far_events if self.mode == "double-blind" else ()
        return [*self.events, *h.events, *far]


@st.composite
def hidden_parts(draw: st.DrawFn, enemy: str, quay: tuple[str, ...] = ()) -> Hidden:
    cargo_type = "SNLF" if enemy == J else "MAR"
    n = draw(st.integers(0, 2))  # 4 TP each: room beside 2 air points (NM.TRANS.CAP)
    ids = draw(st.lists(st.integers(50, 89), min_size=n, max_size=n, unique=True))
    cargo = tuple(
        replace(
            land(enemy, f"{cargo_type}-{i}", None, carried_by="TR-1"),
            attack=draw(st.integers(1, 20)),
        )
        for i in ids
    )
    far_ids = draw(st.lists(st.integers(90, 99), max_size=4, unique=True))
    far_units = tuple(
        ship(
            enemy,
            f"{draw(st.sampled_from(SHIP_TYPES))}-{i}",
            draw(far_hexes()),
            ma=draw(st.integers(2, 6)),
            damage=draw(st.integers(0, 2)),
        )
        for i in far_ids
    )
    standing = tuple(
        draw(
            st.lists(
                st.sampled_from(
                    ["STANDING SURFACE STAY", "STANDING SURFACE FIGHT", "STANDING CAP DECLINE"]
                ),
                max_size=2,
                unique=True,
            )
        )
    )
    events: list[Event] = []
    far_events: list[Event] = []
    if cargo:
        events.append(
            Event(
                "embarked",
                {"transport": "TR-1", "cargo": [u.uid for u in cargo]},
                (enemy,),
                "NM.TRANS.HIDDEN",
            )
        )
    if standing:
        events.append(
            Event(
                "standing-orders", {"side": enemy, "orders": list(standing)}, (enemy,), "GEN.SPIRIT"
            )
        )
    for u in far_units:  # moves wholly out of sight: public on the open map only
        assert u.hex is not None
        path = [f"{x:04d}" for x in hexgrid.within(u.hex, 1)[:3]]
        far_events.append(
            Event("moved", {"unit": u.uid, "side": enemy, "path": path}, None, "SEQ.2C")
        )
        far_events.append(
            Event(
                "air-transfer",
                {
                    "side": enemy,
                    "points": 2,
                    "type": "LAC",
                    "source": f"{FAR_BASE:04d}",
                    "dest": u.uid,
                },
                None,
                "SEQ.2A",
            )
        )
    return Hidden(
        aboard=frozenset(draw(st.sets(st.sampled_from(quay)))) if quay else frozenset(),
        cargo=cargo,
        air_cargo=draw(st.integers(0, 2)) if enemy == A else 0,
        standing=standing,
        far_units=far_units,
        far_air=draw(st.integers(0, 9)),
        far_base_capacity=draw(st.integers(0, 6)),
        far_base_neutralized=draw(st.integers(0, 3)),
        events=tuple(events),
        far_events=tuple(far_events),
    )


@st.composite
def worlds(draw: st.DrawFn, mode: str) -> tuple[World, Hidden, Hidden]:
    viewer = draw(st.sampled_from(SIDES))
    enemy = other(viewer)
    mine = [
        ship(viewer, f"{t}-{i}", draw(near_hexes()), ma=5)
        for i, t in enumerate(
            draw(st.lists(st.sampled_from(SHIP_TYPES), min_size=1, max_size=4)), 1
        )
    ]
    # The enemy's transport is in sight (next to the viewer's first ship) in both modes.
    first = mine[0].hex
    assert first is not None
    tr_at = draw(st.sampled_from(hexgrid.within(first, 1)))
    theirs = [ship(enemy, "TR-1", tr_at, ma=3)]
    theirs += [
        ship(enemy, f"{t}-{i}", draw(st.sampled_from(hexgrid.within(first, 1))), ma=4)
        for i, t in enumerate(draw(st.lists(st.sampled_from(SHIP_TYPES), max_size=2)), 1)
    ]
    my_base = draw(near_hexes())
    bases = (Base(hex=my_base, owner=viewer, air=True, naval=True, air_capacity=4),)
    air = {viewer: {f"{my_base:04d}": Air(lac=draw(st.integers(0, 6)))}}
    events = tuple(
        Event("moved", {"unit": u.uid, "side": viewer, "path": [u.where()]}, None, "SEQ.2C")
        for u in mine[:2]
    )
    quay = draw(quay_units(enemy, tr_at))
    world = World(viewer, mode, tuple(mine + theirs), bases, air, events, quay)
    ids = tuple(u.uid for u in quay)
    return world, draw(hidden_parts(enemy, ids)), draw(hidden_parts(enemy, ids))


@st.composite
def quay_units(draw: st.DrawFn, enemy: str, at: int) -> tuple[Unit, ...]:
    """Troops on the quay by TR-1 (2 TP each: room aboard, NM.TRANS.CAP), some entrenched
    and of different defences, so that a strike naming none picks by defence."""
    ids = draw(st.lists(st.integers(60, 69), min_size=1, max_size=2, unique=True))
    return tuple(
        land(
            enemy,
            f"BN-{i}",
            at,
            tp=2,
            defense=draw(st.integers(2, 16)),
            entrenched=draw(st.booleans()),
        )
        for i in ids
    )


HEADER: dict[str, Any] = dict(
    game_id="g9",
    ruleset="usn",
    ruleset_title=RULESET.title,
    scenario="test",
    title="g9: turn 1 phase A-3-4",
    phase={
        "turn": 1,
        "name": "A-3-4",
        "title": "",
        "sides": [A],
        "deadline": "Tue 03 Nov 2026 12:00 UTC",
        "seed_commitment": "0" * 64,
    },
)


def report_parts(
    state: GameState, events: list[Event], side: str, with_map: bool = False
) -> dict[str, Any]:
    view = audience_view(RULESET, state.to_json(), events, side)
    form = RULESET.order_template(state.to_json(), side)
    header = Header(audience=side, side=side, order_form=form, **HEADER)
    drawn = RULESET.map_picture(view) if with_map else None
    rendered = render_report(header, view, drawn, with_map=with_map)
    return {
        "text": rendered.text,
        "html": rendered.html,
        "attachment": rendered.attachment,
        "map-units": view_units(view),
        "map-highlight": combat_hexes(view),
        "rendered": rendered,
    }


def mail_of(parts: dict[str, Any], side: str) -> Message:
    rendered = parts["rendered"]
    raw = compose_reply(
        to=f"{side}@example.org",
        sender="Moderator <mod@example.org>",
        subject=f"[pbem g9] {HEADER['title']}",
        text=rendered.text,
        html=rendered.html,
        in_reply_to=None,
        message_id="<report.g9@example.org>",
        loop_token="mod@example.org",
        date=datetime(2026, 11, 2, tzinfo=UTC),
        attachments=rendered.attachments,
        auto_submitted="auto-generated",
    )
    return message_from_bytes(raw)


def readable(msg: Message) -> str:
    """Every header, every decoded text part and every attachment name of a mail."""
    out = [f"{k}: {v}" for k, v in msg.items()]
    for part in msg.walk():
        out += [f"{k}: {v}" for k, v in part.items()]
        if part.get_filename():
            out.append(part.get_filename() or "")
        if part.get_content_maintype() == "text":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            out.append(payload.decode(part.get_content_charset() or "utf-8"))
    return "\n".join(out)


def hidden_tokens(h: Hidden, mode: str) -> list[str]:
    tokens = [u.uid for u in h.cargo]
    if mode == "double-blind":
        tokens += [u.uid for u in h.far_units] + [u.where() for u in h.far_units]
        for e in h.far_events:
            tokens += e.data.get("path", [])
    return tokens


def _present(token: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", text) is not None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(MODES).flatmap(lambda m: worlds(m)))
def test_hid_report_identical_whatever_the_hidden_part(case: tuple[World, Hidden, Hidden]) -> None:
    """NM.TRANS.HIDDEN, GEN.SPIRIT standing orders, double-blind sightings: the
    viewer's report is a function of what he may see only."""
    world, h1, h2 = case
    a = report_parts(world.with_hidden(h1), world.all_events(h1), world.viewer)
    b = report_parts(world.with_hidden(h2), world.all_events(h2), world.viewer)
    for key in ("text", "html", "attachment", "map-units", "map-highlight"):
        assert a[key] == b[key], key


@settings(max_examples=4, deadline=None)
@given(st.sampled_from(MODES).flatmap(lambda m: worlds(m)))
def test_hid_map_png_identical_whatever_the_hidden_part(case: tuple[World, Hidden, Hidden]) -> None:
    world, h1, h2 = case
    a = report_parts(world.with_hidden(h1), world.all_events(h1), world.viewer, True)["rendered"]
    b = report_parts(world.with_hidden(h2), world.all_events(h2), world.viewer, True)["rendered"]
    assert a.png is not None and a.png == b.png


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(MODES).flatmap(lambda m: worlds(m)))
def test_hid_no_hidden_token_in_any_part_of_the_mail(case: tuple[World, Hidden, Hidden]) -> None:
    world, h1, _ = case
    state = world.with_hidden(h1)
    parts = report_parts(state, world.all_events(h1), world.viewer)
    text = readable(mail_of(parts, world.viewer))
    # Every base is listed in the report: a hidden move through a base hex leaves
    # that hex number in the mail for the base's sake, not the move's.
    base_hexes = {hexgrid.fmt(b) for b in state.bases}
    for token in hidden_tokens(h1, world.mode):
        if token not in base_hexes:
            assert not _present(token, text), token
    # The omniscient record does show them: the tokens are real, the test can fail.
    omni = report_parts(state, world.all_events(h1), A)
    omni_view = audience_view(RULESET, state.to_json(), world.all_events(h1), None)
    assert all(_present(u.uid, str(omni_view)) for u in h1.cargo)
    assert omni["text"]


# --- answers: validation of the viewer's own orders -------------------------------


@st.composite
def own_orders(draw: st.DrawFn, world: World) -> str:
    lines = []
    for u in world.public:
        if u.side != world.viewer or u.hex is None:
            continue
        path = [u.hex]
        for _ in range(draw(st.integers(0, 4))):
            path.append(draw(st.sampled_from(hexgrid.neighbours(path[-1]))))
        lines.append(f"MOVE {u.uid} " + " ".join(f"{x:04d}" for x in path[1:]))
    lines += draw(
        st.lists(
            st.sampled_from(["STANDING SURFACE FLEE", "MOVE XX-1 0001", "BASE CA-1"]), max_size=2
        )
    )
    return "\n".join(lines)


ROUND_OF = {J: 0, A: 1}  # J-2 and A-3-4: each side's first naval movement round
AIR5 = 2  # round air-5: both sides plot strikes (SEQ.5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hid_answers_do_not_depend_on_the_hidden_part(data: st.DataObject) -> None:
    mode = data.draw(st.sampled_from(MODES))
    world, h1, h2 = data.draw(worlds(mode))
    text = data.draw(own_orders(world))
    answers = []
    for h in (h1, h2):
        state = replace(world.with_hidden(h), round=ROUND_OF[world.viewer])
        v = RULESET.validate(state.to_json(), world.viewer, text)
        answers.append(
            render(
                "usn",
                "answer.txt.j2",
                {
                    "game": "g9",
                    "side": world.viewer,
                    "turn": 1,
                    "phase": "x",
                    "error": "",
                    "hint": "",
                    "accepted": v.accepted,
                    "refused": v.errors,
                    "receipt": None,
                    "notes": [],
                    "deadline": "",
                },
            )
        )
    assert answers[0] == answers[1]


# --- played rounds: random enemy orders through the ruleset ------------------------


@st.composite
def enemy_orders(draw: st.DrawFn, state: GameState, enemy: str) -> str:
    lines: list[str] = []
    cargo = [u.uid for u in state.side_units(enemy) if u.is_land and u.hex is not None]
    if draw(st.booleans()) and cargo:
        lines.append("EMBARK TR-1 " + " ".join(cargo))
    for u in sorted(state.side_units(enemy), key=lambda x: x.uid):
        if not u.is_naval or u.hex is None or not draw(st.booleans()):
            continue
        path = [u.hex]
        for _ in range(draw(st.integers(1, 4))):
            path.append(draw(st.sampled_from(hexgrid.neighbours(path[-1]))))
        verb = (
            "CONTINUE"
            if u.uid == "TR-1" and lines[:1] and lines[0].startswith("EMBARK")
            else "MOVE"
        )
        lines.append(f"{verb} {u.uid} " + " ".join(f"{x:04d}" for x in path[1:]))
    lines += draw(
        st.lists(st.sampled_from(["STANDING SURFACE STAY", "STANDING CAP DECLINE"]), max_size=1)
    )
    return "\n".join(lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hid_played_round_leaks_nothing(data: st.DataObject) -> None:
    """Random enemy orders adjudicated by the ruleset (cargo loaded at sea from a
    port, far stacks moving): what stayed hidden never reaches the viewer."""
    mode = data.draw(st.sampled_from(MODES))
    world, h1, _ = data.draw(worlds(mode))
    world = replace(world, quay=())  # the cargo to load waits in PORT, not on TR-1's quay
    enemy = other(world.viewer)
    state = replace(world.with_hidden(h1), round=ROUND_OF[enemy])
    # The transport and its would-be cargo wait in an enemy port next to the
    # viewer's first ship, so the orders may load it (NM.TRANS.COST).
    tr = state.unit(enemy, "TR-1")
    watcher = next(u for u in world.public if u.side == world.viewer)
    assert tr is not None
    moved = [replace(u, carried_by=None, hex=PORT) for u in h1.cargo]
    moved += [
        replace(tr, hex=PORT, in_base=True),
        replace(watcher, hex=hexgrid.neighbours(PORT)[0]),
    ]
    port = Base(hex=PORT, owner=enemy, air=False, naval=True, air_capacity=0)
    state = replace(state.with_units(moved), bases={**state.bases, PORT: port})
    text = data.draw(enemy_orders(state, enemy))
    accepted = RULESET.validate(state.to_json(), enemy, text).accepted
    result = RULESET.adjudicate(state.to_json(), {enemy: list(accepted)}, ScriptedDice([3] * 200))
    after = GameState.from_json(result.state)
    parts = report_parts(after, list(result.events), world.viewer)
    mail = readable(mail_of(parts, world.viewer))
    # H1 (docs/usn-fog.md): cargo whose transport is still in the port it loaded at is
    # shown ashore there, as before it embarked (tests/unit/reports/test_cargo_cover.py).
    cover = after.extra.get("fog", {}).get("cargo_cover", {})
    hidden = [
        u.uid for u in after.side_units(enemy) if u.carried_by is not None and u.key not in cover
    ]
    if mode == "double-blind":
        seen_hexes = {int(x) for x in re.findall(r"(?<![\w-])(\d{4})(?![\w-])", mail)}
        for e in result.events:
            d = e.data
            if d.get("side") == enemy and "path" in d:
                path = {int(p) for p in d["path"]}
                unit = after.unit(enemy, str(d["unit"]))
                # Within sight of the viewer's units, or of the air zone of control
                # (two hexes) of his bases (AZOC), with a hex to spare.
                near = {
                    h
                    for v in after.side_units(world.viewer)
                    if v.hex
                    for h in hexgrid.within(v.hex, 3)
                } | {
                    h
                    for b in after.bases.values()
                    if b.owner == world.viewer
                    for h in hexgrid.within(b.hex, 3)
                }
                if unit is not None and not (path & near) and unit.hex not in near:
                    hidden.append(unit.uid)  # never came near the viewer
                    assert not (path & seen_hexes - {b for b in after.bases}), (unit.uid, path)
    event(f"{mode}: {'some' if hidden else 'no'} hidden units after the round")
    # Unit IDs are per side: an enemy CA-1 and the viewer's own CA-1 print alike, so
    # only IDs the viewer does not own himself can be looked for in the text.
    own = {u.uid for u in after.side_units(world.viewer)}
    for token in (t for t in hidden if t not in own):
        assert not _present(token, mail), token


@st.composite
def quay_strikes(draw: st.DrawFn, world: World) -> str:
    """The viewer's strikes on the quay by TR-1 (AM.BOMBLAND, SEQ.5H/5I): on its land
    units, by name or not, or on the ships there; two at most (four LAC on his base)."""
    my_base = world.bases[0].hex
    tr = next(u for u in world.public if u.uid == "TR-1" and u.side != world.viewer)
    assert tr.hex is not None
    kinds = ["LAND", "SHIPS 1"] + [f"LAND AT {u.uid}" for u in world.quay] * 2
    lines = [
        f"STRIKE 2 LAC {my_base:04d} {tr.hex:04d} {what}"
        for what in draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=2))
    ]
    if draw(st.booleans()):  # CBT.D: and a land attack by his troops on the quay
        lines.append(f"ATTACK {tr.hex:04d} {ATTACKER}")
    return "\n".join(lines)


ATTACKER = "MAR-7"  # the viewer's land unit on the quay beside TR-1 (SEQ.5B)
STRIKE_ROUND = {A: AIR5, J: 5}  # air-5 and air-9: each side's land attack phase


def quay_attacker(world: World, tr_at: int, attack: int) -> Unit:
    """The viewer's troops beside the enemy's TR-1 and its quay (SEQ.5B: same hex)."""
    return land(world.viewer, ATTACKER, tr_at, attack=attack)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hid_played_strikes_identical_whatever_went_aboard(data: st.DataObject) -> None:
    """H1 (docs/usn-fog.md, *Strikes and bombardments at cargo in port* and *Land
    attacks, supply and capture with cargo in port*): two worlds that differ only in
    which of the enemy's troops on the quay went aboard TR-1 (still covered in that
    hex). The viewer's strikes at them, and his land attack on them (CBT.D), are
    adjudicated with the same dice; his answer, report and map are the same in both."""
    mode = data.draw(st.sampled_from(MODES))
    world, h1, _ = data.draw(worlds(mode))
    ids = [u.uid for u in world.quay]
    flip = data.draw(st.sets(st.sampled_from(ids), min_size=1)) if ids else set()
    h2 = replace(
        h1, aboard=h1.aboard ^ flip
    )  # at least one unit ashore in one, aboard in the other
    text = data.draw(quay_strikes(world))
    rolls = [data.draw(st.integers(1, 6)) for _ in range(3)] * 70
    drawn = data.draw(st.integers(0, 9)) == 0  # the PNG too, on a few: a render takes ~0.5 s
    ranges = {"air_ranges": {f"{world.viewer}/LAC": [30, 30]}}  # every strike in range
    tr_at = next(u.hex for u in world.public if u.uid == "TR-1" and u.side != world.viewer)
    assert tr_at is not None
    attacker = quay_attacker(world, tr_at, data.draw(st.sampled_from([4, 40, 400])))
    reports = []
    for h in (h1, h2):
        state = world.with_hidden(h).with_units([attacker])
        air = {**state.air, world.viewer: {f"{world.bases[0].hex:04d}": Air(lac=4)}}
        rnd = STRIKE_ROUND[world.viewer]
        state = replace(state, round=rnd, air=air, extra={**state.extra, **ranges})
        v = RULESET.validate(state.to_json(), world.viewer, text)
        orders = {world.viewer: list(v.accepted)}
        result = RULESET.adjudicate(state.to_json(), orders, ScriptedDice(rolls))
        after = GameState.from_json(result.state)
        parts = report_parts(after, list(result.events), world.viewer, drawn)
        keys = ("text", "html", "attachment", "map-units", "map-highlight")
        reports.append((v, {k: parts[k] for k in keys}, parts["rendered"].png))
    bombed = sum(e.kind == "bombardment" for e in result.events)
    fought = sum(e.kind == "land-combat" for e in result.events)
    event(f"{mode}: {len(h1.aboard ^ h2.aboard)} moved aboard, {bombed} bombed, {fought} fought")
    assert reports[0] == reports[1]


# --- answers to probes: validation reads only the side's knowledge (issue 13) ------


@st.composite
def lurkers(draw: st.DrawFn, world: World) -> tuple[Unit, ...]:
    """Double-blind: enemy ships a few hexes from the viewer's ships and air base,
    within his strike and move range but outside his sight (fog.detection_hexes)."""
    if world.mode != "double-blind":
        return ()
    enemy = other(world.viewer)
    seen = fog.detection_hexes(world.with_hidden(EMPTY), world.viewer)
    mine = [u.hex for u in world.public if u.side == world.viewer and u.hex is not None]
    near = {h for a in mine for h in hexgrid.within(a, 5)}
    near |= set(hexgrid.within(world.bases[0].hex, 4))  # LAC range (MOV.V)
    spots = sorted(h for h in near - seen if hexgrid.on_map(h) and h != FAR_BASE)
    ids = draw(st.lists(st.integers(80, 89), min_size=1, max_size=3, unique=True))
    return tuple(
        ship(enemy, f"{draw(st.sampled_from(SHIP_TYPES))}-{i}", draw(st.sampled_from(spots)), ma=4)
        for i in ids
    )


EMPTY = Hidden((), 0, (), (), 0, 0, 0, (), ())


def toward(start: int, goal: int, steps: int) -> list[int]:
    """A hex-by-hex path from ``start`` toward ``goal`` (MOV.PROC), ``steps`` long
    at most; it may go on past the goal."""
    path = [start]
    while len(path) <= steps:
        nxt = [h for h in hexgrid.neighbours(path[-1]) if h not in path]
        path.append(min(nxt, key=lambda h: hexgrid.distance(h, goal)))
    return path[1:]


@st.composite
def probes(draw: st.DrawFn, world: World, targets: list[Unit], strike_round: bool) -> str:
    """Order text that probes the enemy's hidden part: in the strike round, strikes
    on the hexes of hidden ships and bases (every target kind, any group number) and
    on the quay's troops by name (AM.BOMBLAND); in a movement round, moves into,
    through and near them (NM.SURF.1, MOV.N), fire at hidden ships by name
    (NM.SURF.5) and bombardment of the quay (NM.BOMBLAND)."""
    mine = [u for u in world.public if u.side == world.viewer and u.hex is not None]
    enemy_ids = [u.uid for u in targets] + [u.uid for u in world.public if u.side != world.viewer]
    hexes = [u.hex for u in (*targets, *world.quay) if u.hex is not None] + [FAR_BASE]
    land_at = [""] + [f" AT {u.uid}" for u in world.quay]
    my_base = world.bases[0].hex
    lines: list[str] = []
    if strike_round:
        in_range = [h for h in hexes if hexgrid.distance(h, my_base) <= 4]
        in_range += [h for h in hexgrid.within(my_base, 4) if hexgrid.on_map(h)]
        for h in draw(st.lists(st.sampled_from(in_range + hexes), min_size=1, max_size=4)):
            what = draw(
                st.sampled_from(
                    [f"SHIPS {draw(st.integers(1, 9))}", "PORT", "CD", "AIRBASE", "STRAFE"]
                    + [f"LAND{at}" for at in land_at]
                )
            )
            lines.append(f"STRIKE 1 LAC {my_base:04d} {h:04d} {what}")
        return "\n".join(lines)
    movers = draw(st.lists(st.sampled_from(mine), min_size=1, unique_by=lambda u: u.uid))
    for u in movers:
        assert u.hex is not None
        path = toward(u.hex, draw(st.sampled_from(hexes)), draw(st.integers(1, 10)))
        lines.append(f"MOVE {u.uid} " + " ".join(f"{x:04d}" for x in path))
        if draw(st.booleans()):
            lines.append(f"FIRE {u.uid} AT {draw(st.sampled_from(enemy_ids))}")
        if draw(st.booleans()):
            at = draw(st.sampled_from(land_at))
            lines.append(f"BOMBARD {path[-1]:04d} LAND {u.uid}{at}")
    return "\n".join(lines)


def answer_of(state: GameState, side: str, text: str) -> tuple[Any, ...]:
    v = RULESET.validate(state.to_json(), side, text)
    errors = tuple((e.line, e.text, e.message, e.rule) for e in v.errors)
    return v.accepted, errors, RULESET.order_template(state.to_json(), side)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hid_answers_to_probes_are_identical_in_worlds_the_side_cannot_tell_apart(
    data: st.DataObject,
) -> None:
    """Noninterference of answers (issue 13), both fog modes, movement and strike
    rounds: the accepted lines, every refusal's message and rule, and the order form
    are byte-identical in two worlds that differ only in what the viewer may not
    know - even for probes aimed at the hexes and names of the hidden enemy units."""
    mode = data.draw(st.sampled_from(MODES))
    world, h1, h2 = data.draw(worlds(mode))
    lurk1, lurk2 = data.draw(lurkers(world)), data.draw(lurkers(world))
    rnd = data.draw(st.sampled_from([ROUND_OF[world.viewer], AIR5]))
    hidden = [*h1.cargo, *h2.cargo, *lurk1, *lurk2]
    if mode == "double-blind":
        hidden += [*h1.far_units, *h2.far_units]
    text = data.draw(probes(world, hidden, rnd == AIR5))
    got = []
    for h, lurk in ((h1, lurk1), (h2, lurk2)):
        state = world.with_hidden(h)
        state = replace(state.with_units(lurk), round=rnd)
        got.append(answer_of(state, world.viewer, text))
    event(f"{mode}: {'some' if got[0][1] else 'no'} refusals, {len(got[0][0])} accepted")
    assert got[0] == got[1]
