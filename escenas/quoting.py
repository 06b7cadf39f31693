"""Quoting a post: the Markdown quote a reader inserts in their own post.

Built on the server from what the quoting reader may see and nothing else: the post comes
through ``escenas.access.access_post`` (a whisper not addressed to them, a deleted post or a
scene they may not read is a 404), and only its public text is quoted — never its note to the
master, never its rolls (hidden ones included), never the inside of its spoilers. The quote
keeps the author (the name shown) and a link to the post; ``@`` in the quoted text is escaped
so quoting does not tell the quoted mentions again.
"""

from __future__ import annotations

import re

from django.urls import reverse
from django.utils.translation import gettext as _

from escenas.models import Post
from escenas.rendering import spoiler_segments

QUOTE_MAX_CHARS = 400
"""Longest excerpt quoted (characters of the Markdown source), cut at a word."""

_QUOTED_LINE = re.compile(r"^ {0,3}>")


def excerpt(body: str, *, length: int = QUOTE_MAX_CHARS) -> str:
    """The part of a post's Markdown worth quoting: without the lines that quote others
    (no quote pyramids), spoilers as ``(…)``, at most ``length`` characters cut at a word
    with ``…``."""
    pieces = []
    for title, source in spoiler_segments(body):
        pieces.append("(…)" if title is not None else source)
    lines = [line for line in "\n".join(pieces).splitlines() if not _QUOTED_LINE.match(line)]
    text = "\n".join(lines).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    if len(text) > length:
        cut = text[:length]
        space = cut.rfind(" ")
        text = (cut[:space] if space > length // 2 else cut).rstrip() + " …"
    return text


def quote_markdown(post: Post) -> str:
    """The Markdown quote of ``post`` (one the reader may see: fetch it with ``access_post``),
    ending with a blank line, ready to insert before the reader's reply. ``post.campaign``
    must be loaded (``campaign_posts`` selects it)."""
    url = reverse("escenas:post", kwargs={"slug": post.campaign.slug, "pk": post.pk})
    head = _("**%(name)s** [wrote](%(url)s):") % {
        "name": _escape(re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", post.speaker_name)),
        "url": url,
    }
    text = _escape(excerpt(post.body))
    lines = [head, "", *text.splitlines()] if text else [head]
    return "\n".join(f"> {line}".rstrip() for line in lines) + "\n\n"


def _escape(text: str) -> str:
    # "\@" is a literal "@" (CommonMark escapes): a quote names nobody again.
    return text.replace("@", "\\@")
