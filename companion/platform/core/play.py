"""Playing a game at a table: replay the log, check and record entries, undo.

This is the one place that joins storage and the rules engines; the web layer and
the JSON API both go through it, handing it the store (a `records.TableLog`).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cachetools import LRUCache

from .contract import Game, MalformedEntry, RuleError, Text, Viewer
from .registry import get_game
from .records import Conflict, Entry, GameInfo, TableInfo, TableLog

UNDO = "undo"
MAX_KEY_LENGTH = 100
MAX_NAME_LENGTH = 40


class TableError(Exception):
    """A request the table cannot take, with the HTTP status that says why."""

    def __init__(self, status: int, reason: str, **values):
        # a catalogue message (its values filled in): the reader's language is chosen where it is shown
        self.reason = reason if isinstance(reason, Text) else Text(reason, **values)
        super().__init__(self.reason)
        self.status = status


@dataclass(frozen=True)
class Replay:
    """A game's log replayed through its engine."""

    game: Game
    info: GameInfo
    version: int
    entries: tuple[Entry, ...]     # the whole log, undo entries included
    effective: tuple[Entry, ...]   # what counts: neither an undo nor undone
    before: tuple[Any, ...]        # state before each effective entry (for secrecy checks)
    state: Any
    # each seat's undo_refusal, worked out once per replay: a phone moving a draft draws its sheet at
    # the same version again and again
    undo_answers: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def finished(self) -> bool:
        return self.game.finished(self.state)

    @property
    def undone(self) -> frozenset[int]:
        return undone_seqs(self.entries)

    @cached_property
    def around_undone(self) -> dict[int, tuple[Any, Any]]:
        """For each undone entry, by sequence number: (the state before it, the state when it was
        taken back). Its secrecy is judged there: taken back, it was never revealed."""
        return states_around_undone(self)


def undone_seqs(entries) -> frozenset[int]:
    """Sequence numbers taken back by undo entries."""
    return frozenset(e.payload["target"] for e in entries if e.kind == UNDO)


def states_around_undone(rep: Replay) -> dict[int, tuple[Any, Any]]:
    """The log replayed in the order it was written, undo entries included (see Replay.around_undone)."""
    state = rep.before[0] if rep.before else rep.state  # the state before any entry
    counting, befores, found = [], [], {}
    for e in rep.entries:
        if e.kind != UNDO:
            counting.append(e)
            befores.append(state)
            state = rep.game.apply(state, e.seat, e.as_entry())
            continue
        at = next((i for i, kept in enumerate(counting) if kept.seq == e.payload["target"]), None)
        if at is None:
            continue
        found[counting[at].seq] = (befores[at], state)
        state, later = befores[at], counting[at + 1:]
        del counting[at:], befores[at:]
        for kept in later:
            counting.append(kept)
            befores.append(state)
            state = rep.game.apply(state, kept.seat, kept.as_entry())
    return found


def effective_entries(entries) -> list[Entry]:
    undone = undone_seqs(entries)
    return [e for e in entries if e.kind != UNDO and e.seq not in undone]


def replay_entries(game: Game, player_count: int, options: dict, entries) -> tuple[list, Any]:
    state = game.new_state(player_count, options)
    before = []
    for e in entries:
        before.append(state)
        state = game.apply(state, e.seat, e.as_entry())
    return before, state


# The newest replay of each game this process made, by (store, table, game number). A replay stays
# right for its version in every process (a version's log never changes), and a later version is
# replayed on from it, so an older one never replaces it. One per game, and room for thousands: at a
# venue each table's replay was pushed out by the other tables' entries between two of its own, so
# every entry replayed its game from the start.
_cache: LRUCache = LRUCache(maxsize=4096)
_cache_lock = threading.Lock()  # cachetools' caches are not safe across threads by themselves


def _cached(key) -> Replay | None:
    with _cache_lock:
        return _cache.get(key)


def _keep(key, replay: Replay) -> None:
    """Keep `replay` unless a newer one of the same game is kept already."""
    with _cache_lock:
        known = _cache.get(key)
        if known is None or known.version <= replay.version:
            _cache[key] = replay


