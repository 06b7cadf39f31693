"""The translation catalogues are fresh: ``makemessages`` (run on a copy of the project, in a
temporary directory) finds no msgid missing from locale/es or locale/en, and every Spanish
entry is translated and not fuzzy (STYLE.md: English msgids, Spanish msgstr, empty English)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("es", "en")
SKIPPED = {".git", ".venv", "node_modules", "media", "staticfiles", "sent-mail", "tests"}


@dataclass
class Entry:
    """One catalogue entry: its key (context, msgid, plural), flags and translations."""

    key: tuple[str, str, str]
    flags: set[str] = field(default_factory=set)
    msgstr: list[str] = field(default_factory=list)


def _string(line: str) -> str:
    return str(ast.literal_eval(line[line.index('"') :]))


def parse_po(text: str) -> dict[tuple[str, str, str], Entry]:
    """The live entries of a .po file (obsolete ``#~`` ones left out), header excluded."""
    entries: dict[tuple[str, str, str], Entry] = {}
    parts: dict[str, str] = {}
    flags: set[str] = set()
    current: str | None = None

    def close() -> None:
        nonlocal parts, flags
        if parts.get("msgid"):
            key = (parts.get("msgctxt", ""), parts["msgid"], parts.get("msgid_plural", ""))
            strings = [v for k, v in sorted(parts.items()) if k.startswith("msgstr")]
            entries[key] = Entry(key=key, flags=flags, msgstr=strings)
        parts, flags = {}, set()

    for raw in [*text.splitlines(), ""]:
        line = raw.strip()
        if not line:
            close()
            current = None
        elif line.startswith("#,"):
            flags |= {f.strip() for f in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"') and current is not None:
            parts[current] += _string(line)
        else:
            keyword = line.split(" ", 1)[0]
            if keyword == "msgid" and "msgid" in parts:
                close()
            current = keyword
            parts[current] = _string(line)
    return entries


def catalogue(root: Path, language: str) -> dict[tuple[str, str, str], Entry]:
    return parse_po((root / "locale" / language / "LC_MESSAGES" / "django.po").read_text())


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    """A copy of the project whose catalogues ``makemessages`` has just updated."""
    copy = tmp_path_factory.mktemp("catalogue") / "partida"
    shutil.copytree(
        ROOT,
        copy,
        ignore=lambda _dir, names: {
            n for n in names if n in SKIPPED or n.startswith(".") or n == "__pycache__"
        },
    )
    if shutil.which("xgettext") is None:
        pytest.fail("makemessages needs GNU gettext (apt-get install gettext)")
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "--no-obsolete", "-v0"]
        + [f"-l{language}" for language in LANGUAGES],
        cwd=copy,
        check=True,
        capture_output=True,
        env={
            "PATH": "/usr/bin:/bin",
            "SECRET_KEY": "catalogue-check-0123456789abcdefghijklmnopqrstuvwxyz",
            "DATABASE_URL": f"sqlite:///{copy / 'unused.sqlite3'}",
        },
    )
    return copy


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_msgid_is_missing_from_the_catalogue(extracted, language):
    fresh = catalogue(extracted, language)
    committed = catalogue(ROOT, language)
    missing = sorted(key[1] for key in fresh.keys() - committed.keys())
    assert missing == [], f"run makemessages and translate: {missing}"


def test_every_spanish_entry_is_translated_and_none_is_fuzzy():
    entries = catalogue(ROOT, "es").values()
    assert sorted(e.key[1] for e in entries if "fuzzy" in e.flags) == []
    assert sorted(e.key[1] for e in entries if not all(e.msgstr)) == []


def test_the_english_catalogue_has_empty_msgstrs_only():
    # English is the msgids' own language: an msgstr would differ from the source for nothing.
    assert sorted(e.key[1] for e in catalogue(ROOT, "en").values() if any(e.msgstr)) == []


def test_the_parser_reads_contexts_plurals_flags_and_continuations():
    text = (
        'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=3;\\n"\n\n'
        '#: a.py:1\n#, fuzzy, python-format\nmsgctxt "door"\nmsgid "Open"\nmsgstr "Abrir"\n\n'
        'msgid "%(n)s day"\nmsgid_plural "%(n)s days"\nmsgstr[0] "%(n)s día"\n'
        'msgstr[1] ""\nmsgstr[2] "%(n)s días"\n\n'
        'msgid ""\n"two "\n"lines"\nmsgstr "dos líneas"\n\n#~ msgid "old"\n#~ msgstr "viejo"\n'
    )
    entries = parse_po(text)
    assert set(entries) == {
        ("door", "Open", ""),
        ("", "%(n)s day", "%(n)s days"),
        ("", "two lines", ""),
    }
    assert entries[("door", "Open", "")].flags == {"fuzzy", "python-format"}
    assert entries[("", "%(n)s day", "%(n)s days")].msgstr == ["%(n)s día", "", "%(n)s días"]
    assert entries[("", "two lines", "")].msgstr == ["dos líneas"]
