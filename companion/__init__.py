"""Companion: phone scoresheets for games played with real dice and boards.

`companion.platform` knows no game; `companion.games` lists them. This module joins the two.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not imported here: `python -m companion` patches for gevent before Flask loads
    from flask import Flask


def create_app(config: dict | None = None) -> "Flask":
    from . import games  # noqa: F401  (registers every game before the app is built)
    from .platform.web.factory import create_app as build

    return build(config)
