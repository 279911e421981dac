"""``pbem demo --ruleset witp`` (issue 16 item 4): Coral Sea, May 1942, played to its
end through the real daemon on the embedded default (SQLite + Maildir), both sides
mailing signed mission cards every round, then ``pbem verify`` on the export.

The whole demo runs as a user would start it: the daemon is a separate process, the
moderator's CREATE goes by signed mail, each scripted side answers the report it was
mailed (pbem.demo.witp), and the archive is verified at the end. The test reads the
mail the daemon sent: every answer accepted every line, and each side's own reports
show its TFs where their cards sent them (16.0, 17.13), and nowhere else.
"""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.demo.witp import BASES, INTENTS, allied, japanese, plot_orders
from pbem.demo.witp_reading import Reading, TaskForce
from pbem.rulesets.witp.map import load_map
from tests.unit.test_cli_errors import pbem

SIDES = ("japanese", "allied")
NAVAL_PLOT = re.compile(r"^T(?P<turn>[123])-naval(?P<phase>[123])-plot(?:-(?P<half>\w+))?$")
ALLOCATION = re.compile(r"^T(?P<turn>[123])-air(?P<phase>[123])-allocation$")
# A WitP round names its turn ("T1-naval1-plot", "S1-ms-escort"): a subject or an
# answer's first line names it once, with no "turn N" before it (phase_label).
ROUND = r"[TS]\d+-[\w-]+"
SUBJECT = re.compile(rf"^\[pbem demo-1\] (?P<round>{ROUND}) report(?: \(corrected\))?; ")
NEXT = re.compile(rf"; next (?P<round>{ROUND})(?:,|$)")
ANSWER = re.compile(rf"^Game demo-1, (?P<side>\w+), (?P<round>{ROUND})$", re.M)


def _mails(folder: Path) -> Iterator[tuple[str, str, str]]:
    """(to, subject, plain text) of every mail the daemon sent, in the order sent."""
    box = mailbox.Maildir(str(folder), create=False)
    for key in sorted(box.keys()):
        msg = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        part = msg.get_body(("plain",))
        text = part.get_content().replace("\r\n", "\n") if part is not None else ""
        yield str(msg["To"]), str(msg["Subject"]), text


def _forces(
    report: str, side: str, before: dict[str, tuple[str, list[str]]] | None = None
) -> dict[str, tuple[str, list[str]]]:
    """Each of ``side``'s TFs in a report: (its hex, the hexes it moved through this
    phase). The game-over report lists every side's forces, each line led by its side;
    a later report lists the TFs that changed, a line each ("TF3 Task Force 17: E2223
    at sea; ...; moved"), the others where ``before`` had them; the hexes a TF moved
    through are told in What happened ("TF3 carried out its card: moved E2320 to E2223
    via E2321 E2322 E2323 E2223 (54 MP)")."""
    section = re.search(r"^(?:Your forces|Forces)\n-+\n(.*?)\n\n", report, re.M | re.S)
    assert section, report
    kept = re.search(r"^Unchanged since your last report: (.*?)\.", section.group(1), re.M | re.S)
    out: dict[str, tuple[str, list[str]]] = {
        tf: ((before or {})[tf][0], [])
        for tf in (" ".join(kept.group(1).split()).split(", ") if kept else [])
    }
    lead = "" if report.count("Your forces\n") else f"{side}: "
    routes = {
        m.group(1): m.group(2).split()
        for _, entry in _section(report, "What happened")
        if (
            m := re.match(
                r"(TF\d+) carried out its card: moved \S+ to \S+ via ((?:[A-Z]\d{4} ?)+)", entry
            )
        )
    }
    for block in re.split(r"(?m)^(?=(?:\w+: )?TF\d+ )", section.group(1)):
        flat = " ".join(block.split())
        if not flat.startswith(lead):
            continue
        head = re.match(
            r"(TF\d+) (?:[^:]*?: ([A-Z]\d{4}) |.*? at ([A-Z]\d{4})\b)", flat[len(lead) :]
        )
        if head:
            out[head.group(1)] = (head.group(2) or head.group(3), routes.get(head.group(1), []))
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    where = tmp_path_factory.mktemp("witpdemo")
    run = pbem(where, "demo", "--dir", "d", "--ruleset", "witp")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    return run.stdout, where / "d"