def load_replay(store: TableLog, table: TableInfo, game_no: int | None = None,
                version: int | None = None) -> Replay:
    """The replay of game `game_no` (None: the current one) up to its last entry, or up to at least
    `version` when the caller read that with the table (TableInfo.version_when_read: one query fewer)."""
    game_no = game_no or table.current_game
    if version is None:
        version = store.version(table.code, game_no)
    key = (store.url, table.code, game_no)
    known = _cached(key)
    if known is not None and known.version >= version:
        return known
    rep = (known is not None and _replayed_on(store, known)) or _replayed(store, table, game_no)
    _keep(key, rep)
    return rep


def _replayed(store: TableLog, table: TableInfo, game_no: int) -> Replay:
    """The game's whole log, replayed from the start."""
    info = store.game(table.code, game_no)
    if info is None:
        raise TableError(404, "Table {code} has no game {game_no}.", code=table.code, game_no=game_no)
    entries = store.entries(table.code, game_no)
    game = get_game(info.game)
    eff = effective_entries(entries)
    before, state = replay_entries(game, len(table.seats), info.options, eff)
    return Replay(game, info, entries[-1].seq if entries else 0, tuple(entries), tuple(eff),
                  tuple(before), state)


def _replayed_on(store: TableLog, known: Replay) -> Replay | None:
    """`known` with the entries logged after it applied on top, or None when one of them is an undo
    (what counts changes: the game is replayed from the start)."""
    newer = store.entries_after(known.info.table_code, known.info.game_no, known.version)
    if not newer or any(e.kind == UNDO for e in newer):
        return None
    state, before = known.state, list(known.before)
    for e in newer:
        before.append(state)
        state = known.game.apply(state, e.seat, e.as_entry())
    # the entry that ended the game also stamped it finished: read when, as the store has it
    info = known.info if not known.game.finished(state) else (
        store.game(known.info.table_code, known.info.game_no) or known.info)
    return Replay(known.game, info, newer[-1].seq, known.entries + tuple(newer), known.effective + tuple(newer),
                  tuple(before), state)


def check_key(key) -> str | None:
    if key is None or key == "":
        return None
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise TableError(400, "The idempotency key must be printable text of at most {max_key_length} characters.", max_key_length=MAX_KEY_LENGTH)
    return key


def _same_request(first: Entry, entry: dict) -> bool:
    """Is `entry` the request that logged `first`, sent again?"""
    if first.kind != entry["kind"]:
        return False
    if first.kind == UNDO:
        return True
    return first.payload == {k: v for k, v in entry.items() if k not in ("kind", "key")}


def record(store: TableLog, table: TableInfo, seat: int, entry: dict, key: str | None = None,
           replay: Replay | None = None, by_host: bool = False,
           device: str | None = None, holder: str | None = None) -> tuple[Entry, Replay, bool]:
    """Check `entry` for `seat` against the rules and append it to the current game's log.

    `replay`, if given, is the current game's replay the caller already loaded (saves a read;
    a stale one only costs a retry). `by_host`: the host enters this for the seat, which is only
    allowed while the game is waiting for that seat (never over a choice the player made).
    `device`: the writing device's fingerprint, kept with the entry (see `seat_viewer`). `holder`: the
    seat token the writer showed, when `table` may be an earlier read: the entry is written only while
    the token is still the seat's and the game the table's current one (records.NoLongerHeld). Returns
    (entry, replay after it, created). A repeated idempotency key returns the
    entry recorded the first time and created=False. Raises RuleError for an entry the
    rules refuse and TableError for anything else; nothing is written in either case.
    """
    if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
        raise TableError(400, 'An entry is a JSON object with a "kind".')
    key = check_key(key)
    game_no = table.current_game
    for _attempt in range(50):
        # A key is answered once per table. A seat's key is unique in its game's log (storage), so one
        # repeated in the same game first meets the rules or the append, and is looked up after either
        # refuses it; one sent in an earlier game (a resend after a rematch) is looked up first, and so
        # is a host action's, whose seat is NULL, which the constraint does not compare.
        first = _sent_before(store, table, seat, entry, key) if key and (
            seat is None or game_no > 1 or _attempt > 0) else None
        if first is not None:
            return first, load_replay(store, table, game_no), False
        rep = replay if replay is not None and _attempt == 0 else load_replay(store, table, game_no)
        try:
            if by_host and seat not in rep.game.waiting_for(rep.state):
                raise RuleError("{name} has already entered this; only they can change it.", name=table.seats[seat].name)
            payload, new_state, new_eff, new_before = _plan(rep, table, seat, entry)
        except RuleError as exc:
            # Refused against the log as read; if the log moved on meanwhile (or this very
            # entry landed from a retried request), judge it again against the newer log.
            if _log_moved(store, table, game_no, rep.version, seat, key):
                continue
            raise exc.named(table.names) from None
        result = result_of(rep.game, new_state, table) if rep.game.finished(new_state) else None
        try:
            saved = store.append(table.code, game_no, rep.version + 1, seat, entry["kind"], payload, key,
                                 device, finished=result, holder=holder)
        except Conflict:
            continue  # somebody wrote first: check again against the newer log
        if new_eff is None:
            new_eff = rep.effective + (saved,)
            new_before = rep.before + (rep.state,)
        # the entry that ends the game also stamped it finished: the replay kept says when, as the store reads it
        info = rep.info if result is None else (store.game(table.code, game_no) or rep.info)
        after = Replay(rep.game, info, saved.seq, rep.entries + (saved,), tuple(new_eff),
                       tuple(new_before), new_state)
        _keep((store.url, table.code, game_no), after)
        return saved, after, True
    raise TableError(409, "The table is very busy right now; please try again.")


