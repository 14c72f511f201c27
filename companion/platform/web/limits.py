"""Rate limits that make guessing hopeless (the `limits` library, through Flask-Limiter; in memory,
or Redis when REDIS_URL is set).

Only failures count, so a table at play never meets a limit: a lookup that finds nothing (any 404:
a wrong table code, join link or hand-over link) and a wrong PIN. docs/reliability.md works out
what the limits leave a guesser.

The PIN limits are Flask-Limiter's decorators on the one route that takes a PIN. The not-found
allowance is checked on every request, so it asks the same rate limiter (same storage, same key
prefix) directly: Flask-Limiter resolves its application limits anew on each request, which was a
third of the work of an unchanged change check (measured in the benchmark diary, now in git history).
"""
from __future__ import annotations

import functools
import logging
import math
import time

from flask import Flask, abort, g, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from .context import store, valid_code

log = logging.getLogger(__name__)

# per client, over every route: what a person mistyping a code never reaches
NOT_FOUND_PER_CLIENT = "30 per minute;300 per hour"
PIN_TRIES_PER_CLIENT = "5 per minute;30 per hour"
# per table, whoever tries: a PIN cannot be guessed by many clients sharing the work
PIN_TRIES_PER_TABLE = "30 per hour"
PIN_ENDPOINT = "pages.join_with_pin"
PIN_TABLE_SPENT = ("Too many wrong PINs were tried at this table. Scan the QR code on the host's screen, or ask "
                   "the host for a new PIN.")
# new tables per client (the setting TABLES_PER_CLIENT changes it): a host starts a few an evening,
# a script flooding the server is stopped (each table it made also goes, unused, after a day: storage.py)
TABLES_PER_CLIENT = "30 per minute;300 per hour"
TABLE_ENDPOINTS = ("pages.create_table", "api.create_table")
TABLES_SPENT = "This device has started a lot of tables just now. Wait a minute, then try again."
REFUSED_FOR = 60  # seconds a refusal asks to wait when the limit cannot say
STORAGE_RETRY = 5  # seconds between tries of a rate limit storage that could not be reached
STORAGE_TIMEOUT = 1.0  # seconds one call to Redis may take: a frozen Redis must not hold requests
UNSPENT_FOR = 1.0  # seconds a client's unspent allowance is taken as read (NotFoundAllowance)
REMEMBERED_CLIENTS = 10_000
# Flask-Limiter settings that would put a limit on every route (none is set here)
APP_WIDE_LIMITS = ("RATELIMIT_DEFAULT", "RATELIMIT_APPLICATION", "RATELIMIT_META")


def _wrong_pin(response) -> bool:
    return response.status_code == 403


def _table_made(response) -> bool:
    return response.status_code in (201, 303)


def _table_of_pin_form() -> str:
    """The table's allowance of wrong PINs, for its PIN of the moment: a new one the host makes
    (pages.renew_invitation) starts a new allowance."""
    code = valid_code(request.form.get("code", ""))
    table = store().table(code) if code else None
    return f"pin:{code}:{table.invitation_mark}" if table else "pin:?"


class NotFoundAllowance:
    """Each client's allowance of answers that found nothing: spent by every 404, and once it is
    spent the client is refused everything, a real table's pages included, until the window ends."""

    def __init__(self, app: Flask, limiter: Limiter, spec: str):
        self.app, self.limiter, self.items = app, limiter, parse_many(spec)
        self.prefix = app.config.get("RATELIMIT_KEY_PREFIX", "")
        self.fallback = FixedWindowRateLimiter(MemoryStorage())  # while the shared storage is down
        self.retry_storage_at = 0.0
        # client address -> until when a check found its allowance unspent: a phone at play makes a
        # request every few seconds and never a 404, so asking the storage (Redis: two round trips)
        # at most once a second per client is enough; a 404 here forgets it at once, so a guesser
        # gets at most one unchecked guess per process and second beyond the allowance
        self.unspent_until: dict[str, float] = {}

    def _counted(self) -> bool:
        return bool(self.app.config.get("RATELIMIT_ENABLED", True))

    @staticmethod
    def _static_file() -> bool:
        return request.endpoint == "static"  # a phone's own files: never a guess, never refused

    def _key(self, client: str) -> tuple[str, ...]:
        return (self.prefix, "not-found", client)

    def _ask(self, ask) -> object:
        """Ask the shared rate limiter; if its storage cannot be reached (or does not answer within
        STORAGE_TIMEOUT), count in this process and try the storage again after STORAGE_RETRY seconds."""
        if time.monotonic() >= self.retry_storage_at:
            try:
                answer = ask(self.limiter.limiter)
            except Exception as exc:  # noqa: BLE001 - a storage fault must not refuse every request
                if not self.retry_storage_at:
                    log.warning("rate limit storage unreachable (%s): counting not-found answers in this "
                                "process", " ".join(str(exc).split()) or type(exc).__name__)
                self.retry_storage_at = time.monotonic() + STORAGE_RETRY
            else:
                if self.retry_storage_at:
                    log.warning("rate limit storage answers again: not-found answers are counted in it again")
                self.retry_storage_at = 0.0
                return answer
        return ask(self.fallback)

    def spent(self, client: str) -> list:
        """The limits this client has spent its allowance of (none: it may be answered)."""
        if not self._counted() or time.monotonic() < self.unspent_until.get(client, 0.0):
            return []
        key = self._key(client)
        spent = self._ask(lambda rl: [item for item in self.items if not rl.test(item, *key)])
        if not spent:
            if len(self.unspent_until) >= REMEMBERED_CLIENTS:
                self.unspent_until.clear()
            self.unspent_until[client] = time.monotonic() + UNSPENT_FOR
        return spent

    def refuse_when_spent(self) -> None:
        """before_request."""
        if self._static_file():
            return
        client = get_remote_address()
        spent = self.spent(client)
        if spent:
            key = self._key(client)
            g.limit_resets_at = max(self._ask(lambda rl: rl.get_window_stats(item, *key).reset_time)
                                    for item in spent)
            abort(429)

    def spend_on_not_found(self, response):
        """after_request."""
        if response.status_code == 404 and self._counted() and not self._static_file():
            client = get_remote_address()
            self.unspent_until.pop(client, None)
            key = self._key(client)
            self._ask(lambda rl: [rl.hit(item, *key) for item in self.items])
        return response


