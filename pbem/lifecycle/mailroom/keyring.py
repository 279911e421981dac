"""The registered keys that could have signed a batch's mail, and their seats.

Read once per Mailroom (a batch of mail): verification and attribution both
ask, and only moderator commands change keys and seats (they ``forget``).
"""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from pbem.storage.enums import KeyKind
from pbem.storage.models import Seat, SeatKey
from pbem.storage.seatkeys import keys_with_fingerprint


class SeatKeys:
    def __init__(self, session: Session) -> None:
        self.s = session
        self._by_fingerprint: dict[str, list[tuple[SeatKey, Seat]]] = {}

    def prefetch(self, fingerprints: Collection[str]) -> list[tuple[SeatKey, Seat]]:
        """Read in one query the keys with these fingerprints not read yet; returns
        those found, with their seats."""
        wanted = set(fingerprints) - self._by_fingerprint.keys()
        for fingerprint in wanted:
            self._by_fingerprint[fingerprint] = []
        found = keys_with_fingerprint(self.s, wanted)
        for key, seat in found:
            self._by_fingerprint[key.fingerprint].append((key, seat))
        return found

    def forget(self) -> None:
        """Ask the database afresh: commands may have registered, replaced or retired keys."""
        self._by_fingerprint.clear()

    def seats_with_key(self, fingerprint: str) -> list[tuple[SeatKey, Seat]]:
        """Registered keys (in use or retired) with this fingerprint, and their seats."""
        if fingerprint not in self._by_fingerprint:
            self._by_fingerprint[fingerprint] = keys_with_fingerprint(self.s, {fingerprint})
        return self._by_fingerprint[fingerprint]

    def ed25519(self, fingerprint: str) -> dict[str, str]:
        """The pbem keys with this fingerprint, fingerprint -> public key."""
        return {
            key.fingerprint: key.material.decode("ascii")
            for key, _ in self.seats_with_key(fingerprint)
            if key.kind == KeyKind.ED25519
        }

    def for_mail(
        self, kind: KeyKind, sender: str | None, issuers: Collection[str]
    ) -> dict[str, bytes]:
        """Certificates that could have signed a whole mail: every registered one (in use
        or retired) of a seat with the sender's address, or that the mail names (an
        OpenPGP primary key's fingerprint or key ID, an S/MIME certificate it carries).
        Which seat signed is decided after verifying (pbem.lifecycle.mailroom.attribute)."""
        query = select(SeatKey).join(Seat, Seat.id == SeatKey.seat_id).where(SeatKey.kind == kind)
        named = {i for i in issuers if len(i) >= 40}
        ids = {i for i in issuers if len(i) == 16}
        conditions = [Seat.email == (sender or "")]
        if named:
            conditions.append(SeatKey.fingerprint.in_(named))
        conditions += [SeatKey.fingerprint.endswith(i) for i in sorted(ids)]
        return {k.fingerprint: k.material for k in self.s.scalars(query.where(or_(*conditions)))}