def test_witp_demo_plays_coral_sea_to_its_end_and_verifies(demo: tuple[str, Path]) -> None:
    out, d = demo
    assert "CREATE demo-1 witp" not in out  # the commands went by signed mail
    assert re.search(r"game over: .*ships sunk \(34\.1\.1, R106\)", out)
    assert "verify: OK" in out
    with sqlite3.connect(d / "pbem.sqlite3") as db:
        game = db.execute("SELECT ruleset, scenario, status FROM games").fetchall()
        phases = [n for (n,) in db.execute("SELECT name FROM phases ORDER BY seq")]
    assert game == [("witp", "coral-sea-1942", "over")]
    plots = [p for p in phases if p != "T1-open"]
    assert all(NAVAL_PLOT.match(p) or ALLOCATION.match(p) for p in plots), plots
    # Three Game-Turns of three Naval Phases, each plotted (in one round or a gate's two),
    # and of three Air Phases, each with its Allocation Segment's round (5.0).
    naval = {(m["turn"], m["phase"]) for p in plots if (m := NAVAL_PLOT.match(p))}
    assert naval == {(t, n) for t in "123" for n in "123"}
    air = [(m["turn"], m["phase"]) for p in plots if (m := ALLOCATION.match(p))]
    assert sorted(air) == [(t, n) for t in "123" for n in "123"]
    # verify re-ran every round and checked each plotting side's sealed orders of each.
    sealed = out.count("signs and mails")
    assert f"{sealed} plot commitments confirmed" in out


def test_witp_demo_nothing_refused_and_tfs_moved_as_plotted(demo: tuple[str, Path]) -> None:
    """Every answer accepted every line (none refused, 16.3); after each Naval Phase
    a side's own report shows each TF it plotted at the card's destination, having
    moved through it (17.13), a LINKed TF with its leader (17.10), and every TF it
    did not plot where it was, not moved (16.0)."""
    out, d = demo
    theatre = load_map()
    plotted: dict[str, dict[tuple[str, str], list[str]]] = {s: {} for s in SIDES}
    last_report: dict[str, dict[tuple[str, str], str]] = {s: {} for s in SIDES}
    opening: dict[str, str] = {}
    answers = 0
    for to, subject, text in _mails(d / "mail" / "outbox"):
        side = to.partition("@")[0]
        if side not in SIDES:
            continue
        if subject.startswith("Re:"):
            answers += 1
            head = ANSWER.search(text)
            assert head and head["side"] == side, text
            assert "Refused" not in text, text
            accepted = re.search(r"Accepted \(\d+\), as understood:\n((?:  .*\n)+)", text)
            assert accepted, text
            if ALLOCATION.match(head["round"]):
                continue  # an Air Strike Plot: test_5_0_... reads them
            m = NAVAL_PLOT.match(head["round"])
            assert m, head["round"]
            lines = [ln.strip() for ln in accepted.group(1).splitlines()]
            plotted[side].setdefault((m["turn"], m["phase"]), []).extend(lines)
            continue
        report = SUBJECT.search(subject)
        if " report" in subject:  # a doubled "turn 1 T1-..." fails here
            assert report, subject
        if "; next " in subject:
            assert NEXT.search(subject), subject
        if report and report["round"] == "T1-open":
            opening[side] = text
        m = NAVAL_PLOT.match(report["round"]) if report else None
        if m:  # the last report of a Naval Phase shows its Execution Segment
            last_report[side][(m["turn"], m["phase"])] = text
    assert answers == out.count("signs and mails") and "answer says accepted 0" not in out
    assert ", refused" not in out

    moved_in: dict[str, set[str]] = {s: set() for s in SIDES}
    dummies: dict[str, list[str]] = {s: [] for s in SIDES}
    for side in SIDES:
        before = _forces(opening[side], side)
        for key in sorted(last_report[side]):
            now = _forces(last_report[side][key], side, before)
            lines = plotted[side].get(key, [])
            cards: dict[str, list[str]] = {}
            for line in lines:
                if line != "PASS":
                    tf, _, rest = line.partition(" ")
                    cards.setdefault(tf, []).append(rest)
            for tf, (at, moved) in now.items():
                card = cards.get(tf, [])
                goal = next((c.split()[1] for c in card if c.startswith("MOVE ")), None)
                leader = next((c.split()[1] for c in card if c.startswith("LINK ")), None)
                if goal is not None:
                    hex_ = (
                        goal
                        if re.fullmatch(r"E\d{4}", goal)
                        else theatre.place(goal.replace("_", " "))
                    )
                    assert at == hex_ and moved and moved[-1] == hex_, (
                        side,
                        key,
                        tf,
                        card,
                        at,
                        moved,
                    )
                    moved_in[side].add(key[0])
                elif leader is not None:
                    assert at == now[leader][0] and moved == now[leader][1], (side, key, tf)
                elif tf not in before:  # a dummy marker a REGP DUMMY line placed (17.11, 13.6)
                    placer = next(t for t, c in cards.items() if f"REGP DUMMY {tf}" in c)
                    assert (at, moved) == (before[placer][0], []), (side, key, tf, placer)
                    dummies[side].append(tf)
                else:
                    assert (at, moved) == (before[tf][0], []), (side, key, tf, card)
            before = now
    # Each TF that plotted a MOVE and was still afloat moved (checked above); and the
    # check is not empty: both sides moved in the first Game-Turn. Later turns depend
    # on the game's own dice (a side whose carriers are sunk or held plots PASS).
    assert all("1" in moved_in[s] for s in SIDES), (  # what to read if not
        moved_in,
        {s: {k: v for k, v in plotted[s].items() if k[0] not in moved_in[s]} for s in SIDES},
        {s: sorted(last_report[s]) for s in SIDES},
    )
    # The Allied allotment is never empty (13.6: SI level 3 and more): Crace leaves one.
    assert len(dummies["allied"]) == 1


