"""Outgoing mail through an SMTP server with aiosmtplib.

One connection is kept between sends (a turn's reports go out in a burst) and checked
with NOOP before reuse, since servers drop idle clients. Every failure is mapped to
:class:`~pbem.mail.base.TemporaryMailError` (4xx, connection refused/lost/timed out)
or :class:`~pbem.mail.base.PermanentMailError` (5xx), so the outbox knows whether to
retry.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Mapping, Sequence

import aiosmtplib

from pbem.mail.base import PermanentMailError, SendError, TemporaryMailError

log = logging.getLogger("pbem.mail.smtp")


def _error_for(
    code: int | None,
    message: str,
    *,
    refused: Mapping[str, tuple[int, str]] | None = None,
    delivered_to: Sequence[str] = (),
) -> SendError:
    # RFC 5321 4.2.1: 5yz is permanent, everything else (4yz, no reply at all) may heal.
    kind = PermanentMailError if code is not None and 500 <= code < 600 else TemporaryMailError
    return kind(message, code=code, refused=refused, delivered_to=delivered_to)


class SmtpSender:
    """A :class:`~pbem.mail.base.MailSender` over SMTP. Sends one mail at a time."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        username: str | None = None,
        password: str | None = None,
        starttls: bool = False,
        use_tls: bool = False,
        timeout: float = 30,
        tls_context: ssl.SSLContext | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.username = username
        self._password = password
        self.starttls = starttls
        self.use_tls = use_tls
        self.timeout = timeout
        self.tls_context = tls_context  # None: system trust store, hostname checked
        self._smtp: aiosmtplib.SMTP | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    async def _connection(self) -> aiosmtplib.SMTP:
        if self._smtp is not None and self._smtp.is_connected:
            try:
                await self._smtp.noop()
                return self._smtp
            except (aiosmtplib.SMTPException, OSError) as exc:
                log.info(
                    "SMTP %s:%d: stale connection (%s), reconnecting", self.host, self.port, exc
                )
                await self._drop()
        smtp = aiosmtplib.SMTP(
            hostname=self.host,
            port=self.port,
            username=self.username,
            password=self._password,
            # False, not None: None would let aiosmtplib upgrade on its own whenever offered.
            start_tls=self.starttls,
            use_tls=self.use_tls,
            timeout=self.timeout,
            tls_context=self.tls_context,
        )
        await smtp.connect()
        self._smtp = smtp
        log.info("connected to SMTP %s:%d", self.host, self.port)
        return smtp

    async def _drop(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            smtp.close()

    async def send(self, sender: str, recipients: Sequence[str], raw: bytes) -> None:
        if self._closed:
            raise TemporaryMailError("SMTP sender is closed")
        if not recipients:
            raise PermanentMailError("no recipients")
        async with self._lock:
            try:
                smtp = await self._connection()
                refused, _reply = await smtp.sendmail(sender, list(recipients), raw)
            except aiosmtplib.SMTPRecipientsRefused as exc:
                # Every recipient refused: nothing was sent.
                refusals = {r.recipient: (r.code, r.message) for r in exc.recipients}
                codes = sorted({code for code, _ in refusals.values()})
                # The highest code decides the class; ``refused`` keeps each one's own code.
                worst = codes[-1] if codes else None
                raise _error_for(
                    worst, f"all recipients refused: {refusals}", refused=refusals
                ) from exc
            except aiosmtplib.SMTPResponseException as exc:
                # Sender refused, DATA refused, AUTH failed, greeting refused ...
                await self._drop()
                raise _error_for(exc.code, f"SMTP {self.host}:{self.port}: {exc}") from exc
            except (aiosmtplib.SMTPException, OSError) as exc:
                # Connection refused, lost or timed out; TLS failure; unsupported feature.
                await self._drop()
                raise TemporaryMailError(f"SMTP {self.host}:{self.port}: {exc}") from exc
            except ValueError as exc:  # an address aiosmtplib cannot parse
                raise PermanentMailError(f"bad address: {exc}") from exc
        if refused:
            # Some accepted, some refused: report both so a retry skips the delivered ones.
            refusals = {rcpt: (resp.code, resp.message) for rcpt, resp in refused.items()}
            delivered = [r for r in recipients if r not in refused]
            worst = max(code for code, _ in refusals.values())
            raise _error_for(
                worst,
                f"some recipients refused: {refusals}",
                refused=refusals,
                delivered_to=delivered,
            )
        log.info("sent mail from %s to %d recipient(s)", sender, len(recipients))

    async def close(self) -> None:
        self._closed = True
        async with self._lock:
            smtp, self._smtp = self._smtp, None
        if smtp is None:
            return
        try:
            if smtp.is_connected:
                await smtp.quit()
        except (aiosmtplib.SMTPException, OSError) as exc:
            log.info("SMTP QUIT failed: %s", exc)
            smtp.close()
