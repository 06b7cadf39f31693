"""The one cleaner of every user text: no NUL, no invisible control characters, and no line
break in a text that becomes one line (a name, a title, a header, a file name).

PostgreSQL refuses NUL (``\\x00``) in text columns (a 500, and the draft being typed lost);
a line separator in a name breaks the e-mail headers and file names made of it. These
characters are never meant: they come from a paste or a crafted request, and nothing shows them.
So they are **removed**, not refused: an autosaved draft is then never lost for a character
the writer cannot see, and a form never asks the user to find an invisible character.

- ``clean_text(value)``: multi-line text (a post, a note, a summary): removes NUL and the other
  C0/C1 control characters except tab and line feed, turns ``\\r\\n`` and lone ``\\r`` into
  ``\\n``, and the Unicode line/paragraph separators (U+2028, U+2029, U+0085) into ``\\n``;
- ``clean_line(value)``: one line (a name, a title, a reason, an NPC's name): the same, and
  every line break or tab becomes one space.

Both keep everything else (accents, emoji, ``<`` — escaping is the templates' job). Services
call them (the root: every surface goes through a service); ``CleanCharField`` (forms) and
``CleanSerializerCharField`` (the API) clean before their validators run, so a length check
counts what is stored.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django import forms
from rest_framework import serializers

# C0 controls but tab (\x09) and line feed (\x0a), DEL, C1 controls (U+0080–U+009F) but NEL
# (U+0085, a line break), and the bidirectional/zero-width format characters that only hide
# what a text says (U+200B–U+200F, U+202A–U+202E, U+2066–U+2069, U+FEFF).
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x84\x86-\x9f"
    "\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)
_BREAKS = re.compile("\r\n|[\r\u2028\u2029\x85]")
_WHITESPACE_RUN = re.compile("[\t\n]+")


def clean_text(value: Any) -> str:
    """``value`` as multi-line text without control characters (``None`` → ``""``).

    Line breaks of any kind become ``\\n``; tabs stay. Not stripped: the caller decides.
    """
    text = "" if value is None else str(value)
    return _INVISIBLE.sub("", _BREAKS.sub("\n", text))


def clean_line(value: Any) -> str:
    """``value`` as one line: ``clean_text`` and every run of line breaks or tabs → one space.

    Not stripped: the caller decides (most strip).
    """
    return _WHITESPACE_RUN.sub(" ", clean_text(value))


class CleanCharField(forms.CharField):
    """A form ``CharField`` whose value goes through ``clean_line`` (or ``clean_text`` with
    ``multiline=True``) before stripping and validation: a NUL byte is removed, not a 500."""

    def __init__(self, *args: Any, multiline: bool = False, **kwargs: Any) -> None:
        self.multiline = multiline
        super().__init__(*args, **kwargs)

    def to_python(self, value: Any) -> str:
        if value not in self.empty_values:
            value = clean_text(value) if self.multiline else clean_line(value)
        return str(super().to_python(value))


class CleanMultilineCharField(CleanCharField):
    """``CleanCharField(multiline=True)`` as a class (for ``ModelForm.Meta.field_classes``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("multiline", True)
        super().__init__(*args, **kwargs)


class CleanSerializerCharField(serializers.CharField):
    """The API's ``CharField`` with the same cleaning as ``CleanCharField``."""

    def __init__(self, *args: Any, multiline: bool = False, **kwargs: Any) -> None:
        self.multiline = multiline
        super().__init__(*args, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, str):
            data = clean_text(data) if self.multiline else clean_line(data)
        return str(super().to_internal_value(data))


def fold(value: str) -> str:
    """``value`` with accents removed and case folded (``"SÓLO"`` → ``"solo"``): NFKD, drop the
    combining marks, ``casefold``. For searching where the database cannot fold (SQLite)."""
    decomposed = unicodedata.normalize("NFKD", value)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