def _tf(marker: str, name: str, hex_: str, **kw: object) -> TaskForce:
    base: dict[str, object] = {
        "in_port": False, "speed": "SC3", "to_choose": True, "used": 0, "held": False,
    }  # fmt: skip
    return TaskForce(marker, name, hex_, **{**base, **kw})  # type: ignore[arg-type]


FORM = """Game: demo-1
Side: allied
Turn: 1
Phase: T1-naval1-plot

# T1-naval1-plot: First Naval Phase, Plot Segment (3.1 C, 16.3)
#   TFn SPEED 1-3 | MOVE <hex> [VIA <hex>...] EV 0-14 | NIGHT AFTER <hexes> | FUEL FROM TFn | REGP TFn SHIPS a, b | REGP DUMMY TFn | LINK TFn | TRAN <hex> | PORT
# Your task forces (where; speed; fuel; active phases used this Game-Turn; ships):
#   TF1 (Fuelling Group): E2424, at sea; speed SC2 (to choose); fuelled; 0 used; AO Neosho, AO Tippecanoe, DD Sims, DD Worden
#   TF3 (Task Force 17): E2324, at sea; speed SC3; fuelled; 3 used; CV Yorktown, CA Astoria
#   TF4 (Task Force 44): E2028, in port at Townsville; speed SC2; fuelled; 0 used; entered port last phase: stays in port this phase (18.4.1); CA Australia
PASS
"""


def test_the_scripted_sides_read_their_own_tfs_from_the_form_and_report() -> None:
    """Reading takes the round, the offered orders and the side's TFs from the form,
    and the carrier TFs from the ships' types it lists; a TF whose active phases are
    used (16.0) or which entered port last phase (18.4.1) is not plotted."""
    r = Reading.of("allied", FORM)
    assert (r.turn, r.round, r.phase, r.segment) == (1, "T1-naval1-plot", "naval1", "plot")
    assert {"PASS", "SPEED", "MOVE", "FUEL", "LINK", "PORT"} <= r.offered
    assert "SEARCH" not in r.offered
    assert [(t.marker, t.name, t.hex, t.speed, t.to_choose, t.used) for t in r.tfs] == [
        ("TF1", "Fuelling Group", "E2424", "SC2", True, 0),
        ("TF3", "Task Force 17", "E2324", "SC3", False, 3),
        ("TF4", "Task Force 44", "E2028", "SC2", False, 0),
    ]
    assert [t.carrier for t in r.tfs] == [False, True, False]
    assert [t.may_plot for t in r.tfs] == [True, False, False]
    # TF17 (3 of 3 phases used) and TF44 (entered port) get no card; TF11 is absent.
    assert allied(r) == [
        "# TF1 Fuelling Group: Neosho and Tippecanoe at the rendezvous",
        "TF1 SPEED 2",
        "TF1 MOVE E2223 EV 0",
    ]
    # A gate's half ("-japanese") is still a Plot Segment of the same Naval Phase.
    gate = Reading("japanese", 1, "T1-naval1-plot-japanese", frozenset({"PASS"}))
    assert (gate.phase, gate.segment) == ("naval1", "plot") and japanese(gate) == ["PASS"]


