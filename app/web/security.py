"""Security headers on every HTTP response: no MIME sniffing, no referrer leaving the site,
never framed by another site.

A pure ASGI middleware (no `BaseHTTPMiddleware`: it would buffer and cost every request a
task). Pages keep the policy `app.web.pages` gives them; any other response without a policy gets
one that forbids everything, and the OpenAPI pages get what their CDN bundle needs. Every
policy ends up with `frame-ancestors 'none'`. Install with `install(app)` in `create_app`.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import FastAPI
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# A JSON answer, a static file or an error page loads nothing and may be framed by nobody.
LOCKED_DOWN_POLICY = (
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
# FastAPI's /docs and /redoc pages load their bundle from a CDN and start it inline; they show
# only our own schema, never anything a player wrote.
DOCS_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com "
    "https://cdn.redoc.ly; connect-src 'self'; worker-src blob:; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'"
)
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
}
CSP = "Content-Security-Policy"


def with_frame_ancestors(policy: str) -> str:
    """`policy`, forbidding framing unless it already says who may frame the page."""
    if "frame-ancestors" in policy:
        return policy
    return f"{policy.rstrip().rstrip(';')}; frame-ancestors 'none'"


class SecurityHeaders:
    """Adds `HEADERS` and a Content-Security-Policy to each HTTP response that lacks them."""

    def __init__(self, app: ASGIApp, docs_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.docs_paths = frozenset(docs_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        default_policy = DOCS_POLICY if scope["path"] in self.docs_paths else LOCKED_DOWN_POLICY

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
                headers[CSP] = with_frame_ancestors(headers.get(CSP) or default_policy)
            await send(message)

        await self.app(scope, receive, send_secured)


def install(app: FastAPI) -> None:
    """Put `SecurityHeaders` around `app` (before it starts serving)."""
    docs = [app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url]
    app.add_middleware(SecurityHeaders, docs_paths=[path for path in docs if path])