def _sent_before(store: TableLog, table: TableInfo, seat: int | None, entry: dict, key: str) -> Entry | None:
    """The entry first logged under `key` at this table, if `entry` is that request sent again."""
    first = store.entry_by_key(table.code, seat, key)
    if first is not None and not _same_request(first, entry):
        raise TableError(409, "That idempotency key was already used for a different entry.")
    return first


def _log_moved(store: TableLog, table: TableInfo, game_no: int, version: int, seat: int, key: str | None) -> bool:
    return store.version(table.code, game_no) != version or bool(
        key and store.entry_by_key(table.code, seat, key))


def _plan(rep: Replay, table: TableInfo, seat: int, entry: dict):
    """(payload to log, new state, new effective entries or None, their before-states)."""
    if rep.finished:
        raise RuleError("The game is over: start a rematch to play again.")
    if entry["kind"] == UNDO:
        return _plan_undo(rep, table, seat)
    if entry["kind"] not in rep.game.entry_kinds:
        raise RuleError("{title} has no entry of kind {entry!r}.", title=rep.game.title, entry=entry['kind'])
    check_fields(rep.game, entry)
    payload = {k: v for k, v in entry.items() if k not in ("kind", "key")}
    return payload, rep.game.apply(rep.state, seat, entry), None, None


def check_fields(game: Game, entry: dict) -> None:
    """Refuse a field the game's entry of this kind does not have (a typo would be dropped silently)."""
    kind = entry["kind"]
    fields = game.entry_fields[kind]
    extra = [k for k in entry if k != "kind" and k != "key" and k not in fields]
    if extra:
        extra.sort(key=str)
        has = ", ".join(f'"{f}"' for f in fields) or "no fields besides its kind"
        raise MalformedEntry('A "{kind}" entry has no field "{extra}" (it has: {has}).', kind=kind, extra=extra[0], has=has)


def _plan_undo(rep: Replay, table: TableInfo, seat: int):
    target = _undo_target(rep, seat)
    before, state = _replayed_without(rep, target, table.names)
    return {"target": rep.effective[target].seq}, state, rep.effective[:target] + rep.effective[target + 1:], before


def undo_refusal(rep: Replay, table: TableInfo, seat: int) -> str | None:
    """Why Undo would be refused for `seat` now (None: it would be taken), found exactly as an undo
    is recorded: the sheets show an Undo button only where this is None."""
    if seat not in rep.undo_answers:
        rep.undo_answers[seat] = _undo_answer(rep, table, seat)
    return rep.undo_answers[seat]


def _undo_answer(rep: Replay, table: TableInfo, seat: int) -> str | None:
    if rep.finished:
        return Text("The game is over: start a rematch to play again.")
    try:
        _replayed_without(rep, _undo_target(rep, seat), table.names)
    except RuleError as exc:
        return exc.named(table.names).reason
    return None