def test_13_3_search_lines_only_when_the_form_offers_search() -> None:
    """13.3.1: SEARCH <base|TFn> <hex> ...: from each base the form names under
    search, and from each carrier TF, toward the enemy's expected hexes in reach."""
    tfs = (
        _tf("TF3", "Task Force 17", "E2324", carrier=True),
        _tf("TF1", "Fuelling Group", "E2424"),
    )
    plain = Reading("allied", 1, "T1-naval1-plot", frozenset({"PASS", "MOVE"}), tfs)
    assert not [ln for ln in plot_orders(plain) if ln.startswith("SEARCH")]
    offered = Reading(
        "allied", 1, "T1-naval1-plot", frozenset({"PASS", "MOVE", "SEARCH"}), tfs,
        "# search (13.3): port moresby, noumea",
    )  # fmt: skip
    searches = [ln for ln in plot_orders(offered) if ln.startswith("SEARCH")]
    # Without the form's bands and values, one hex each, in the Medium band; Noumea
    # is named but no expected hex is in its reach (13.1.3): it does not search.
    assert searches == ["SEARCH Port_Moresby E1719", "SEARCH TF3 E1719"]


SEARCH_FORM = """Game: demo-1
Side: allied
Turn: 1
Phase: T1-naval1-plot

#   TF3 (Task Force 17): E2324, at sea; Yorktown, Astoria
#      speed SC3 (to choose); fuelled; 0 active phase(s) used this Game-Turn
#
# Standing orders (kept until you file others; docs/witp-orders.md):
#   SEARCH <base|TFn> <hex> [<hex> ...] [INTENSIVE]  (13.3.1, 13.5.4) | SEARCH NONE
# Your searching bases (land bands; 13.1.3):
#   Port_Moresby at E1018: short 1-7 hexes value 5; medium 8-13 hexes value 5
#   Cairns at E0926: short 1-7 hexes value 1
#   TF3 at E2324 (carrier bands): short 1-4 hexes value 6; medium 5-8 hexes value 6
PASS
"""


def test_13_3_1_searches_read_the_forms_bands_and_split_values() -> None:
    """The form lists each searcher's bands and values (13.1.3): a search goes only
    where a band has a value, and is split over two hexes only while the value
    shared out stays at least 1 for each (13.3.1: fractions dropped)."""
    r = Reading.of("allied", SEARCH_FORM, "")
    assert "SEARCH" in r.offered
    assert [(s.name, s.hex, s.carrier) for s in r.searchers] == [
        ("Port_Moresby", "E1018", False),
        ("Cairns", "E0926", False),
        ("TF3", "E2324", True),
    ]
    assert [ln for ln in allied(r) if ln.startswith("SEARCH")] == [
        "SEARCH Port_Moresby E1719 E1818",
        "SEARCH TF3 E1719 E1818",
    ]


def test_every_intent_names_a_force_of_the_scenario() -> None:
    """The cards' forces are the scenario's names, as the forms list them."""
    names = {
        "japanese": {
            "MO Main Force", "MO Striking Force", "MO Support Force (seaplane tender group)",
            "Port Moresby Invasion Force", "Tulagi Invasion Force",
        },
        "allied": {"Fuelling Group", "Task Force 11", "Task Force 17", "Task Force 44"},
    }  # fmt: skip
    for side, phases in INTENTS.items():
        for cards in phases.values():
            for c in cards:
                assert {c.force, *(x for x in (c.link, c.fuel_from) if x)} <= names[side]


def test_the_searching_bases_stand_where_the_map_prints_them() -> None:
    theatre = load_map()
    for side, bases in BASES.items():
        for name, at in bases.items():
            assert str(theatre.place(name)) == at, (side, name)


