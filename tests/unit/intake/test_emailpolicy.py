"""pbem.emailpolicy: policy.default with cached header classes and objects. It
must parse and fold exactly as policy.default, and its cache must stay bounded
whatever mail arrives."""

from __future__ import annotations

import email.policy

from hypothesis import given
from hypothesis import strategies as st

from pbem.emailpolicy import _MEMO_CHARS, _MEMO_SIZE, DEFAULT, CachedHeaderRegistry

NAMES = st.sampled_from(
    ["Subject", "From", "To", "Message-ID", "References", "Content-Type", "Date", "X-Other"]
)


def _outcome(policy: email.policy.EmailPolicy, name: str, value: str) -> tuple[object, ...]:
    """What parsing and folding one header gives, or the error it raises (the
    standard library raises on some hostile values; ours must do the same)."""
    try:
        header = policy.header_factory(name, value)
        folded = header.fold(policy=policy)
    except Exception as exc:
        return ("raises", type(exc))
    return (str(header), [type(d) for d in header.defects], folded)


@given(NAMES, st.text(max_size=200).map(lambda v: " ".join(v.splitlines())))
def test_headers_parse_and_fold_as_under_policy_default(name, value):
    ours = _outcome(DEFAULT, name, value)
    assert ours == _outcome(email.policy.default, name, value)
    # The second time the header object comes from the cache: the same again.
    assert _outcome(DEFAULT, name, value) == ours


def test_the_same_header_is_parsed_once():
    registry = CachedHeaderRegistry()
    first = registry("Content-Type", "text/plain; charset=utf-8")
    assert registry("Content-Type", "text/plain; charset=utf-8") is first
    assert registry("content-type", "text/plain; charset=utf-8") is not first  # its own name


def test_the_cache_stays_bounded_and_skips_long_values():
    registry = CachedHeaderRegistry()
    long_value = "x" * (_MEMO_CHARS + 1) + "@example.org"
    assert registry("From", long_value) is not registry("From", long_value)
    assert registry("Subject", "orders") is not registry("Subject", "orders")  # never repeats
    for i in range(3 * _MEMO_SIZE):
        registry("From", f"flood{i}@example.org")
    assert len(registry._made) <= _MEMO_SIZE