def _undo_target(rep: Replay, seat: int) -> int:
    """Where in the effective log the seat's last entry stands; RuleError when the rules keep it."""
    own = [i for i, e in enumerate(rep.effective) if e.seat == seat]
    if not own:
        raise RuleError("There is nothing of yours to undo.")
    target = own[-1]
    entry = rep.effective[target]
    refusal = rep.game.undo_refusal(seat, entry.as_entry(), rep.before[target], rep.state)
    if refusal:
        raise RuleError(refusal)
    return target


def _replayed_without(rep: Replay, target: int, names: list[str]) -> tuple[list, Any]:
    """(the before-states, the state) of the log without its `target`-th effective entry. The entries
    before it replay as they did, so only the ones after it are applied again."""
    before, state = list(rep.before[:target]), rep.before[target]
    for e in rep.effective[target + 1:]:
        before.append(state)
        try:
            state = rep.game.apply(state, e.seat, e.as_entry())
        except RuleError:
            who = names[e.seat] if e.seat is not None and 0 <= e.seat < len(names) else "the host"
            raise RuleError("That entry can't be undone any more: {who} played after it, and that play depends on it.", who=who) from None
    return before, state


def result_of(game: Game, state, table: TableInfo) -> dict:
    result = {
        "totals": list(game.totals(state)),
        "winners": list(game.winners(state)),
        "names": table.names,
        # each seat's figures for its record across games (Game.record), kept with the result
        "records": [game.record(state, seat) for seat in range(len(table.seats))],
    }
    categories = game.categories(state)
    if categories:  # what the result card shows besides the totals (Game.categories)
        result["categories"] = [{"label": label, "points": list(points)} for label, points in categories]
    return result


def seat_viewer(rep: Replay, seat: int, device: str | None) -> Viewer:
    """The viewer a device holding `seat` is: the seat's own, unless the seat has a choice still
    kept secret that another device entered (a phone that took the seat over mid-round, or a
    second phone at a pass-and-play table): a secret is shown only where it was chosen."""
    if has_secrets(rep.game):  # only games with secrets pay for the check
        anyone = Viewer.table()
        for e, before in zip(rep.effective, rep.before):
            if e.seat == seat and e.device != device and rep.game.secret(
                    e.seat, e.as_entry(), before, rep.state, anyone):
                return Viewer.shared(seat)
    return Viewer.own(seat)


def has_secrets(game: Game) -> bool:
    return type(game).secret is not Game.secret


def visible_log(rep: Replay, viewer: Viewer, device: str | None = None) -> list[dict]:
    """The log as `viewer` may see it: entries the game keeps secret from it are masked. `device`:
    the reader's fingerprint, for a seat's viewer (see `seat_viewer`)."""
    state_before = {e.seq: b for e, b in zip(rep.effective, rep.before)}
    undone = rep.undone
    out = []
    for e in rep.entries:
        item = {"seq": e.seq, "seat": e.seat, "kind": e.kind, "time": e.created_at.isoformat()}
        hidden = False
        if e.kind != UNDO and e.seq in state_before:
            hidden = rep.game.secret(e.seat, e.as_entry(), state_before[e.seq], rep.state, viewer)
        elif e.seq in undone and has_secrets(rep.game):
            hidden = _undone_hidden(rep, e, viewer, device)
        item.update({"hidden": True} if hidden else e.payload)
        if e.seq in undone:
            item["undone"] = True
        out.append(item)
    return out


def _undone_hidden(rep: Replay, e: Entry, viewer: Viewer, device: str | None) -> bool:
    """Is the undone entry `e` hidden from `viewer`? It keeps the secrecy it had when it was taken
    back, for good; and a seat's device other than the one that chose it reads it as a shared device
    would (a phone that took the seat over, or joined it at a pass-and-play table, undoing it)."""
    around = rep.around_undone.get(e.seq)
    if around is None:
        return False
    if viewer.kind == "seat" and (device is None or e.device != device):
        viewer = Viewer.shared(viewer.seat)
    before, taken_back = around
    return rep.game.secret(e.seat, e.as_entry(), before, taken_back, viewer)