def test_17_11_a_dummy_only_while_the_allotment_has_one() -> None:
    """13.6, 17.11: REGP DUMMY takes the form's lowest free marker, where the TF
    starts (before its move), and only while a dummy sortie is left."""
    tf44 = _tf("TF4", "Task Force 44", "E1721", speed="SC2", to_choose=False, used=0)
    r = Reading("allied", 2, "T2-naval1-plot", frozenset({"PASS", "REGP", "MOVE", "PORT"}), (tf44,))
    with_one = replace(r, free_marker="TF5", dummies_left=1)
    assert [ln for ln in allied(with_one) if not ln.startswith("#")] == [
        "TF4 REGP DUMMY TF5",
        "TF4 MOVE Townsville EV 0",
        "TF4 PORT",
    ]
    none_left = replace(r, free_marker="TF5", dummies_left=0)
    assert "TF4 REGP DUMMY TF5" not in allied(none_left)
    form = (
        "# Free markers: TF6-TF60 (55 of 60, 16.1.1)\n# Dummy sorties left this cycle: 2 (13.6)\n"
    )
    assert (
        Reading.of("japanese", form, "").free_marker,
        Reading.of("japanese", form, "").dummies_left,
    ) == ("TF6", 2)


SEARCHES = "Searches and contacts (13.3-13.8)"


def _section(report: str, title: str) -> list[tuple[str, str]]:
    """The entries of one report section: (the game time they come under, each "  - "
    item with its lines joined)."""
    found = re.search(rf"^{re.escape(title)}\n-+\n(.*?)(?:\n\n|\Z)", report, re.M | re.S)
    if not found:
        return []
    out: list[tuple[str, str]] = []
    time = ""
    for line in found.group(1).splitlines():
        if re.match(r"^T\d+/\S+:$", line):
            time = line[:-1]
        elif line.startswith("  - "):
            out.append((time, line[4:].strip()))
        elif line.startswith("    ") and out:
            out[-1] = (out[-1][0], f"{out[-1][1]} {line.strip()}")
        elif out and not line.startswith("  "):  # a line of its own ends the items
            break
    return out


SEARCHER = re.compile(r"^(Japanese|Allied) .*? [SMLX]\d+( intensive)?: ")
FIND = re.compile(r"(TF\d+) ([A-Z]\d{4}) \((?:drew \S+, enemy told: )?([^()]*)\)")


def _finds(entry: str) -> list[str]:
    """A searcher's line's finds, each as "TFn HEX: report" ("Japanese Rabaul M8: found
    TF3 E2323 (5 CA, 2 CV; total 2), TF4 E2124 (...)"; on the owner's side each find
    also names the chit his TF drew: "(drew error-2, enemy told: 3 AO; total 7)")."""
    found = entry.partition(": found ")[2]
    return [f"{m.group(1)} {m.group(2)}: {m.group(3)}" for m in FIND.finditer(found)]


def _told(entry: str) -> list[str]:
    """What the owner was told the enemy learnt of his TFs, as "TFn HEX: report": from
    an enemy searcher's line, or a line of its own ("Your TF5 drew true, enemy told:
    E2318 (coastwatcher): 2 CM; total 4")."""
    drew = re.match(r"^Your (TF\d+) drew \S+, enemy told: ([A-Z]\d{4}) \([^)]*\): (.*)$", entry)
    if drew:
        return [f"{drew.group(1)} {drew.group(2)}: {drew.group(3)}"]
    return _finds(entry)


