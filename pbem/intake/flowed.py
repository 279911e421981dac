"""RFC 3676 format=flowed: undoing the soft line breaks some mail clients add.

Used both to read a mail's text (pbem.intake.mime) and to find the reading of
an order block that its signature covers (pbem.intake.signatures, smime).
"""

from __future__ import annotations


def unflow(text: str, *, delsp: bool = False, quote_space: bool = False) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines, remove space-stuffing.

    A line ending in a space continues on the next line of the same quote
    depth; ``delsp`` (the DelSp=yes parameter) also deletes that space. The
    signature separator ``-- `` is never a soft break. ``quote_space`` writes
    quoted lines as "> text" (for reading) rather than ">text" (as sent).
    """

    def quoted(depth: int, content: str) -> str:
        if not depth:
            return content
        return ">" * depth + (" " if quote_space else "") + content

    out: list[str] = []
    pending: tuple[int, str] | None = None  # (quote depth, joined content so far)
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        content = raw[depth:]
        if content.startswith(" "):  # space-stuffing (RFC 3676 section 4.4)
            content = content[1:]
        if pending is not None and pending[0] == depth:
            content = pending[1] + content
        elif pending is not None:
            out.append(quoted(*pending))
        pending = None
        if content.endswith(" ") and content != "-- ":
            pending = (depth, content[:-1] if delsp else content)
            continue
        out.append(quoted(depth, content))
    if pending is not None:
        out.append(quoted(*pending))
    return "\n".join(out)
