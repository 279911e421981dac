"""Outgoing mail through an SMTP server with aiosmtplib.

A small pool of connections is kept between sends (a turn's reports, a burst of
answers go out over several at once, at the server's pace); each is checked with
NOOP before reuse, since servers drop idle clients. Every failure is mapped to
:class:`~pbem.mail.base.TemporaryMailError` (4xx, connection refused/lost/timed out)
or :class:`~pbem.mail.base.PermanentMailError` (5xx, an address the server cannot
take), so the outbox knows whether to retry; and after every failure the
connection is dropped, so no half-finished envelope (a MAIL without its DATA) is
left for the next mail to trip over ("503 nested MAIL command").

Non-ASCII addresses (``jdöe@mächine.example``) go out with SMTPUTF8 (RFC 6531)
where the server offers it, and are refused precisely, for that mail only, where
it does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import struct
import time
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


def _refusals(refusals: Mapping[str, tuple[int, str]]) -> str:
    return "; ".join(f"{rcpt}: {code} {text}" for rcpt, (code, text) in refusals.items())


def _is_ascii(address: str) -> bool:
    return address.isascii()


_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close sends RST, drops unsent bytes


class _Slot:
    """One connection of the pool (None until first used, or after a failure)."""

    __slots__ = ("smtp", "used")

    def __init__(self) -> None:
        self.smtp: aiosmtplib.SMTP | None = None
        self.used = 0.0  # time.monotonic() of its last reply


# A connection idle this long is checked with NOOP before reuse (servers drop idle
# clients); within a burst, every mail would pay a round trip for nothing.
IDLE_CHECK_SECONDS = 5.0


class SmtpSender:
    """A :class:`~pbem.mail.base.MailSender` over SMTP: up to ``connections`` mails
    in flight at once, one per connection."""

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
        connections: int = 1,
    ) -> None:
        if connections < 1:
            raise ValueError(f"connections must be 1 or more, not {connections}")
        self.host = host
        self.port = port
        self.username = username
        self._password = password
        self.starttls = starttls
        self.use_tls = use_tls
        self.timeout = timeout
        self.tls_context = tls_context  # None: system trust store, hostname checked
        self.connections = connections
        self._idle: asyncio.Queue[_Slot] = asyncio.Queue()
        for _ in range(connections):
            self._idle.put_nowait(_Slot())
        self._closed = False

    async def _connection(self, slot: _Slot) -> aiosmtplib.SMTP:
        smtp = slot.smtp
        if smtp is not None and smtp.is_connected:
            if time.monotonic() - slot.used < IDLE_CHECK_SECONDS:
                return smtp  # a lost connection still shows: as a send error, then dropped
            try:
                await smtp.noop()
                return smtp
            except (aiosmtplib.SMTPException, OSError) as exc:
                log.info(
                    "SMTP %s:%d: stale connection (%s), reconnecting", self.host, self.port, exc
                )
                self._drop(slot)
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
        if smtp.last_ehlo_response is None:
            await smtp.ehlo()  # the extensions (SMTPUTF8, SIZE) are known from here on
        slot.smtp = smtp
        log.info("connected to SMTP %s:%d", self.host, self.port)
        return smtp

    @staticmethod
    def _drop(slot: _Slot) -> None:
        smtp, slot.smtp = slot.smtp, None
        if smtp is None:
            return
        transport = smtp.transport
        if transport is not None:
            # Reset, not a graceful close: the bytes of a mail given up on (a send the
            # lease bounded, a cancelled task) may still sit in the kernel's buffer on
            # a cut link, and a FIN would deliver them, final dot and all, when the
            # link returns, after a peer has sent the mail (a duplicate).
            sock = transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
            if isinstance(transport, asyncio.WriteTransport):
                transport.abort()
        smtp.close()

    async def send(self, sender: str, recipients: Sequence[str], raw: bytes) -> None:
        if self._closed:
            raise TemporaryMailError("SMTP sender is closed")
        if not recipients:
            raise PermanentMailError("no recipients")
        slot = await self._idle.get()
        try:
            refused = await self._send(slot, sender, recipients, raw)
        except BaseException:
            # Whatever went wrong (a reply, a lost connection, an address that would not
            # encode, a cancelled task), the session may be mid-envelope: start afresh.
            self._drop(slot)
            raise
        finally:
            self._idle.put_nowait(slot)
        if refused:
            # Some accepted, some refused: report both so a retry skips the delivered ones.
            refusals = {rcpt: (resp.code, resp.message) for rcpt, resp in refused.items()}
            delivered = [r for r in recipients if r not in refused]
            worst = max(code for code, _ in refusals.values())
            raise _error_for(
                worst,
                f"some recipients refused: {_refusals(refusals)}",
                refused=refusals,
                delivered_to=delivered,
            )
        # Logged once the caller has done its next step: the outbox writes the mail
        # down as sent first (its sent journal), and a log line's write may hand
        # the interpreter lock to a busy thread for milliseconds before it.
        asyncio.get_running_loop().call_soon(
            log.info, "sent mail from %s to %d recipient(s)", sender, len(recipients)
        )

    async def _send(
        self, slot: _Slot, sender: str, recipients: Sequence[str], raw: bytes
    ) -> Mapping[str, aiosmtplib.SMTPResponse]:
        """One mail over the slot's connection; the refused recipients, if some were."""
        try:
            smtp = await self._connection(slot)
            options: list[str] = []
            wide = [a for a in (sender, *recipients) if not _is_ascii(a)]
            if wide:
                if not smtp.supports_extension("smtputf8"):
                    # Nothing was sent for this mail yet; the next mail is unaffected.
                    raise PermanentMailError(
                        f"address {wide[0]!r} is not ASCII and SMTP {self.host}:{self.port} "
                        "does not offer SMTPUTF8 (RFC 6531): it cannot be sent there"
                    )
                options.append("SMTPUTF8")
            refused, _reply = await smtp.sendmail(
                sender, list(recipients), raw, mail_options=options
            )
            slot.used = time.monotonic()
            return refused
        except aiosmtplib.SMTPRecipientsRefused as exc:
            # Every recipient refused: nothing was sent.
            refusals = {r.recipient: (r.code, r.message) for r in exc.recipients}
            codes = sorted({code for code, _ in refusals.values()})
            # The highest code decides the class; ``refused`` keeps each one's own code.
            worst = codes[-1] if codes else None
            raise _error_for(
                worst,
                f"refused by SMTP {self.host}:{self.port}: {_refusals(refusals)}",
                refused=refusals,
            ) from exc
        except aiosmtplib.SMTPResponseException as exc:
            # Sender refused, DATA refused, AUTH failed, greeting refused ...
            raise _error_for(exc.code, f"SMTP {self.host}:{self.port}: {exc}") from exc
        except (aiosmtplib.SMTPException, OSError) as exc:
            # Connection refused, lost or timed out; TLS failure; unsupported feature.
            raise TemporaryMailError(f"SMTP {self.host}:{self.port}: {exc}") from exc
        except ValueError as exc:  # an address aiosmtplib cannot parse or encode
            raise PermanentMailError(f"bad address: {exc}") from exc

    async def close(self) -> None:
        self._closed = True
        # Wait for every mail in flight: each slot comes back to the idle queue.
        slots = [await self._idle.get() for _ in range(self.connections)]
        for slot in slots:
            smtp, slot.smtp = slot.smtp, None
            if smtp is None:
                continue
            try:
                if smtp.is_connected:
                    await smtp.quit()
            except (aiosmtplib.SMTPException, OSError) as exc:
                log.info("SMTP QUIT failed: %s", exc)
                smtp.close()
        for slot in slots:  # a second close finds them idle and nothing to quit
            self._idle.put_nowait(slot)
