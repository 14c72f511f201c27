"""Drawings kept by what they show: the markup of a template macro, remembered by its arguments.

A game's pictures (a pizza board, a sheet of dots) are the slowest part of its pages, and between
two entries most of them do not change: the other players' sheets, the board seen from the same
corner. A kept drawing is drawn once and then served from memory (an LRU, one per macro and
process). Safe wherever the macro's output depends on its arguments alone.
"""
from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict
from typing import Callable

from flask import get_template_attribute
from markupsafe import Markup


class KeptDrawings:
    """`draw(*args, **kwargs)` is the macro `macro` of `template` called with those arguments.
    `canonical` turns the arguments into a value whose pickle is the same for the same drawing
    (sets, for instance, pickle in no fixed order)."""

    def __init__(self, template: str, macro: str, size: int = 512,
                 canonical: Callable[[tuple, dict], object] | None = None):
        self.template, self.macro, self.size = template, macro, size
        self.canonical = canonical or (lambda args, kwargs: (args, kwargs))
        self.items: OrderedDict[bytes, Markup] = OrderedDict()
        self.lock = threading.Lock()

    def draw(self, *args, **kwargs) -> Markup:
        # pickle is lossless and quick: two different drawings never give the same bytes
        key = hashlib.blake2b(pickle.dumps(self.canonical(args, kwargs)), digest_size=16).digest()
        with self.lock:
            hit = self.items.get(key)
            if hit is not None:
                self.items.move_to_end(key)
                return hit
        markup = get_template_attribute(self.template, self.macro)(*args, **kwargs)
        with self.lock:
            self.items[key] = markup
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return markup
