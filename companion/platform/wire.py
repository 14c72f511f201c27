"""Light on the wire: compressed answers, static files under versioned URLs that phones keep for a year.

Flask-Compress compresses pages, fragments and JSON per response (brotli or gzip, as the phone accepts).
Static files are read, hashed and compressed at the highest levels once per process, the first time a
page names them: they are the bulk of a first load and never change while the process runs.
"""
from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
from dataclasses import dataclass, field

import brotli
import rcssmin
import rjsmin
from flask import Flask, Response, abort, request
from flask_compress import Compress
from werkzeug.security import safe_join

# What Flask-Compress may compress. Never text/event-stream: a live stream must reach the phone event by
# event, and compressing it would hold events back in the compressor's buffer.
COMPRESSED_MIMETYPES = ["text/html", "text/css", "text/javascript", "application/javascript",
                        "application/json", "image/svg+xml", "text/plain", "text/csv", "application/manifest+json"]
mimetypes.add_type("application/manifest+json", ".webmanifest")  # not in every system's mime.types
YEAR = 31536000
UNVERSIONED_MAX_AGE = 300  # a page's old copy names a file without (or with an older) version
ENCODINGS = ("br", "gzip")


@dataclass
class StaticFile:
    mimetype: str
    version: str
    bodies: dict[str, bytes] = field(default_factory=dict)  # by encoding ("identity" for the file itself)

    def body(self, encoding: str) -> bytes:
        if encoding not in self.bodies:
            raw = self.bodies["identity"]
            self.bodies[encoding] = (brotli.compress(raw, quality=11) if encoding == "br"
                                     else gzip.compress(raw, compresslevel=9, mtime=0))
        return self.bodies[encoding]


class StaticFiles:
    """The files under static/, each read once, by name."""

    def __init__(self, folder: str):
        self.folder = folder
        self.files: dict[str, StaticFile | None] = {}

    def get(self, filename: str) -> StaticFile | None:
        if filename not in self.files:
            self.files[filename] = self._read(filename)
        return self.files[filename]

    def _read(self, filename: str) -> StaticFile | None:
        path = safe_join(self.folder, filename)
        if path is None or not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            raw = f.read()
        mimetype = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        return StaticFile(mimetype, hashlib.sha256(raw).hexdigest()[:12], {"identity": minified(filename, raw)})

    def add_version(self, endpoint: str, values: dict) -> None:
        """url_for('static', filename=...) names the file's content hash: `/static/app.js?v=<hash>`."""
        if endpoint == "static" and "v" not in values and (found := self.get(values.get("filename", ""))):
            values["v"] = found.version

    def serve(self, filename: str) -> Response:
        found = self.get(filename)
        if found is None:
            abort(404)
        encoding = request.accept_encodings.best_match(ENCODINGS, default="identity")
        if found.mimetype not in COMPRESSED_MIMETYPES:
            encoding = "identity"
        resp = Response(found.body(encoding), mimetype=found.mimetype)
        if encoding != "identity":
            resp.headers["Content-Encoding"] = encoding  # Flask-Compress leaves an encoded answer alone
        resp.headers["Vary"] = "Accept-Encoding"
        resp.set_etag(found.version if encoding == "identity" else f"{found.version}:{encoding}")
        if request.args.get("v") == found.version:
            resp.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        else:
            resp.headers["Cache-Control"] = f"public, max-age={UNVERSIONED_MAX_AGE}"
        return resp.make_conditional(request)


def minified(filename: str, raw: bytes) -> bytes:
    """Our own scripts and style sheets without comments and indentation (a third smaller); a file
    whose name says it is minified already (htmx) is left as it is."""
    if filename.endswith(".min.js"):
        return raw
    if filename.endswith(".js"):
        return rjsmin.jsmin(raw)
    if filename.endswith(".css"):
        return rcssmin.cssmin(raw)
    return raw


def install_wire(app: Flask) -> None:
    app.config.setdefault("COMPRESS_ALGORITHM", list(ENCODINGS))
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED_MIMETYPES)
    app.config.setdefault("COMPRESS_BR_LEVEL", 5)  # from 5 on brotli models the text: a tenth to a quarter smaller
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)  # below about this, the headers outweigh the saving
    app.config.setdefault("COMPRESS_STREAMS", False)  # a streamed answer (a live stream) goes out as it is
    Compress(app)
    files = StaticFiles(app.static_folder)
    app.extensions["static_files"] = files
    app.view_functions["static"] = files.serve
    app.url_defaults(files.add_version)
