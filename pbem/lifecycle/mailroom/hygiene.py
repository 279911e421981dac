"""Hygiene: what a mail's headers and its sender decide before anything is read.

Whether it is answered at all (bounces, auto-replies, lists, loops, our own
mail: ``pbem.intake.hygiene``), whether it is a copy of a mail answered before
(the same sender and Message-ID), and whether its sender is over the rate limit.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta

from sqlalchemy import func, select

from pbem.intake.hygiene import Hygiene, classify
from pbem.intake.mime import ParsedMail
from pbem.lifecycle.desk import Desk
from pbem.outbox.queue import loop_token
from pbem.storage.enums import InboundStatus
from pbem.storage.models import InboundMail


class Screen:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        # Sender -> mails answered in the rate window, this batch's included.
        self._answered: dict[str, int] = {}
        # (sender, Message-ID) of mail processed before, and which were looked up.
        self._seen_message_ids: set[tuple[str, str]] = set()
        self._copies_looked_up: set[tuple[str, str]] = set()

    def prefetch(self, mails: Collection[ParsedMail]) -> None:
        """What screening this batch will ask mail by mail, in two queries."""
        self._count_answered({mail.from_addr for mail in mails if mail.from_addr})
        copies = {
            (m.from_addr, m.message_id)
            for m in mails
            if m.from_addr is not None and m.message_id is not None
        }
        if copies:
            self._look_up_copies(copies)

    def verdict(self, mail: ParsedMail) -> Hygiene:
        config = self.desk.config
        return classify(
            mail,
            own_addresses={config.moderator.address},
            loop_token=loop_token(config),
            max_size=config.intake.max_size,
        )

    def is_copy(self, row: InboundMail, mail: ParsedMail) -> bool:
        """Whether an earlier mail from the same sender had the same Message-ID."""
        if not mail.message_id or not mail.from_addr:
            return False
        key = (mail.from_addr, mail.message_id)
        if key not in self._copies_looked_up:
            self._look_up_copies({key}, besides=row.id)
        if key in self._seen_message_ids:
            return True
        self._seen_message_ids.add(key)
        return False

    def _look_up_copies(self, keys: set[tuple[str, str]], besides: int | None = None) -> None:
        """Note which (sender, Message-ID) of ``keys`` earlier processed mail had."""
        self._copies_looked_up |= keys
        query = select(InboundMail.sender, InboundMail.message_id).where(
            InboundMail.sender.in_({sender for sender, _ in keys}),
            InboundMail.message_id.in_({mid for _, mid in keys}),
            InboundMail.status != InboundStatus.NEW,
        )
        if besides is not None:
            query = query.where(InboundMail.id != besides)
        for sender, message_id in self.desk.session.execute(query):
            if sender is not None and message_id is not None and (sender, message_id) in keys:
                self._seen_message_ids.add((sender, message_id))

    def within_rate_limit(self, sender: str) -> bool:
        """Whether a mail of ``sender`` may be answered: at most ``rate_limit``
        answered mails per ``rate_window`` seconds. Counted in the database, so
        the limit holds across worker processes, daemons and restarts. Never the
        moderator's own mail: an EXTEND must not be dropped."""
        if sender.lower() in self.desk.config.moderator.command_addresses:
            return True
        if sender not in self._answered:
            self._count_answered({sender})
        if self._answered[sender] >= self.desk.config.intake.rate_limit:
            return False
        self._answered[sender] += 1
        return True

    def _count_answered(self, senders: set[str]) -> None:
        since = self.desk.now - timedelta(seconds=self.desk.config.intake.rate_window)
        wanted = senders - self._answered.keys()
        if not wanted:
            return
        counts = {
            sender: n
            for sender, n in self.desk.session.execute(
                select(InboundMail.sender, func.count())
                .where(
                    InboundMail.sender.in_(wanted),
                    InboundMail.processed_at > since,
                    InboundMail.status == InboundStatus.ANSWERED,
                )
                .group_by(InboundMail.sender)
            )
        }
        for sender in wanted:
            self._answered[sender] = counts.get(sender, 0)
