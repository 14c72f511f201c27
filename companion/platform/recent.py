"""The one small LRU the platform keeps things in: the replays of games (play.py), drawings and what
they are worked out from (kept.py)."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable


class Recent:
    """At most `size` values by key, the least recently used forgotten first; safe across threads.
    `get` answers None for a key it does not hold, so None is not a value to keep. `replaces(known,
    new)`: whether a value put for a key replaces the one held (default: always); either way the key
    counts as just used."""

    def __init__(self, size: int, replaces: Callable[[object, object], bool] | None = None):
        self.size, self.replaces = size, replaces
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            hit = self.items.get(key)
            if hit is not None:
                self.items.move_to_end(key)
            return hit

    def put(self, key, value) -> None:
        with self.lock:
            known = self.items.get(key)
            if known is None or self.replaces is None or self.replaces(known, value):
                self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()

    def __len__(self) -> int:
        return len(self.items)
