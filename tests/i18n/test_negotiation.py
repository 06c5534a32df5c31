"""Which language a request gets: `?lang=`, else the `lang` cookie, else Accept-Language,
else English."""

from __future__ import annotations

import pytest

from app.i18n import negotiate


@pytest.mark.parametrize(
    ("query", "cookie", "accept", "expected"),
    [
        (None, None, None, "en"),
        (None, None, "", "en"),
        ("nb", "nl", "sv", "nb"),  # the query beats everything
        (None, "nl", "sv", "nl"),  # then the cookie
        (None, None, "sv", "sv"),  # then the browser
        ("xx", "hu", "sv", "hu"),  # an unknown query is passed over
        ("xx", "yy", "sv", "sv"),
        ("xx", "yy", "de", "en"),
        ("NB", None, None, "nb"),
        ("nb-NO", None, None, "nb"),
        (None, None, "nb-NO,nb;q=0.9,en;q=0.8", "nb"),
        (None, None, "de-DE,de;q=0.9,nl;q=0.8,en;q=0.7", "nl"),  # the first we speak
        (None, None, "en;q=0.5,hu", "hu"),  # by quality, not position
        (None, None, "hu;q=0,sv", "sv"),  # q=0 means "not this one"
        (None, None, "no", "nb"),  # Norwegian without a script
        (None, None, "nn-NO", "nb"),
        (None, None, "sv_SE", "sv"),
        (None, None, "*", "en"),
        (None, None, "hu;q=bad,nl", "nl"),
        ("", "", "nl", "nl"),
    ],
)
def test_negotiate(
    query: str | None, cookie: str | None, accept: str | None, expected: str
) -> None:
    assert negotiate(query, cookie, accept) == expected
