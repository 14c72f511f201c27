"""The contract between the platform and a game.

A game is one folder under `companion/games/`. Its rules are pure (no Flask, no database); the
platform keeps the entry log, rebuilds a state by replaying it, and only ever hands a state back
to the game that made it. The platform never reads a state's attributes: everything a page or
the API shows comes from `view` and `hints`, and every refusal a player reads is the text the
rules raised.
"""
from __future__ import annotations

import copy
import sys
import string
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Mapping

State = Any  # a game's own immutable value; opaque to the platform


def N_(text: str) -> str:
    """Marks `text` for the catalogues (companion/translations) where it is written; the web layer
    translates it when a player reads it. For texts kept as plain strings (a label, a refusal's wording)."""
    return text


def _format(template: str, values: dict) -> str:
    return template.format_map(values)


class Text(str):
    """A text for players kept as its English wording and its values, so each reader reads it in their
    own language: `template` (a catalogue message, with a `{name}` placeholder per value) and `values`
    (numbers, names, other Texts). A Text is the English string it reads as; the web layer translates
    it (`shown`) where it is put on a page.

    Rules know seats, not names: a text that speaks of a seat writes a placeholder and gives its seat
    in `seats` ("It is {turn}'s turn", seats={"turn": 1}). As a plain string it reads "seat 2"; the
    platform names the seats (`named`, `named_texts`) before a player reads it."""

    template: str
    seats: dict[str, int]
    values: dict

    plural: tuple[str, int] | None = None  # (the plural message, the count that chooses), see plural_text

    def __new__(cls, template: str, seats: dict[str, int] | None = None, **values):
        seats = dict(seats or {})
        text = super().__new__(cls, _format(template, {**values, **{k: _seat_words(None, s) for k, s in seats.items()}})
                               if values or seats else template)
        text.template, text.seats, text.values = template, seats, values
        return text

    def __reduce__(self):
        return _text, (self.template, self.seats, self.values, self.plural)

    def named(self, names: list[str]) -> "Text":
        """The text with each seat placeholder given the seat's name (a Text still)."""
        if not self.seats:
            return self
        named = {key: _seat_words(names, seat) for key, seat in self.seats.items()}
        return _text(self.template, {}, {**self.values, **named}, self.plural)

    def shown(self, translate, number=str, plurals=None) -> str:
        """The text in a reader's language: `translate` gives a catalogue message's translation,
        `plurals(singular, plural, n)` a plural message's, `number` writes a number as the reader's
        locale does."""
        message = (plurals or _english_plural)(self.template, *self.plural) if self.plural else translate(self.template)
        if not self.values and not self.seats:
            return message
        values = {key: _shown(value, translate, number, plurals) for key, value in self.values.items()}
        values.update({key: _shown(_seat_words(None, seat), translate, number, plurals) for key, seat in self.seats.items()})
        for name in _formatted_fields(self.template):  # a number with a format of its own keeps it
            if name in self.values:
                values[name] = self.values[name]
        try:
            return _format(message, values)
        except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder: the English
            return _format(self.template if not self.plural else _english_plural(self.template, *self.plural), values)


def plural_text(singular: str, plural: str, n: int, seats: dict[str, int] | None = None, **values) -> Text:
    """A Text whose wording depends on the count `n` (one dot, two dots), each language's own way."""
    return _text(singular, seats or {}, values, (plural, n))


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def _formatted_fields(template: str) -> list[str]:
    return [name for _literal, name, spec, _conv in string.Formatter().parse(template) if name and spec]


def _text(template: str, seats: dict, values: dict, plural: tuple[str, int] | None = None) -> Text:
    """A Text from its parts; with `plural`, `template` is the singular message and the English reads
    the one the count chooses."""
    text = Text(_english_plural(template, *plural) if plural else template, seats, **values)
    if plural:
        text.template, text.plural = template, plural
    return text


def _shown(value, translate, number, plurals=None):
    if isinstance(value, Text):
        return value.shown(translate, number, plurals)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    return value


def _seat_words(names: list[str] | None, seat: int) -> str:
    return names[seat] if names is not None and 0 <= seat < len(names) else Text(N_("seat {number}"), number=seat + 1)


SeatText = Text  # the name rules first wrote texts that speak of seats with


