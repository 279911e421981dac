"""Every fact kind the War in the Pacific rules can tell a side has a sentence
(pbem/rulesets/witp/sentences.py): the report tells no fact as a key-value dump."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pbem.rulesets.witp as witp
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.sentences import SENTENCES, sentence

WITP = Path(witp.__file__).parent


def _emitted_kinds() -> set[str]:
    """Every kind the rules code declares (``kind="..."`` on a Fact), by grep, checked
    against the kinds registered once every module of the ruleset is imported."""
    grepped = {
        m.group(1)
        for path in WITP.rglob("*.py")
        for m in re.finditer(r'\bkind="([a-z0-9-]+)"', path.read_text(encoding="utf-8"))
    }
    for mod in pkgutil.walk_packages(witp.__path__, "pbem.rulesets.witp."):
        importlib.import_module(mod.name)
    registered = {  # the rules' own (a test may register kinds of its own)
        k for k, c in Fact._KINDS.items() if k and c.__module__.startswith(witp.__name__)
    }
    assert grepped == registered, grepped ^ registered
    return registered


def test_every_kind_the_rules_emit_has_a_sentence_template() -> None:
    kinds = _emitted_kinds()
    assert len(kinds) > 60
    missing = sorted(kinds - set(SENTENCES))
    assert not missing, f"kinds without a sentence template: {missing}"


def test_no_template_for_a_kind_the_rules_do_not_emit() -> None:
    assert not set(SENTENCES) - _emitted_kinds()


def test_a_sentence_reads_without_the_rulebook_and_names_its_rule() -> None:
    told = sentence(
        "carrier-coordination",
        {"tf": "TF3", "air_rating": 7, "first": 4, "needed": 99, "second": None,
         "percent": 100, "asterisk": False, "cut": "none", "fighters": 0, "bombers": 4},
        "allied",
        "8.1.4",
    )  # fmt: skip
    assert told == (
        "Carrier coordination, TF3 (air rating 7): 4 bombers and no fighters launch; "
        "2D10 4, any roll up to 99 passes. [8.1.4]"
    )


def test_a_sentence_says_your_for_the_readers_own_tf_and_the_side_for_the_enemys() -> None:
    fact = {"owner": "allied", "tf": "TF1", "hex": "E2324", "label": "Located 1N", "source": "air"}
    assert sentence("located", fact, "allied").startswith("Your TF1 is Located at E2324")
    assert sentence("located", fact, "japanese").startswith("The Allied TF1 is Located")


def test_no_sentence_is_a_key_value_dump() -> None:
    """Each template, given a fact with every field missing, still makes words, not
    ``key value; key value`` (and never raises)."""
    for kind in SENTENCES:
        told = sentence(kind, {}, "allied", "1.0")
        assert told.endswith("[1.0]") and "{" not in told and "kind " not in told, kind
