"""Browser protections on every answer, cookies that stay on https, and proxy headers believed only
when the server is told a proxy is in front of it."""
from __future__ import annotations

import pytest

from companion import create_app
from companion.platform.web.address import base_for_phones
from tests.helpers import bearer, csrf_from, new_table

HTMX = {"HX-Request": "true"}


def _answers(client):
    """One answer of each sort: a page, a fragment, the API, a static file, errors (page and API)."""
    table = new_table(client)
    code = table["code"]
    return {
        "page": client.get("/"),
        "fragment": client.get(f"/t/{code}/board", headers=HTMX),
        "api": client.get(f"/api/tables/{code}"),
        "api write": client.post(f"/api/tables/{code}/entries", json={"kind": "score", "dice": [1, 1, 1, 1, 1],
                                                                       "category": "ones"},
                                 headers=bearer(table["seats"][0]["token"])),
        "static": client.get("/static/app.js"),
        "error page": client.get("/t/ZZZZZZ"),
        "api error": client.get("/api/tables/ZZZZZZ"),
        "refused": client.post("/tables", data={"game": "dicez"}),  # no CSRF token
        "not modified": client.get(f"/api/tables/{code}", headers={"If-None-Match": "*"}),
    }


def test_every_answer_carries_the_browser_protections(client):
    for sort, resp in _answers(client).items():
        csp = resp.headers.get("Content-Security-Policy", "")
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives.get("script-src") == "'self'", sort  # no inline script, no eval
        assert directives.get("frame-ancestors") == "'none'", sort  # no other site frames a sheet
        assert directives.get("object-src") == "'none'", sort
        assert directives.get("style-src-elem") == "'self'", sort  # no injected <style> elements
        assert resp.headers.get("X-Content-Type-Options") == "nosniff", sort
        assert resp.headers.get("X-Frame-Options") == "DENY", sort
        # join and hand-over links carry secrets: never sent to another site in a Referer
        assert resp.headers.get("Referrer-Policy") == "same-origin", sort


def test_no_template_holds_inline_script():
    """script-src 'self' would block it: every script is a file under static/."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for path in [*(root / "templates").rglob("*.html"), *(root / "companion" / "games").glob("*/templates/**/*.html")]:
        html = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag, (path, tag)
        assert not re.search(r"<script\b[^>]*>\s*[^<\s]", html), path
        assert not re.search(r"\son[a-z]+\s*=", html), path  # onclick= and the like
        assert not re.search(r"\bhx-on", html), path  # htmx's inline handlers are script too
        assert "javascript:" not in html, path


def _host_cookies(app) -> dict[str, str]:
    """Start a table from the start form; the Set-Cookie headers the host's browser gets, by name."""
    client = app.test_client()
    page = client.get("/")
    csrf = csrf_from(page.get_data(as_text=True))
    resp = client.post("/tables", data={"game": "dicez", "player0": "Ann", "csrf_token": csrf})
    assert resp.status_code == 303
    cookies = page.headers.getlist("Set-Cookie") + resp.headers.getlist("Set-Cookie")
    return {c.split("=", 1)[0]: c for c in cookies}


@pytest.fixture
def make_app(db_url):
    apps = []

    def make(**config):
        app = create_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret", **config})
        apps.append(app)
        return app
    yield make
    for app in apps:
        app.extensions["store"].dispose()


def test_cookies_are_secure_when_the_public_address_is_https(make_app):
    cookies = _host_cookies(make_app(PUBLIC_URL="https://games.example.org"))
    host = next(v for k, v in cookies.items() if k.startswith("host_"))
    assert "; Secure" in host and "; Secure" in cookies["session"]
    assert "HttpOnly" in host and "SameSite=Lax" in host


def test_cookies_are_not_secure_on_a_plain_http_address(make_app):
    # on a home LAN the phones use http://192.168...: a Secure cookie would never come back
    for public in (None, "http://192.168.1.20:8000"):
        cookies = _host_cookies(make_app(PUBLIC_URL=public))
        assert cookies and not any("; Secure" in c for c in cookies.values()), public


FORGED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example", "X-Forwarded-For": "203.0.113.9"}


def _seen_by_the_app(app, headers):
    """How the app sees a request that came with `headers`: scheme, host, client address."""
    @app.get("/_test/seen")
    def seen():
        from flask import request
        return {"scheme": request.scheme, "host": request.host, "remote": request.remote_addr}
    return app.test_client().get("/_test/seen", headers=headers, environ_base={"REMOTE_ADDR": "10.1.2.3"}).get_json()


def test_forwarded_headers_change_nothing_unless_a_proxy_is_configured(make_app):
    app = make_app()
    assert app.config["TRUST_PROXY"] == 0
    assert _seen_by_the_app(app, FORGED) == {"scheme": "http", "host": "localhost", "remote": "10.1.2.3"}
    client = app.test_client()
    created = client.post("/api/tables", json={"game": "dicez", "players": ["Ann"]}, headers=FORGED).get_json()
    # not the forged host: the address the app was opened at (the LAN's, for a loopback one)
    assert created["join_url"].startswith(f"{base_for_phones('http://localhost/')}t/")
    assert not any("; Secure" in c for c in _host_cookies_with(app, FORGED))


def _host_cookies_with(app, headers) -> list[str]:
    client = app.test_client()
    page = client.get("/", headers=headers)
    csrf = csrf_from(page.get_data(as_text=True))
    resp = client.post("/tables", data={"game": "dicez", "player0": "Ann", "csrf_token": csrf}, headers=headers)
    return page.headers.getlist("Set-Cookie") + resp.headers.getlist("Set-Cookie")


def test_behind_a_configured_proxy_its_forwarded_headers_are_believed(make_app):
    app = make_app(TRUST_PROXY=1)
    assert _seen_by_the_app(app, FORGED) == {"scheme": "https", "host": "evil.example", "remote": "203.0.113.9"}
    created = app.test_client().post("/api/tables", json={"game": "dicez", "players": ["Ann"]},
                                     headers=FORGED).get_json()
    assert created["join_url"].startswith("https://evil.example/t/")
    cookies = _host_cookies_with(app, FORGED)
    assert cookies and all("; Secure" in c for c in cookies)  # the request came in over https


def test_trust_proxy_is_read_from_the_environment(monkeypatch, make_app):
    monkeypatch.setenv("TRUST_PROXY", "2")
    assert make_app().config["TRUST_PROXY"] == 2
    monkeypatch.setenv("TRUST_PROXY", "yes")
    with pytest.raises(SystemExit, match="TRUST_PROXY must be a number of proxies"):
        make_app()
