"""HTML → plain text that keeps the line structure a player saw.

An armoured order block pasted into an HTML-only mail (Outlook, webmail) must
come out as the same lines: block elements and <br> end lines, entities are
unescaped, <pre> is kept verbatim, other whitespace collapses as a browser
would. Quoted material (<blockquote>) is prefixed with "> " as in plain-text
replies, so the order-block finder can tell it from the sender's own text.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["html_to_text"]

# Elements that start and end a line when rendered.
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt",
        "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
        "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
# Elements whose content is never shown.
_HIDDEN = frozenset({"head", "script", "style", "title", "template", "noscript"})
_SPACE_RE = re.compile(r"[ \t\n\r\f\v]+")  # not \xa0: &nbsp; is meant to stay


class _TextBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._line: list[str] = []
        self._line_depth = 0
        self._quote_depth = 0
        self._pre = 0
        self._hidden = 0

    # -- line assembly -----------------------------------------------------

    def _append(self, text: str) -> None:
        if not self._line:
            self._line_depth = self._quote_depth
        self._line.append(text)

    def _end_line(self) -> None:
        text = "".join(self._line)
        depth = self._line_depth if self._line else self._quote_depth
        prefix = "> " * depth
        self.lines.append((prefix + text).rstrip() if depth else text.rstrip())
        self._line = []

    def _block_boundary(self) -> None:
        # A block starts on a fresh line, but empty blocks add no blank lines.
        if "".join(self._line).strip(" "):  # &nbsp; alone is a visible blank line
            self._end_line()
        else:
            self._line = []

    # -- parser callbacks --------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self._hidden += 1
        elif tag == "br":
            self._end_line()
        elif tag in _BLOCK:
            self._block_boundary()
            if tag == "blockquote":
                self._quote_depth += 1
            elif tag == "pre":
                self._pre += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self._end_line()
        elif tag in _BLOCK:
            self._block_boundary()

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCK:
            self._block_boundary()
            if tag == "blockquote":
                self._quote_depth = max(0, self._quote_depth - 1)
            elif tag == "pre":
                self._pre = max(0, self._pre - 1)

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if self._pre:
            parts = data.replace("\r\n", "\n").split("\n")
            for i, part in enumerate(parts):
                if i:
                    self._end_line()
                if part:
                    self._append(part)
            return
        text = _SPACE_RE.sub(" ", data)
        if not "".join(self._line).strip(" "):
            text = text.lstrip(" ")  # no leading space at the start of a line
        if text:
            self._append(text)

    def finish(self) -> str:
        self.close()
        if self._line:
            self._block_boundary()
        lines = [line.replace("\xa0", " ").rstrip() for line in self.lines]
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
        return "\n".join(lines)


def html_to_text(html: str) -> str:
    """Render ``html`` as plain text lines; never raises on bad markup."""
    builder = _TextBuilder()
    try:
        builder.feed(html)
        return builder.finish()
    except Exception:  # html.parser is lenient, but be safe with hostile input
        return "\n".join(builder.lines)
