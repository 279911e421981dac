"""Keep pbem/docs/usn-rule-index.md (docs/ links to it), the players' rule index, in form.

Reports and answers cite cases by ID ([NM.SURF.5]); players have the rulebook,
not the engine's inventory. The index gives each case ID its rulebook section
(with the line of the rulebook text it comes from) and a one-line summary in our
own words. Each row has an anchor named after the ID, so the HTML report can
link to it.

The index is its own source: the project keeps it, and a case is added or
reworded there by hand. Run without an argument, this script reads the index and
writes it back in its one form (summaries cut to one line, anchors from the IDs);
given a rules inventory (Markdown tables: ID, line, tag, paraphrase, under "## "
section headings), it writes the index from that inventory instead.

    python3 tools/build_rule_index.py [INVENTORY.md]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "pbem" / "docs" / "usn-rule-index.md"
SUMMARY = 110  # characters: one line of the table

HEAD = """# U.S.N. rule index

Reports and answers cite rules by case ID in brackets, e.g. `[NM.SURF.5]`. This
index gives each case its rulebook section (and the line of the rulebook text it
comes from) and a one-line summary in our own words; the rulebook itself is the
authority.

| Case | Rulebook section | Summary |
|---|---|---|
"""


def first_sentence(text: str) -> str:
    text = text.strip().replace("|", "/")
    m = re.match(r"(.+?[.;])(\s|$)", text)
    s = m.group(1) if m else text
    return s if len(s) <= SUMMARY else s[: SUMMARY - 1].rstrip() + "…"


def rows(inventory: str) -> list[tuple[str, str, str]]:
    """(ID, section, summary) for every case row of the inventory's tables."""
    out: list[tuple[str, str, str]] = []
    section = ""
    for line in inventory.splitlines():
        if line.startswith("## "):
            section = re.sub(r"^##\s+[\d.]*\s*", "", line).split(" (Ln")[0].strip()
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (
            len(cells) < 4
            or cells[0] == "ID"
            or not re.fullmatch(r"[A-Z][A-Z0-9]*(\.[A-Za-z0-9]+)*", cells[0])
        ):
            continue
        ident, ln, _tag, text = cells[0], cells[1], cells[2], cells[3]
        where = f"{section}, line {ln}" if re.fullmatch(r"[\d\-, ]+", ln) else section
        out.append((ident, where, first_sentence(text)))
    return out


def index_rows(index: str) -> list[tuple[str, str, str]]:
    """(ID, section, summary) of every row of a rule index this script wrote."""
    out: list[tuple[str, str, str]] = []
    for line in index.splitlines():
        m = re.fullmatch(r'\| <a id="([^"]+)"></a>([^ |]+) \| (.*?) \| (.*) \|', line)
        if m:
            assert m.group(1) == m.group(2), f"anchor and ID differ: {line}"
            out.append((m.group(1), m.group(3), first_sentence(m.group(4))))
    return out


def render_rows(cases: list[tuple[str, str, str]]) -> str:
    lines = [f'| <a id="{i}"></a>{i} | {w} | {s} |' for i, w, s in cases]
    return HEAD + "\n".join(lines) + "\n"


def render(inventory: str) -> str:
    return render_rows(rows(inventory))


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        text = render(Path(argv[1]).read_text(encoding="utf-8"))
    else:
        text = render_rows(index_rows(OUT.read_text(encoding="utf-8")))
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
