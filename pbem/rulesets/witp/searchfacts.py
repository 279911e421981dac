"""The facts the search rules disclose (13.3-13.8): the fields their kinds share,
and the report they share.

Each kind (a knowledge.Fact) is declared beside the rule that discloses it, in
search.py, searchplay.py, located.py, dummies.py and coastwatchers.py, naming its
fields in the stored JSON's order; searchview.py reads their fields. The report a
contact tells (``SearchReport``) is here: search.py and the strike's contact tell
it, located.py reads it.
"""

from __future__ import annotations

from pbem.core.sides import Side
from pbem.rulesets.witp.knowledge import Fact


class OfTf(Fact):
    """A fact about a side's own TF ``tf`` (its fields follow)."""

    tf: str


class OfOwnersTf(Fact):
    """A fact about ``owner``'s TF ``tf``, told to both sides (its fields follow)."""

    owner: Side
    tf: str


class SearchReport(OfOwnersTf, kind="search-report"):
    """13.5.7: the report the owner composed of its TF, told to finder and owner;
    ``source``: what made the contact (located.Source, or a strike's)."""

    report: str
    source: str
