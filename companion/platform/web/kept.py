"""Drawings kept by what they show: the markup of a template macro, remembered by its arguments.

A game's pictures (a pizza board, a sheet of dots) are the slowest part of its pages, and between
two entries most of them do not change: the other players' sheets, the board seen from the same
corner. A kept drawing is drawn once and then served from memory (cachetools' LRU, one per macro and
process). Safe wherever the macro's output depends on its arguments alone. What a drawing is worked
out from can be kept too, by the very objects it came from (`KeptByIdentity`).
"""
from __future__ import annotations

import hashlib
import pickle
import threading
from typing import Callable

from cachetools import LRUCache
from flask import get_template_attribute
from markupsafe import Markup

from .i18n import current_language


class KeptDrawings:
    """`draw(*args, **kwargs)` is the macro `macro` of `template` called with those arguments.
    `canonical` turns the arguments into a value whose pickle is the same for the same drawing
    (sets, for instance, pickle in no fixed order)."""

    def __init__(self, template: str, macro: str, size: int = 512,
                 canonical: Callable[[tuple, dict], object] | None = None):
        self.template, self.macro = template, macro
        self.canonical = canonical or (lambda args, kwargs: (args, kwargs))
        self.kept: LRUCache = LRUCache(maxsize=size)  # markup by the key of its arguments
        self.lock = threading.Lock()

    def draw(self, *args, **kwargs) -> Markup:
        # pickle is lossless and quick: two different drawings never give the same bytes
        # the reader's language too: a drawing's words are translated as it is drawn
        key = hashlib.blake2b(pickle.dumps((current_language(), self.canonical(args, kwargs))), digest_size=16).digest()
        with self.lock:
            markup = self.kept.get(key)
        if markup is None:
            markup = get_template_attribute(self.template, self.macro)(*args, **kwargs)
            with self.lock:
                self.kept[key] = markup
        return markup


class KeptByIdentity:
    """`value(*parts)` is `derive(*parts)`, worked out once for as long as the same objects come back.

    For what is derived from objects that are shared and never changed: a game's view may hand every
    view of a sheet as it stands the very same lists. An entry holds the objects it was derived from,
    so the ids it is found by cannot pass to other objects while it is kept, and an entry found by
    them is one of those very objects. Objects that are only equal are a miss, which costs deriving
    again and nothing else. An LRU of `size` entries."""

    def __init__(self, derive: Callable, size: int = 512):
        self.derive = derive
        self.kept: LRUCache = LRUCache(maxsize=size)  # id of each part -> (the parts, what was derived from them)
        self.lock = threading.Lock()

    def value(self, *parts):
        key = tuple(map(id, parts))
        with self.lock:
            hit = self.kept.get(key)
        if hit is not None:
            return hit[1]
        value = self.derive(*parts)
        with self.lock:
            self.kept[key] = (parts, value)
        return value
