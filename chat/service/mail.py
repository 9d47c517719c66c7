"""The e-mail digest of alerts: each due user's unread alerts, one line a paper, and the new
evidence for their saved questions, each with the sentence quoted, sent over SMTP
(`PAPERCHAT_SMTP_URL`) with aiosmtplib.

A digest the server refuses for its recipient (a 550 for an unknown mailbox) is a bounce:
recorded on that user, and the round goes on to the others. A server that cannot be
reached, or refuses the sender, ends the round: every digest after would fail alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

import aiosmtplib
from sqlalchemy.orm import Session, sessionmaker

from chat.rag.watching import Watcher
from chat.service.storage.alerts import list_alerts, refresh_alerts
from chat.service.storage.digests import digest_sent, due_digests
from chat.service.storage.watches import (
    NewsPapers,
    list_watch_alerts,
    news_line,
    news_page,
    refresh_watches,
)
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.index.tex import readable_tex

# Papers listed in one digest; Latest for you has the rest.
DIGEST_PAPERS = 50


class MailError(PaperchatError):
    """The SMTP server cannot be reached or refused a digest."""


class RecipientRefused(MailError):
    """The SMTP server refused a digest for its recipient's address."""


@dataclass
class DigestRound:
    """What one round of digests did: how many were sent, and the addresses the server
    refused, each with its answer."""

    sent: int = 0
    bounced: list[tuple[str, str]] = field(default_factory=list)


def digest_message(
    sender: str,
    to: str,
    papers: list[Paper],
    site_url: str,
    news: Sequence[tuple[str, Paper, str | None]] = (),
) -> EmailMessage:
    """The digest of `papers` for `to`, each linked to its page on `site_url`, after the
    `news` of the saved questions (what to say, the paper it is about, and its page when
    it is not the library's: the reader of the user's upload)."""
    site = site_url.rstrip("/")
    count = len({p.id for p in papers} | {p.id for _, p, _ in news})
    lines = [f"{count} new papers for you on paperchat:", ""]
    for said, paper, page in news[:DIGEST_PAPERS]:
        link = f"{site}{page or f'/papers/{paper.id}'}"
        lines += [said, f"  {readable_tex(paper.title)}", f"  {link}", ""]
    for paper in papers[:DIGEST_PAPERS]:
        lines += [
            readable_tex(paper.title),
            f"  {paper.authors}",
            f"  {site}/papers/{paper.id}",
            "",
        ]
    lines += [f"All of them: {site}/latest", f"What you follow and this digest: {site}/settings"]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = f"paperchat: {count} new papers for you"
    message.set_content("\n".join(lines))
    return message


async def send_message(smtp_url: str, message: EmailMessage) -> None:
    """Send `message` through the server of `smtp_url`; MailError when it fails."""
    parts = urlsplit(smtp_url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise MailError("PAPERCHAT_SMTP_URL must look like smtp://host:port or smtps://host:port")
    try:
        await aiosmtplib.send(
            message,
            hostname=parts.hostname,
            port=parts.port or (465 if parts.scheme == "smtps" else 25),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            use_tls=parts.scheme == "smtps",
            timeout=30,
        )
    except (aiosmtplib.SMTPRecipientsRefused, aiosmtplib.SMTPRecipientRefused) as e:
        raise RecipientRefused(f"the server refused {message['To']}: {_answer(e)}") from e
    except aiosmtplib.SMTPException as e:
        raise MailError(f"cannot send the digest to {message['To']}: {e}") from e


def _answer(error: aiosmtplib.SMTPException) -> str:
    """The server's code and message for a refused recipient (`550 no such user`)."""
    refused = getattr(error, "recipients", None) or [error]
    return "; ".join(
        f"{getattr(r, 'code', '')} {getattr(r, 'message', r)}".strip() for r in refused
    )


async def send_digests(
    sessions: sessionmaker[Session],
    catalog: Catalog,
    smtp_url: str,
    sender: str,
    site_url: str,
    now: datetime | None = None,
    watcher: Watcher | None = None,
) -> DigestRound:
    """Send every due digest that has unread alerts (or, with `watcher`, unread news of the
    saved questions) made since the last one: how many were sent, and which the server
    refused for their recipient (each recorded on its user)."""
    moment = now or datetime.now(UTC)
    done = DigestRound()
    with sessions() as session:
        for user, last in due_digests(session, moment):
            refresh_alerts(session, catalog, user.id)
            alerts = list_alerts(session, user.id)
            fresh = [a for a in alerts if not a.read and (last is None or a.created_at > last)]
            ids = dict.fromkeys(a.paper_id for a in fresh)
            papers = [p for p in map(catalog.get_paper, ids) if p is not None]
            news, told = _news(session, watcher, user.id, last) if watcher else ([], moment)
            bounce = None
            if papers or news:
                message = digest_message(sender, user.email, papers, site_url, news)
                try:
                    await send_message(smtp_url, message)
                except RecipientRefused as e:
                    bounce = str(e)
                    done.bounced.append((user.email, bounce))
                else:
                    bounce = ""
                    done.sent += 1
            # The alerts written while comparing are after `moment`: covered all the same.
            at = max([moment, told, *(a.created_at for a in alerts)])
            digest_sent(session, user.id, at, bounce)
    return done


def _news(
    session: Session, watcher: Watcher, user_id: str, last: datetime | None
) -> tuple[list[tuple[str, Paper, str | None]], datetime]:
    """The unread news of the user's saved questions made since the `last` digest, and when
    the newest news was made (the epoch without any)."""
    refresh_watches(session, watcher, user_id)
    found, newest = [], datetime.fromtimestamp(0, UTC)
    with NewsPapers(watcher) as papers:
        for alert, watch in list_watch_alerts(session, user_id):
            newest = max(newest, alert.created_at)
            if alert.read or (last is not None and alert.created_at <= last):
                continue
            paper = papers.paper(alert)
            if paper is not None:
                found.append((news_line(watch.question, alert), paper, news_page(alert)))
    return found, newest