def test_13_3_both_sides_search_and_each_contact_is_told_to_both(
    demo: tuple[str, Path],
) -> None:
    """13.3: each side's standing SEARCH lines are flown (announced to both, rolled
    openly); 13.5.7: every report a searcher gains on an enemy TF is the one its owner
    was told he gave, word for word (the chit drawn stays the owner's, 13.5.3)."""
    _, d = demo
    texts = {
        side: [
            p.read_text()
            for p in sorted((d / "archive" / "demo-1" / "reports").glob(f"*-{side}.txt"))
        ]
        for side in SIDES
    }
    searched: dict[str, set[str]] = {side: set() for side in SIDES}
    gained: dict[str, set[tuple[str, str]]] = {side: set() for side in SIDES}
    told: dict[str, set[tuple[str, str]]] = {side: set() for side in SIDES}
    for side in SIDES:
        over = [t for t in texts[side] if "game over" in t.lower()]
        assert len(over) == 1 and texts[side][-1] is over[0]
        # The game-over report tells everything (the end's full disclosure): not read here.
        texts[side] = texts[side][:-1]
        # Each report tells its own round's searches: none is told again in a later one.
        # (Within one report two lines may read alike: two carrier TFs in one hex are
        # announced by their hex alone, 5.0, and may search one hex at one value.)
        told_searches = [e for t in texts[side] for e in set(_section(t, SEARCHES))]
        assert len(told_searches) == len(set(told_searches)), "a search repeated in a later report"
        for text in texts[side]:
            entries = _section(text, SEARCHES)
            for time, entry in entries:
                m = SEARCHER.match(entry) or re.match(r"^(Japanese|Allied): \d+ search", entry)
                if m:
                    searched[side].add(m.group(1).lower())
                if m and m.group(1).lower() == side:  # my searcher: what it gained
                    gained[side] |= {(time, f) for f in _finds(entry)}
                elif (m and ": found " in entry) or entry.startswith("Your TF"):
                    told[side] |= {(time, f) for f in _told(entry)}
    for side in SIDES:
        # Both sides' searches are announced to each side (13.3).
        assert searched[side] == set(SIDES), searched
        enemy = next(s for s in SIDES if s != side)
        assert gained[side], f"{side} gained no contact in three Game-Turns"
        assert all(re.match(r"TF\d+ [A-Z]\d{4}: ", e) for _, e in gained[side]), gained[side]
        # What the searcher was told is what the owner was told he reported.
        assert gained[side] <= told[enemy], gained[side] - told[enemy]
        # The chit the owner drew is his alone (13.5.3): never on the searcher's side.
        assert not any(
            "drew" in e
            for text in texts[side]
            for _, e in _section(text, SEARCHES)
            if e.lower().startswith(f"{side} ")
        )


def _record_events(d: Path) -> list[dict[str, object]]:
    """Every event of the game, hidden ones included, from the verified archive."""
    out: list[dict[str, object]] = []
    for line in (d / "archive" / "demo-1" / "record.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry["kind"] == "phase-adjudicated":
            out += [dict(e["data"], kind=e["kind"]) for e in entry["payload"]["events"]]
    return out


def test_5_0_7_8_16_7_r106_the_carrier_battle_is_fought_to_a_verdict(
    demo: tuple[str, Path],
) -> None:
    """The scripted sides plot strikes at the enemy TFs they have Located (5.0, 5.1.6);
    strikes launch (announced to both: 5.0), ships are hit on the Air/Surface display
    (7.8.1) and the damage they take persists from strike to strike; the game ends in
    the verdict of R106, whose losses are exactly the ships the strikes sank (or, a
    DD, left at D2: 34.1.1), transports not counted."""
    out, d = demo
    events = _record_events(d)
    launched = [e for e in events if e["kind"] == "strike-launched"]
    attacks = [e for e in events if e["kind"] == "air-surface-attack"]
    assert launched and attacks
    assert {str(e["side"]) for e in launched} == set(SIDES)  # both sides strike
    assert any(int(str(e["damage"])) > 0 for e in attacks), "no ship damaged in the battle"
    # A ship's damage only grows: each attack starts from the level the last one left.
    level: dict[str, int] = {}
    kind: dict[str, str] = {}
    for e in events:
        if e["kind"] in ("air-surface-attack", "critical-hit-rolls"):
            ship, now = str(e["ship"]), int(str(e["damage"]))
            assert now >= level.get(ship, 0), (ship, now, level.get(ship))
            level[ship] = now
            if "type" in e:
                kind[ship] = str(e["type"])
    counted = {
        s
        for s, n in level.items()
        if kind.get(s) != "MSU" and (n >= 5 or (kind.get(s) == "DD" and n >= 2))
    }
    verdict = re.search(r"game over: (.*)", out)
    assert verdict
    lost = set()
    for m in re.finditer(r"(?:japanese|allied) lost ([^;]*?)(?:;| - |$)", verdict.group(1)):
        if m.group(1) != "no ship":
            lost |= {n.strip() for n in m.group(1).split(",")}
    assert lost == counted, (lost, counted)
