"""The five languages: which one a request gets, and each one's messages for Jinja and the JS.

The `.po` catalogues in `locale/` are the only source. They are compiled in memory when first
used (no `.mo` file to build, commit or go stale); the messages whose locations lie under
`static/js/` also go to the page as one JSON data block, read by `static/js/i18n.js`.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from app.paths import ROOT

LOCALE_DIR = ROOT / "locale"
DEFAULT = "en"
# Each language's own name, as the switcher shows it.
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "nb": "Norsk bokmål",
    "nl": "Nederlands",
    "sv": "Svenska",
    "hu": "Magyar",
}
# Tags a browser may send for a language we speak under another code.
ALIASES: Mapping[str, str] = {"no": "nb", "nn": "nb"}
COOKIE = "lang"
JS_SOURCES = "static/js/"
# CLDR plural categories in gettext's order: a catalogue's plural form i is the i-th one used.
_PLURAL_ORDER = ("zero", "one", "two", "few", "many", "other")


@dataclass(frozen=True)
class Language:
    """One language's compiled messages: `translations` for Jinja, `js` for the page's scripts."""

    code: str
    translations: NullTranslations
    js: dict[str, Any]


def known(tag: str | None) -> str | None:
    """`nb-NO` -> `nb`, `no` -> `nb`; None for a language we do not speak."""
    if not tag:
        return None
    primary = tag.strip().replace("_", "-").split("-")[0].lower()
    primary = ALIASES.get(primary, primary)
    return primary if primary in LANGUAGES else None


def _accepted(header: str) -> Iterator[str]:
    """The tags of an Accept-Language header, most wanted first (q=0 means "not this one")."""
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and quality > 0:
            ranked.append((-quality, position, tag))
    return (tag for _, _, tag in sorted(ranked))


def negotiate(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    """`?lang=`, else the `lang` cookie, else Accept-Language, else English."""
    for choice in (query, cookie):
        if (code := known(choice)) is not None:
            return code
    for tag in _accepted(accept_language or ""):
        if (code := known(tag)) is not None:
            return code
    return DEFAULT


def po_path(code: str) -> str:
    return str(LOCALE_DIR / code / "LC_MESSAGES" / "messages.po")


@cache
def language(code: str) -> Language:
    """A language's messages, compiled from its `.po` once per process; English is the source."""
    if code == DEFAULT:
        return Language(
            code, NullTranslations(), {"lang": code, "plurals": ["one", "other"], "messages": {}}
        )
    with open(po_path(code), "rb") as po:
        catalog = read_po(po, locale=code)
    mo = io.BytesIO()
    write_mo(mo, catalog, use_fuzzy=False)
    mo.seek(0)
    messages: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if not any(path.startswith(JS_SOURCES) for path, _ in message.locations):
            continue
        key = message.id[0] if isinstance(message.id, tuple | list) else message.id
        if isinstance(message.string, tuple | list):
            if all(message.string):
                messages[key] = list(message.string)
        elif message.string:
            messages[key] = message.string
    tags = Locale.parse(code).plural_form.tags | {"other"}
    js = {
        "lang": code,
        "plurals": [tag for tag in _PLURAL_ORDER if tag in tags],
        "messages": messages,
    }
    return Language(code=code, translations=Translations(mo, domain="messages"), js=js)


_current: ContextVar[str] = ContextVar("language", default=DEFAULT)


@contextmanager
def speaking(code: str) -> Iterator[Language]:
    """Within this block, the Jinja gettext functions answer in `code`."""
    token = _current.set(code)
    try:
        yield language(code)
    finally:
        _current.reset(token)


def gettext(message: str) -> str:
    return language(_current.get()).translations.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return language(_current.get()).translations.ngettext(singular, plural, count)
