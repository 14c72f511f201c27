"""Companion: phone scoresheets for games played with real dice and boards.

`companion.platform` knows no game; `companion.games` lists them. This module joins the two: the app
is built with the games the composition root names, handed over explicitly.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not imported here: `python -m companion` patches for gevent before Flask loads
    from flask import Flask


def create_app(config: dict | None = None) -> "Flask":
    from .games import every_game
    from .platform.web.factory import create_app as build

    return build(config, every_game().values())