def named_texts(value, names: list[str]):
    """`value` (an answer of the rules: hints, notes) with every Text in it that speaks of seats named."""
    if isinstance(value, Text):
        return value.named(names)
    if isinstance(value, dict):
        return {key: named_texts(item, names) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(named_texts(item, names) for item in value)
    return value


class RuleError(ValueError):
    """An entry the rules do not allow. `reason` is shown to the player (in the reader's language: it
    is a catalogue message, its `values` filled in); `rule`, when given, is the numbered rule of the
    game's seed it applies (e.g. "DZ-3"), which the page links to.

    The rules know seats, not names: a reason that speaks of a seat writes a placeholder and
    gives its seat in `seats` ("It is {turn}'s turn", seats={"turn": 1}). Until the platform
    names the seats (`named`), a placeholder reads "seat 2" (the reason is a Text, so a refusal the
    rules pass on in their hints is named and translated by the platform too)."""

    def __init__(self, reason: str, rule: str | None = None, seats: dict[str, int] | None = None, **values):
        self.template, self.rule, self.seats = reason, rule, dict(seats or {})
        self.reason = reason if isinstance(reason, Text) else Text(reason, self.seats, **values)
        super().__init__(self.reason)

    def named(self, names: list[str]) -> RuleError:
        """The same refusal with each seat placeholder given the seat's name."""
        if not self.reason.seats:
            return self
        named = copy.copy(self)
        named.reason = self.reason.named(names)
        named.args = (named.reason,)
        return named


class MalformedEntry(RuleError):
    """An entry of the wrong shape (missing field, wrong type): the API answers 400, not 422."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking, as the platform knows it. Secrecy is decided by the game from this.

    kind:
      "seat"   a seat's own device (`seat` is that seat)
      "shared" the one device of a pass-and-play table, passed from hand to hand (`seat` is the
               seat whose page is open, or None); whoever holds it next may read what it shows
      "table"  the table view (a TV, a tablet, anyone with the code)
      "host"   the host's screen at a table that is not pass-and-play
    """

    kind: str
    seat: int | None = None

    KINDS: ClassVar[tuple[str, ...]] = ("seat", "shared", "table", "host")

    def __post_init__(self):
        if self.kind not in self.KINDS:
            raise ValueError(f"unknown viewer kind {self.kind!r}")
        if self.kind == "seat" and self.seat is None:
            raise ValueError("a seat viewer needs its seat")

    @classmethod
    def own(cls, seat: int) -> "Viewer":
        return cls("seat", seat)

    @classmethod
    def shared(cls, seat: int | None = None) -> "Viewer":
        return cls("shared", seat)

    @classmethod
    def table(cls) -> "Viewer":
        return cls("table")

    @classmethod
    def host(cls) -> "Viewer":
        return cls("host")

    @property
    def private_seat(self) -> int | None:
        """The seat whose private choices this viewer may see: only a seat's own device has one."""
        return self.seat if self.kind == "seat" else None

    @property
    def plays_for(self) -> int | None:
        """The seat whose sheet is drawn for this viewer (None for the table view and the host)."""
        return self.seat if self.kind in ("seat", "shared") else None


class Game(ABC):
    """One game, as the platform sees it. Subclass it in the game's folder and register an instance
    in `companion/games/__init__.py`.

    Entries are JSON objects with a "kind" (one of `entry_kinds`); the platform adds nothing to
    them but strips its own idempotency "key". States must never be mutated: `apply` returns a
    new one.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    # each entry kind -> the fields it may carry besides "kind"; the platform refuses any other
    # field before `apply` sees the entry
    entry_fields: ClassVar[Mapping[str, tuple[str, ...]]]
    # kinds the host may enter for a seat that has not entered them yet, at any table
    host_kinds: ClassVar[tuple[str, ...]] = ()
    # the game's phone pages (a platform.gameweb.GameWeb), set by the game's folder
    web: Any = None
    # named document collections the game keeps in the platform's store (e.g. editions)
    collections: ClassVar[tuple[str, ...]] = ()
    # a collection -> the table an older release kept it in (columns `name`, `data`): when the store
    # opens and the collection is empty, the old table's rows move into it (the table stays as it was)
    older_tables: ClassVar[Mapping[str, str]] = {}

    @property
    def folder(self) -> Path:
        """The game's folder (the package its class is defined in): its `templates/`, `static/`,
        `tests/` and `rules.md` live there."""
        return Path(sys.modules[type(self).__module__].__file__).resolve().parent

    @property
    def rules_path(self) -> Path:
        """The game's rules text, numbered rule by rule (the rules page shows it)."""
        return self.folder / "rules.md"

    @property
    def entry_kinds(self) -> tuple[str, ...]:
        """The kinds of entry the game takes: those it declares fields for."""
        return tuple(self.entry_fields)

    # ---- setting up ----------------------------------------------------------------
    @abstractmethod
    def normalize_options(self, options: dict) -> dict:
        """Options from a client -> complete options with defaults; raises RuleError."""

    @abstractmethod
    def new_state(self, players: int, options: dict) -> State:
        """The state before the first entry, for `players` seats and normalised options."""

    # ---- entries ---------------------------------------------------------------------
    @abstractmethod
    def apply(self, state: State, seat: int | None, entry: dict) -> State:
        """The state after `seat` enters `entry`; raises RuleError (MalformedEntry for a bad shape)."""

    def check(self, state: State, seat: int | None, entry: dict) -> str | None:
        """Why `entry` is refused, or None if `apply` would take it. The text is apply's own."""
        try:
            self.apply(state, seat, entry)
        except RuleError as exc:
            return exc.reason
        return None

    def document_refusal(self, collection: str, name: str, data) -> str | None:
        """Why a document of one of `collections` could not have been saved as it is (None: it could),
        as the game's own pages check one (an import of a backup asks)."""
        return None

    def undo_refusal(self, seat: int, entry: dict, before: State, now: State) -> str | None:
        """Why this logged entry may no longer be undone (None: it may), beyond "later entries
        depend on it", which the platform finds by replaying without it."""
        return None

    # ---- what each viewer sees -------------------------------------------------------
    @abstractmethod
    def view(self, state: State, viewer: Viewer) -> dict:
        """Everything the pages draw for `viewer`, JSON-serialisable; never what it may not see."""

    def hints(self, state: State, seat: int, draft: dict) -> dict:
        """Previews for `seat` while it composes an entry: `draft` is what it has tapped so far.
        The answer is JSON-serialisable; it may name the legal entries under "legal"."""
        return {}

    def secret(self, entry_seat: int | None, entry: dict, before: State, now: State, viewer: Viewer) -> bool:
        """Is this logged entry still hidden from `viewer`? (a choice kept secret until a reveal)"""
        return False

    def describe(self, entry_seat: int | None, entry: dict, before: State, after: State,
                 names: list[str]) -> str | None:
        """What a logged entry did, in one sentence for the table ("Ann scored 25 in Full House");
        `before` and `after` are the states around it, `names` the seats' names. The platform asks
        only about entries `secret` does not hide from the viewer. None: nothing worth saying."""
        return None

    # ---- progress and result ---------------------------------------------------------
    @abstractmethod
    def waiting_for(self, state: State) -> list[int]:
        """The seats the game is waiting for right now."""

    @abstractmethod
    def finished(self, state: State) -> bool:
        """Is the game over?"""

    @abstractmethod
    def winners(self, state: State) -> list[int]:
        """The winning seats once finished (several on a tie; none while playing or if all lose)."""

    @abstractmethod
    def totals(self, state: State) -> list[int]:
        """Each seat's score as it stands."""

    # ---- a finished game, kept and shared --------------------------------------------
    def record(self, state: State, seat: int) -> dict[str, dict[str, float]]:
        """What a finished game adds to `seat`'s record across games, beyond played, won and score:
        chart title -> {label: number}. A player's page shows, for each label, the mean over the
        games that name it (so a rate is a 0/100 value given only where it applies)."""
        return {}

    def categories(self, state: State) -> list[tuple[str, list[int]]]:
        """The categories a finished game was scored in, as its result card shows them: (label, each
        seat's points) in the game's own order. []: the card shows the totals alone."""
        return []

    def play_title(self, options: dict) -> str:
        """The name of the game played at a table with these options, as history, exports and
        BG Stats give it (a pad for any game may carry that game's name)."""
        return self.title

    def export_columns(self, states: list, seat: int) -> dict[str, Any] | None:
        """`seat`'s columns in a game's CSV export besides seat, name, total and winner: heading ->
        number or text, in order, from the states the game went through (the last one is now).
        None: the plain fields of the seat's sheet in the table's view."""
        return None

    def highest_wins(self, options: dict) -> bool:
        """Does the highest total win (False: the lowest)?"""
        return True

    def starting_seat(self, options: dict, players: int) -> int:
        """The seat that plays first in the game's first round, at a table of `players`."""
        return 0

    def sample_draft(self, state: State, seat: int, rng) -> dict:
        """A draft a player at the table could have tapped now: what the real dice might show, a
        random tap. With `hints(...)["legal"]` it drives random playouts (the contract suite)."""
        return {}


class EngineGame(Game):
    """A Game whose rules are the plain functions of one pure module, `engine` (a class attribute):
    `normalize_options`, `new_state`, `apply`, `waiting_for`, `finished`, `winners` and `totals`
    with the contract's signatures. A subclass still writes `view` (it decides secrecy) and
    whatever else the game has (hints, secret, undo_refusal, sample_draft)."""

    engine: ClassVar[Any]

    def normalize_options(self, options: dict) -> dict:
        return self.engine.normalize_options(options)

    def new_state(self, players: int, options: dict) -> State:
        return self.engine.new_state(players, options)

    def apply(self, state: State, seat: int | None, entry: dict) -> State:
        return self.engine.apply(state, seat, entry)

    def waiting_for(self, state: State) -> list[int]:
        return self.engine.waiting_for(state)

    def finished(self, state: State) -> bool:
        return self.engine.finished(state)

    def winners(self, state: State) -> list[int]:
        return self.engine.winners(state)

    def totals(self, state: State) -> list[int]:
        return self.engine.totals(state)
