"""Drawings kept by what they show: the markup of a template macro, remembered by its arguments.

A game's pictures (a pizza board, a sheet of dots) are the slowest part of its pages, and between
two entries most of them do not change: the other players' sheets, the board seen from the same
corner. A kept drawing is drawn once and then served from memory (an LRU, one per macro and
process). Safe wherever the macro's output depends on its arguments alone. What a drawing is worked
out from can be kept too, by the very objects it came from (`KeptByIdentity`).
"""
from __future__ import annotations

import hashlib
import operator
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


class KeptByIdentity:
    """`value(*parts)` is `derive(*parts)`, worked out once for as long as the same objects come back.

    For what is derived from objects that are shared and never changed: a game's view may hand every
    view of a sheet as it stands the very same lists. An entry holds the objects it was derived from,
    so the ids it is found by cannot pass to other objects while it is kept; objects that are only
    equal are a miss, which costs deriving again and nothing else. An LRU of `size` entries."""

    def __init__(self, derive: Callable, size: int = 512):
        self.derive, self.size = derive, size
        self.items: OrderedDict[tuple[int, ...], tuple[tuple, object]] = OrderedDict()
        self.lock = threading.Lock()

    def value(self, *parts):
        key = tuple(map(id, parts))
        with self.lock:
            hit = self.items.get(key)
            if hit is not None and all(map(operator.is_, hit[0], parts)):
                self.items.move_to_end(key)
                return hit[1]
        value = self.derive(*parts)
        with self.lock:
            self.items[key] = (parts, value)
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value
