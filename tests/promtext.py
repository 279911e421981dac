"""A strict reader of the Prometheus text exposition format (version 0.0.4), for
tests: every sample belongs to a family announced by # HELP and # TYPE."""

from __future__ import annotations

import re

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_HELP = re.compile(rf"^# HELP ({_NAME}) (.*)$")
_TYPE = re.compile(rf"^# TYPE ({_NAME}) (counter|gauge|histogram|summary|untyped)$")
_SAMPLE = re.compile(rf"^({_NAME})(?:\{{(.*)\}})? (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(?:,|$)')

Sample = tuple[str, tuple[tuple[str, str], ...]]


def parse(text: str) -> tuple[dict[str, str], dict[Sample, float]]:
    """(family name -> type, (name, labels) -> value); AssertionError on a bad line."""
    assert text.endswith("\n"), "the text must end with a newline"
    types: dict[str, str] = {}
    helps: set[str] = set()
    samples: dict[Sample, float] = {}
    for line in text.splitlines():
        if m := _HELP.match(line):
            assert m.group(1) not in helps, f"second HELP for {m.group(1)}"
            helps.add(m.group(1))
        elif m := _TYPE.match(line):
            assert m.group(1) in helps and m.group(1) not in types, line
            types[m.group(1)] = m.group(2)
        else:
            m = _SAMPLE.match(line)
            assert m, f"not a sample line: {line!r}"
            name, labels, value = m.groups()
            assert name in types, f"{name} has no # TYPE before it"
            pairs: list[tuple[str, str]] = []
            rest = labels or ""
            while rest:
                lm = _LABEL.match(rest)
                assert lm, f"bad labels in {line!r}"
                pairs.append((lm.group(1), lm.group(2)))
                rest = rest[lm.end() :]
            key = (name, tuple(pairs))
            assert key not in samples, f"duplicate sample {line!r}"
            samples[key] = float(value)
    return types, samples