def install_limits(app: Flask) -> Limiter:
    """Attach this app's own limiter (each app counts on its own, as each test app must)."""
    # no X-RateLimit-* headers on every answer (about 100 bytes each, and a phone never meets a limit):
    # only a refused request says when to try again (retry_after_header)
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", False)
    # if Redis cannot be reached, count in this process rather than refuse every request
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    if str(app.config.get("RATELIMIT_STORAGE_URI", "")).startswith(("redis://", "rediss://", "redis+")):
        # and never wait long for it: redis-py waits forever by default
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {"socket_timeout": STORAGE_TIMEOUT,
                                                            "socket_connect_timeout": STORAGE_TIMEOUT})
    limiter = Limiter(get_remote_address, app=app)
    view = _own_copy(app.view_functions[PIN_ENDPOINT])
    view = limiter.limit(PIN_TRIES_PER_CLIENT, deduct_when=_wrong_pin)(view)
    view = limiter.limit(PIN_TRIES_PER_TABLE, key_func=_table_of_pin_form, deduct_when=_wrong_pin,
                         error_message=PIN_TABLE_SPENT)(view)
    app.view_functions[PIN_ENDPOINT] = view
    # one allowance for the start page and the API; only a table made counts (not a form with a mistake)
    new_tables = limiter.shared_limit(app.config.get("TABLES_PER_CLIENT") or TABLES_PER_CLIENT, scope="new-tables",
                                      deduct_when=_table_made, error_message=TABLES_SPENT)
    for endpoint in TABLE_ENDPOINTS:
        app.view_functions[endpoint] = new_tables(_own_copy(app.view_functions[endpoint]))
    limited = {PIN_ENDPOINT, *TABLE_ENDPOINTS, *_limit_costly_routes(app, limiter)}
    if not any(app.config.get(name) for name in APP_WIDE_LIMITS):
        # every other route has no limit to check: Flask-Limiter skips its lookup (about 60-120 µs a
        # request) for a request its public request_filter exempts
        limiter.request_filter(lambda: request.endpoint not in limited)
    allowance = NotFoundAllowance(app, limiter, NOT_FOUND_PER_CLIENT)
    app.before_request(allowance.refuse_when_spent)
    app.after_request(allowance.spend_on_not_found)
    app.extensions["companion_limiter"] = limiter
    app.extensions["not_found_allowance"] = allowance
    app.after_request(functools.partial(retry_after_header, limiter))
    return limiter


def _limit_costly_routes(app: Flask, limiter: Limiter) -> list[str]:
    """A game's route that costs real work per request (reading a photo) names its own allowance per
    client as `per_client_limit` (and its refusal as `limit_refusal`); every request counts. Returns
    those routes' endpoints."""
    limited = []
    for endpoint, view in list(app.view_functions.items()):
        spec = getattr(view, "per_client_limit", None)
        if spec:
            app.view_functions[endpoint] = limiter.limit(
                spec, error_message=getattr(view, "limit_refusal", None))(_own_copy(view))
            limited.append(endpoint)
    return limited


def retry_after_header(limiter: Limiter, response):
    """after_request: a 429 says in how many seconds the limit it met opens again."""
    if response.status_code == 429 and "Retry-After" not in response.headers:
        met = limiter.current_limit
        resets_at = met.reset_at if met else g.get("limit_resets_at", time.time() + REFUSED_FOR)
        response.headers["Retry-After"] = str(max(1, math.ceil(resets_at - time.time())))
    return response


def _own_copy(view):
    """A view function of this app's own: Flask-Limiter marks what it decorates, and the module's
    function is shared by every app made in this process (the tests make many)."""
    @functools.wraps(view)
    def copy(*args, **kwargs):
        return view(*args, **kwargs)
    return copy
