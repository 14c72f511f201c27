"""Several server processes on one machine: gunicorn with gevent workers.

    .venv/bin/gunicorn -c gunicorn.conf.py "companion:create_app()"

Every worker is one process like `python -m companion` (gevent: thousands of open live streams
each); the workers share the database, and the live updates between them go through PostgreSQL
LISTEN/NOTIFY, Redis (REDIS_URL) or, on SQLite, the file's version (companion/platform/live/updates.py).
Set BIND (default 0.0.0.0:8000) and WEB_CONCURRENCY (default: one worker per core).
"""
import os

bind = os.environ.get("BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY") or os.cpu_count() or 1)
worker_class = "gevent"
worker_connections = 10000  # open connections per worker (an idle phone holds one)
keepalive = 75              # seconds an idle keep-alive connection between requests stays open
# gunicorn's workers set no deadline for a request's headers and body and no bound per address:
# the reverse proxy in front keeps those (docs/reliability.md, "Stalls and floods")
graceful_timeout = 5        # live streams never end by themselves: do not wait for them on a restart
accesslog = None


def on_starting(server):
    from companion.platform.web.serve import raise_open_file_limit

    raise_open_file_limit()  # inherited by the workers


def post_worker_init(worker):
    from companion.platform.web.serve import shorten_collector_pauses

    shorten_collector_pauses()  # per worker: each one collects its own garbage
