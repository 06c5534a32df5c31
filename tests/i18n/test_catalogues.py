"""Every catalogue holds exactly the messages the templates and scripts use, each translated,
with the same placeholders and markup as its English source.

The extraction is the one `pybabel extract` runs (babel.cfg, plus the scripts' keywords), so
a message added to a page or a script without a translation, or left behind in a catalogue
after the page dropped it, fails here.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from app import i18n

ROOT = Path(__file__).resolve().parents[2]
# static/js/i18n.js: t(msgid), n(singular, plural, count), tNodes(msgid).
KEYWORDS = {**DEFAULT_KEYWORDS, "t": None, "n": (1, 2), "tNodes": None}
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
PLACEHOLDER = re.compile(r"\{\w+\}|%\(\w+\)[sd]|</?\w+>")

# A script's call with a literal first argument: t("…"), n("…", …) or tNodes("…").
SCRIPT_CALL = re.compile(r'\b(?:t|n|tNodes)\(\s*"((?:[^"\\]|\\.)*)"')

MessageId = tuple[str, ...]


def key(message_id: str | tuple[str, ...] | list[str]) -> MessageId:
    return (message_id,) if isinstance(message_id, str) else tuple(message_id)


@cache
def used() -> dict[MessageId, list[str]]:
    """Every message the templates and scripts use, with where."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[MessageId, list[str]] = {}
    for filename, lineno, message, *_ in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS
    ):
        found.setdefault(key(message), []).append(f"{filename}:{lineno}")
    return found


def catalogue(code: str) -> Catalog:
    with open(i18n.po_path(code), "rb") as po:
        return read_po(po, locale=code)


def test_the_pages_and_scripts_have_messages() -> None:
    files = {place.split(":")[0] for places in used().values() for place in places}
    assert any(f.startswith("templates/") for f in files)
    assert any(f.startswith("static/js/") for f in files)


def test_the_extraction_finds_every_script_message() -> None:
    """Babel's extractor skips a t() inside a template literal or inside another t()'s
    arguments; such a message would be in no catalogue and never translated, so it fails here."""
    extracted = {message[0] for message in used()}
    missed = []
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith(("//", "*", "/*")):
                continue  # comments show calls as examples
            for match in SCRIPT_CALL.finditer(line):
                if json.loads(f'"{match[1]}"') not in extracted:
                    missed.append(f"{path.relative_to(ROOT)}:{number}: {match[1]!r}")
    assert not missed, f"calls the extraction does not see: {missed}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_catalogue_has_every_message_and_no_stale_one(code: str) -> None:
    cat = catalogue(code)
    have = {key(m.id) for m in cat if m.id}
    missing = sorted((m, used()[m][0]) for m in set(used()) - have)
    stale = sorted(have - set(used()))
    assert not missing, f"{code}: messages missing from the catalogue: {missing}"
    assert not stale, f"{code}: messages no template or script uses any more: {stale}"
    assert not cat.obsolete, f"{code}: obsolete (#~) entries: {list(cat.obsolete)}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(code: str) -> None:
    cat = catalogue(code)
    problems = []
    for m in cat:
        if not m.id:
            continue
        ids = key(m.id)
        strings = key(m.string)
        if m.fuzzy or not all(strings):
            problems.append(f"untranslated or fuzzy: {ids[0]!r}")
            continue
        if len(ids) > 1 and len(strings) != cat.num_plurals:
            problems.append(f"{len(strings)} plural forms, want {cat.num_plurals}: {ids[0]!r}")
        wanted = set(PLACEHOLDER.findall(" ".join(ids)))
        for string in strings:
            # A plural form may leave the number out ("ace" for one), never add a name.
            got = set(PLACEHOLDER.findall(string))
            if not got <= wanted or not (wanted - {"{count}", "%(num)d", "%(num)s"}) <= got:
                problems.append(f"placeholders {sorted(got)} for {sorted(wanted)}: {ids[0]!r}")
    assert not problems, f"{code}:\n" + "\n".join(problems)


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_scripts_get_every_script_message(code: str) -> None:
    """The JSON each page embeds holds every message used under static/js/, in every form."""
    script_messages = {m for m, places in used().items() if any("static/js/" in p for p in places)}
    js = i18n.language(code).js
    assert js["lang"] == code
    assert set(js["messages"]) == {m[0] for m in script_messages}
    for message in script_messages:
        value = js["messages"][message[0]]
        assert isinstance(value, list) == (len(message) > 1), message