def last_entry_text(game: Game, latest_first, now, viewer: Viewer, names: list[str]) -> str | None:
    """The latest entry `viewer` may see, in the game's words. `latest_first` gives (seat, entry,
    before, after) from the newest entry back; one still kept secret from the viewer is passed over,
    never told."""
    for seat, entry, before, after in latest_first:
        if game.secret(seat, entry, before, now, viewer):
            continue
        text = game.describe(seat, entry, before, after, names)
        if text:
            return text
    return None


def steps_latest_first(rep: Replay):
    """(seat, entry, before, after) for each entry that counts, the newest first (made as asked for:
    most pages need only the last one)."""
    after = rep.state
    for i in range(len(rep.effective) - 1, -1, -1):
        e, before = rep.effective[i], rep.before[i]
        yield e.seat, e.as_entry(), before, after
        after = before


def last_entry(rep: Replay, viewer: Viewer, names: list[str]) -> str | None:
    """What the table's latest entry did, as `viewer` may be told (an undo says only who took one back)."""
    if rep.entries and rep.entries[-1].kind == UNDO:
        seat = rep.entries[-1].seat
        return Text("{seat} took back an entry.", seat=names[seat]) if seat is not None and 0 <= seat < len(names) else None
    return last_entry_text(rep.game, steps_latest_first(rep), rep.state, viewer, names)


def name_refusal(name: str, what: str, most: int) -> str | None:
    """Why `name` (spacing already tidied) cannot be a name people read on every screen, or None.
    Printable rules out control characters, right-to-left overrides and broken characters alike."""
    if not name:
        return Text("Every player needs a name.") if what == "A player name" else Text("{what} cannot be empty.", what=what)
    if not name.isprintable():
        return Text("{what} can only hold printable characters.", what=what)
    if len(name) > most:
        return Text("{what} can be at most {most} characters long.", what=what, most=most)
    return None


def checked_log(table: TableInfo, info: GameInfo, entries) -> Replay:
    """A game's whole log replayed as `record` would have taken it, one entry at a time (an import
    trusts no log it did not write): TableError naming the first entry the rules or the log's order
    would have refused."""
    game = get_game(info.game)
    try:
        start = game.new_state(len(table.seats), info.options)
    except RuleError as exc:
        raise TableError(422, "its options do not fit its players: {reason_value}", reason_value=exc.reason) from None
    rep = Replay(game, info, 0, (), (), (), start)
    for e in entries:
        if e.seq != rep.version + 1:
            raise TableError(422, "entry {seq} follows entry {version}: the numbers have a gap.", seq=e.seq, version=rep.version)
        if not isinstance(e.seat, int) or not 0 <= e.seat < len(table.seats):
            raise TableError(422, "entry {seq} is by a seat the table does not have.", seq=e.seq)
        try:
            payload, state, effective, before = _plan(rep, table, e.seat, e.as_entry())
        except RuleError as exc:
            raise TableError(422, "entry {seq} is one the rules refuse: {reason_value}", seq=e.seq, reason_value=exc.named(table.names).reason) from None
        if payload != e.payload:
            raise TableError(422, "entry {seq} does not say what it does as the rules would log it.", seq=e.seq)
        rep = Replay(game, info, e.seq, rep.entries + (e,),
                     tuple(effective) if effective is not None else rep.effective + (e,),
                     tuple(before) if before is not None else rep.before + (rep.state,), state)
    return rep


def new_table(store: TableLog, game_id: str, names, options, pass_and_play: bool = False,
              seats_taken: bool = False) -> TableInfo:
    game = get_game(game_id)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise TableError(400, '"players" must be a list of names.')
    names = [" ".join(n.split()) for n in names]
    for name in names:
        refusal = name_refusal(name, "A player name", MAX_NAME_LENGTH)
        if refusal:
            raise TableError(400, refusal)
    if not game.min_players <= len(names) <= game.max_players:
        raise TableError(400, "{title} is for {min_players} to {max_players} players; got {count}.", title=game.title, min_players=game.min_players, max_players=game.max_players, count=len(names))
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise TableError(400, '"options" must be a JSON object.')
    options = game.normalize_options(options)
    game.new_state(len(names), options)  # an option that only fails at setup fails here, not mid-game
    return store.create_table(game.id, options, names, bool(pass_and_play), seats_taken)
