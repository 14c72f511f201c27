"""What every request and every answer gets, whichever route: bad text and numbers are refused
before any route reads them, and every answer carries the browser's security headers."""
from __future__ import annotations

import math
import re
import threading
import time
from itertools import repeat
from urllib.parse import urlsplit

from cachetools import LRUCache
from flask import abort, current_app, request
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature
from werkzeug.middleware.proxy_fix import ProxyFix
from ..core.contract import Text

# JavaScript (and so a phone's page) reads larger whole numbers inexactly; no game counts that far.
MAX_INT = 2**53 - 1
MAX_DEPTH = 40  # JSON nesting: an entry or an edition is a few levels deep
VERIFIED_SESSIONS = 10_000  # session cookies remembered as good (a few MB at most)
_UNWELCOME = re.compile("[\x00\ud800-\udfff]")  # the NUL character and lone UTF-16 surrogates

# Scripts only from our own files (no inline script, no on* attributes, no javascript: links),
# never framed by another site. Style sheets only from our files too; style="" attributes stay
# allowed (the boards place and colour their pieces with them): browsers that know style-src-elem
# take it for <style> and <link> elements, older ones fall back to style-src.
CSP = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "style-src-elem 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    # join and hand-over links carry secrets in their path: never send them to another site,
    # and within the app they are only ever sent back to this same server
    "Referrer-Policy": "same-origin",
}


def _text_problem(text: str) -> str | None:
    if _UNWELCOME.search(text) is None:  # one scan for the text of nearly every request
        return None
    if "\x00" in text:
        return Text("Text in a request may not contain the NUL character.")
    return (Text("Text in a request must be valid Unicode: it holds a lone UTF-16 surrogate "
            "(half of a character)."))


def _number_problem(value) -> str | None:
    if isinstance(value, int):  # true and false too, which are 1 and 0
        if -MAX_INT <= value <= MAX_INT:
            return None
        return Text("Whole numbers in a request must be from {value} to {max_int}.", value=-MAX_INT, max_int=MAX_INT)
    if isinstance(value, float) and not math.isfinite(value):
        return Text("Numbers in a request must be finite (no NaN or Infinity).")
    return None


def value_problem(value, depth: int = 0) -> str | None:
    """Why a value from a request (JSON, a form, the URL) cannot be taken, or None."""
    if depth > MAX_DEPTH:
        return Text("That request is nested too deeply.")
    if isinstance(value, str):
        return _text_problem(value)
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    else:
        return _number_problem(value)
    # the first item's problem, if any (the loop runs in C: a body has many small items)
    return next(filter(None, map(value_problem, items, repeat(depth + 1))), None)


def _url_problem() -> str | None:
    # Numbers in the address are left to the routes: an out-of-range game or seat is a 404 there,
    # and a sheet's draft ignores a nonsense number.
    for text in (request.path, *request.args.keys(), *request.args.values()):
        problem = _text_problem(text)
        if problem:
            return problem
    return None


def _body_problem() -> str | None:
    if request.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return None
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return value_problem([*request.form.keys(), *request.form.values()])
    if request.is_json and request.get_data():
        try:
            data = request.get_json(silent=True)
        except RecursionError:
            return Text("That request is nested too deeply.")
        return value_problem(data)
    return None


def allow_route_body_size():
    """before_request, before anything reads the body: a route that takes a file (a photo) names its own
    largest body as `body_limit` = (bytes, the refusal's words); every other route keeps the app's."""
    view = current_app.view_functions.get(request.endpoint or "")
    limit = getattr(view, "body_limit", None)
    if limit is None:
        return
    largest, refusal = limit
    if (request.content_length or 0) > largest:
        abort(413, refusal)
    request.max_content_length = largest


def refuse_bad_input():
    """before_request: text that cannot be stored or shown back (NUL, lone surrogates) and numbers
    no game uses (huge, NaN, Infinity), anywhere in the URL, a form or a JSON body, are a 400 with
    the reason, before any route reads them."""
    problem = _url_problem() or _body_problem()
    if problem:
        abort(400, problem)


def public_is_https(public_url: str | None) -> bool:
    return urlsplit(public_url or "").scheme == "https"


def secure_cookies() -> bool:
    """Cookies only over https when the public address is https (or this request came in so)."""
    return current_app.config.get("SESSION_COOKIE_SECURE") or request.is_secure


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session (the CSRF token), Secure by the same rule as our own cookies.

    Checking a cookie's signature is most of opening a session (HMAC key derivation and JSON, about
    40-50 µs), and a phone sends the same cookie with every request: a cookie already found good is
    remembered with when it was signed (an LRU), so only its age is checked again. Only flat
    sessions (text and numbers, as the CSRF token's) are remembered, so no request can change what
    the next one opens."""

    def __init__(self):
        self._serializer = (None, None)  # (the keys it signs with, the serializer)
        self._verified: LRUCache = LRUCache(maxsize=VERIFIED_SESSIONS)  # cookie -> (its data, signed at)
        self._lock = threading.Lock()

    def get_cookie_secure(self, app) -> bool:
        return bool(secure_cookies())

    def get_signing_serializer(self, app):
        """Flask builds the signing serializer anew for every request; it only changes with the keys."""
        keys = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if self._serializer[0] != keys:
            with self._lock:
                self._verified.clear()  # found good under other keys
            self._serializer = (keys, super().get_signing_serializer(app))
        return self._serializer[1]

    def open_session(self, app, request):
        s = self.get_signing_serializer(app)
        value = request.cookies.get(self.get_cookie_name(app))
        if s is None or not value:
            return super().open_session(app, request)
        max_age = int(app.permanent_session_lifetime.total_seconds())
        with self._lock:
            kept = self._verified.get(value)
        if kept is not None and time.time() - kept[1] <= max_age:
            return self.session_class(kept[0])
        try:
            data, signed = s.loads(value, max_age=max_age, return_timestamp=True)
        except BadSignature:
            return self.session_class()
        if isinstance(data, dict) and all(isinstance(v, (str, int, float, bool, type(None))) for v in data.values()):
            with self._lock:
                self._verified[value] = (data, signed.timestamp())
        return self.session_class(data)


def add_security_headers(response):
    """after_request: the same browser protections on every answer (pages, fragments, API, static)."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def trust_proxy(app, hops: int) -> None:
    """Believe X-Forwarded-For/-Proto/-Host/-Port/-Prefix from `hops` proxies in front (0: none)."""
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops,
                                x_prefix=hops)
