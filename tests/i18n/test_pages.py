"""Every page in every language: `<html lang>`, a translated string, the scripts' messages."""

from __future__ import annotations

import json
import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import i18n
from app.web import pages as web
from app.web import players as stats

PAGES = {
    "/": "Create room",
    "/games": "Recent games",
    "/games/some-game": "Replay",
    "/r/someroom": "Take a seat",
}
# /rules is a page of its own per language, not a translation: its heading in each.
RULES_HEADINGS = {
    "en": "How to play",
    "nb": "Slik spiller du",
    "nl": "Zo speel je",
    "sv": "Så spelar du",
    "hu": "A játék szabályai",
}
# ... and the heading of its part on the room option `odds`, with the odds of its example.
ODDS_HEADINGS = {
    "en": "The odds helper",
    "nb": "Sannsynlighetshjelpen",
    "nl": "De kansenhulp",
    "sv": "Oddshjälpen",
    "hu": "Az esélyjelző",
}


@pytest.fixture(scope="module")
def client() -> TestClient:
    app = FastAPI()
    app.include_router(web.router)
    app.include_router(stats.router)  # /players (its page needs no database)
    return TestClient(app)


def html_lang(text: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', text)
    assert found is not None
    return found.group(1)


def embedded(text: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="i18n-messages">(.*?)</script>', text)
    assert found is not None
    data: dict[str, object] = json.loads(found.group(1))
    return data


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
@pytest.mark.parametrize("path", list(PAGES))
def test_page_in_each_language(client: TestClient, path: str, code: str) -> None:
    response = client.get(path, params={"lang": code})
    assert response.status_code == 200
    assert html_lang(response.text) == code
    assert response.headers["content-language"] == code
    with i18n.speaking(code):
        translated = i18n.gettext(PAGES[path])
        rules = i18n.gettext("Rules")
    if code != i18n.DEFAULT:
        assert translated != PAGES[path]
    assert f">{translated}<" in response.text
    assert f'<a href="/rules?lang={code}">{rules}</a>' in response.text  # the link keeps it
    assert (
        f'<option value="{code}" lang="{code}" title="{i18n.LANGUAGES[code]}" selected>'
        in response.text
    )
    assert embedded(response.text)["lang"] == code


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_rules_page_in_each_language(client: TestClient, code: str) -> None:
    response = client.get("/rules", headers={"Cookie": f"lang={code}"})
    assert response.status_code == 200
    assert html_lang(response.text) == code
    assert f"<h1>{RULES_HEADINGS[code]}</h1>" in response.text
    for word in ("dudo", "calza", "palifico"):
        assert word in response.text.lower()
    assert f"<h2>{ODDS_HEADINGS[code]}</h2>" in response.text
    assert "90%" in response.text.replace("\xa0", "").replace(" %", "%")


# The /players page's own texts and the leaderboard script's, in every language.
PLAYERS_TEXTS = ["Players", "Average place", "{count} win", "Page {page} of {pages}"]


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_players_page_in_each_language(client: TestClient, code: str) -> None:
    response = client.get("/players", params={"lang": code})
    assert response.status_code == 200
    assert html_lang(response.text) == code
    with i18n.speaking(code):
        heading = i18n.gettext("Players")
        title = i18n.gettext("Perudo — players")
    assert f"<h1>{heading}</h1>" in response.text
    assert f"<title>{title}</title>" in response.text
    messages = embedded(response.text)["messages"]
    assert isinstance(messages, dict)
    if code != i18n.DEFAULT:  # English is the source: its scripts need no messages
        assert heading != "Players"
        for msgid in PLAYERS_TEXTS[1:]:
            assert msgid in messages, msgid
            assert messages[msgid] not in (msgid, [msgid]), msgid


def test_page_follows_the_browser_then_the_cookie_then_the_query(client: TestClient) -> None:
    header = {"Accept-Language": "sv-SE,sv;q=0.9,en;q=0.5"}
    assert html_lang(client.get("/", headers=header).text) == "sv"
    client.cookies.set("lang", "hu")
    try:
        assert html_lang(client.get("/", headers=header).text) == "hu"
        assert html_lang(client.get("/?lang=nl", headers=header).text) == "nl"
    finally:
        client.cookies.clear()
    assert html_lang(client.get("/").text) == "en"
    response = client.get("/")
    assert "Accept-Language" in response.headers["vary"]


def test_plurals_follow_the_language(client: TestClient) -> None:
    """The turn timer's choices: one form for 1, another for more, as each language says."""
    en = client.get("/?lang=en").text
    assert ">15 seconds<" in en and ">1 minute<" in en and ">1½ minutes<" in en
    nl = client.get("/?lang=nl").text
    assert ">15 seconden<" in nl and ">1 minuut<" in nl and ">2 minuten<" in nl
    hu = client.get("/?lang=hu").text  # Hungarian counts in the singular
    assert ">15 másodperc<" in hu and ">5 perc<" in hu


def test_the_embedded_messages_cannot_close_the_script(client: TestClient) -> None:
    """Messages are data in a JSON block (the CSP allows no inline script): `<` is escaped."""
    for code in i18n.LANGUAGES:
        text = client.get("/", params={"lang": code}).text
        block = text.split('id="i18n-messages">', 1)[1].split("</script>", 1)[0]
        assert "<" not in block


def test_a_language_chosen_by_link_follows_the_header_links(client: TestClient) -> None:
    linked = client.get("/games?lang=nb").text
    for path in ("/", "/games", "/rules"):
        assert f'href="{path}?lang=nb"' in linked
    for page in ("/games", "/games?lang=xx"):  # no choice in the link, or one we do not speak
        plain = client.get(page, headers={"Cookie": "lang=sv"}).text
        assert 'href="/games"' in plain and "?lang=" not in plain.split("</header>")[0]
