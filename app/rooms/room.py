"""One room: seats, tokens, connections, the game, timers and bot turns, behind one lock.

Every message and every timer runs under the room's `asyncio.Lock`, in arrival order, and a
rejected message raises `ProtocolError` before anything changes. After every change each
connection gets a `state` built by `_state_frames`, the one place that turns the game into
what a connection may see (through the engine's `player_view`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any, Literal, Protocol

import orjson

from app.engine import (
    Bid,
    Calza,
    Dudo,
    Event,
    Game,
    GameEnded,
    GameSettings,
    GameView,
    RoundEnded,
    RuleError,
    no_legal,
    player_view,
)
from app.engine.bot import choose_action, maybe_calza
from app.engine.game import Action
from app.engine.view import PlayerPublic, YouView, table_view, you_view
from app.protocol import (
    AddBot,
    BidMessage,
    BotLevel,
    CalzaMessage,
    Chat,
    DudoMessage,
    ErrorCode,
    Hello,
    Join,
    Kick,
    Leave,
    ProtocolError,
    Rematch,
    Resume,
    RoomMessage,
    RoomSettings,
    SettingsChange,
    Start,
    Watch,
    encode,
)
from app.rooms.clock import Scheduler, Timer

logger = logging.getLogger(__name__)

Phase = Literal["lobby", "playing", "finished"]
TOKEN_BYTES = 24  # 192 random bits
BOT_NAMES = (
    "Ana", "Bruno", "Carmen", "Diego", "Elena", "Felipe",
    "Gloria", "Hugo", "Inés", "Jorge", "Lucía", "Mateo",
)  # fmt: skip
AUTOPLAY_LEVEL: BotLevel = "normal"
CALZA_THOUGHT = 0.5  # bots weigh a calza after this share of their think time
SUPERSEDED = 4000
UNKNOWN_ROOM = 4404


class Connection(Protocol):
    """What a room needs of a client connection; both calls must return at once."""

    def send(self, text: str) -> None: ...

    def close(self, code: int) -> None: ...


class GameStore(Protocol):
    """Where finished games go (`app.db.repository.GameRepository`); called in a thread."""

    def save_game(self, record: Mapping[str, Any]) -> str: ...


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """Server-wide room timings, from Settings."""

    bot_delay: float = 0.9
    disconnect_grace: float = 20.0


@dataclass(eq=False, slots=True)
class Seat:
    """A seat held by a person (with a token) or a bot (with a level)."""

    number: int
    name: str
    token: str | None
    level: BotLevel | None = None
    conn: Connection | None = None
    disconnected_at: float = 0.0
    autoplay: bool = False  # the server's bot plays this person's seat
    autoplay_since: float = 0.0

    @property
    def bot(self) -> bool:
        return self.token is None

    @property
    def automated(self) -> bool:
        return self.bot or self.autoplay


class Room:
    """A table: the lobby, then games, then rematches."""

    def __init__(
        self,
        room_id: str,
        settings: RoomSettings,
        *,
        scheduler: Scheduler,
        config: RoomConfig | None = None,
        store: GameStore | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.room_id = room_id
        self.settings = settings
        self.config = config or RoomConfig()
        self.lock = asyncio.Lock()
        self.seats: dict[int, Seat] = {}
        self.host: int | None = None
        self.game: Game | None = None
        self.game_id: str | None = None
        self.seq = 0
        self._scheduler = scheduler
        self._store = store
        self._rng = rng or secrets.SystemRandom()
        self.tokens: dict[str, int] = {}  # a seat's token -> its number
        self._viewers: dict[Connection, int | None] = {}
        self.game_no = 0
        self.started_at = ""
        self._timer: Timer | None = None
        self._calza_timer: Timer | None = None
        self._calza_weighed: tuple[int, int, int] | None = None
        self._turn_key: tuple[int, int, int] | None = None
        self._turn_started = 0.0
        self._turn_deadline: float | None = None
        self._jitter = 0.0
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self.last_change = scheduler.now()

    # ----- queries -------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self.game is None:
            return "lobby"
        return "finished" if self.game.finished else "playing"

    @property
    def connections(self) -> int:
        return len(self._viewers)

    def info(self) -> dict[str, Any]:
        """`GET /api/rooms/{room_id}`."""
        return {
            "room_id": self.room_id,
            "phase": self.phase,
            "players": [
                {"seat": seat.number, "name": seat.name, "bot": seat.bot}
                for seat in self.seat_list()
            ],
            "settings": self.settings.model_dump(),
        }

    # ----- entry points (each takes the lock) ----------------------------------------------

    async def hello(self, conn: Connection, message: Hello) -> None:
        """Seat, re-seat or seat-less: answer `welcome`, then everyone gets a `state`."""
        async with self.lock:
            if self._closed:  # dropped from the registry after this socket found it
                conn.close(UNKNOWN_ROOM)
                return
            if isinstance(message, Join):
                seat, token = self._join(conn, message.name)
            elif isinstance(message, Resume):
                seat, token = self._resume(conn, message.token)
            else:
                seat, token = None, None
                self._viewers[conn] = None
            conn.send(
                encode({"type": "welcome", "room_id": self.room_id, "seat": seat, "token": token})
            )
            self._changed()

    async def receive(self, conn: Connection, message: RoomMessage) -> None:
        """Apply one message from a connection that said hello; ProtocolError if refused."""
        async with self.lock:
            if conn not in self._viewers:
                return  # superseded by a newer connection on its seat; being closed
            seat = self._viewers[conn]
            if isinstance(message, Join | Resume | Watch):
                raise ProtocolError("bad_message", "This connection has already said hello.")
            if isinstance(message, Chat):
                self._chat(seat, message.text)
                return
            if isinstance(message, BidMessage | DudoMessage | CalzaMessage):
                self._play(seat, message)
            elif isinstance(message, Leave):
                self._leave(conn, seat)
            else:
                self._host_action(seat, message)
            self._changed()

    async def disconnect(self, conn: Connection) -> None:
        """A socket went away: the seat stays, shown offline (the bot may step in later)."""
        async with self.lock:
            if conn not in self._viewers:
                return
            seat = self._viewers.pop(conn)
            if seat is not None and self.seats[seat].conn is conn:
                self.seats[seat].conn = None
                self.seats[seat].disconnected_at = self._scheduler.now()
            self._changed()

    async def close(self, code: int = 1001) -> None:
        """Stop timers and close every connection (the room is being dropped)."""
        async with self.lock:
            self._closed = True
            self._cancel_timer()
            for conn in self._viewers:
                conn.close(code)
            self._viewers.clear()
        await self.settle()

    async def settle(self) -> None:
        """Wait for background work (saving a finished game) to finish."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # ----- hellos --------------------------------------------------------------------------

    def _join(self, conn: Connection, name: str) -> tuple[int, str]:
        if self.game is not None:
            raise ProtocolError("game_in_progress", "The game has started; you can watch.")
        self._check_name_free(name)
        free = [n for n in range(self.settings.max_players) if n not in self.seats]
        if not free:
            raise ProtocolError("room_full", "Every seat is taken.")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        seat = Seat(free[0], name, token, conn=conn)
        self.seats[seat.number] = seat
        self.tokens[token] = seat.number
        if self.host is None:
            self.host = seat.number
        self._viewers[conn] = seat.number
        return seat.number, token

    def _resume(self, conn: Connection, token: str) -> tuple[int, str]:
        number = self.tokens.get(token)
        if number is None:
            raise ProtocolError("unknown_token", "No seat in this room has that token.")
        seat = self.seats[number]
        if seat.conn is not None:
            self._viewers.pop(seat.conn, None)
            seat.conn.close(SUPERSEDED)
        seat.conn = conn
        seat.autoplay = False
        self._viewers[conn] = number
        return number, token

    def _check_name_free(self, name: str) -> None:
        folded = name.casefold()
        if any(seat.name.casefold() == folded for seat in self.seats.values()):
            raise ProtocolError("name_taken", f"Someone here is already called {name}.")

    # ----- messages ------------------------------------------------------------------------

    def _chat(self, seat: int | None, text: str) -> None:
        if seat is None:
            raise ProtocolError("not_joined", "Only seated players may chat.")
        frame = encode({"type": "chat", "seat": seat, "name": self.seats[seat].name, "text": text})
        for conn in self._viewers:
            conn.send(frame)

    def _play(self, seat: int | None, message: BidMessage | DudoMessage | CalzaMessage) -> None:
        if self.game is None:
            raise ProtocolError("game_not_running", "The game has not started.")
        action: Action
        if isinstance(message, BidMessage):
            action = Bid(message.quantity, message.face)
        elif isinstance(message, DudoMessage):
            action = Dudo()
        else:
            action = Calza()
        if seat is None:
            if isinstance(action, Calza):
                raise ProtocolError("calza_not_allowed", "Spectators may not call calza.")
            raise ProtocolError("not_your_turn", "Spectators do not play.")
        try:
            events = self.game.apply(seat, action)
        except RuleError as exc:
            raise ProtocolError(exc.code, exc.message) from None
        self._after(events)

    def _leave(self, conn: Connection, number: int | None) -> None:
        if number is None:
            raise ProtocolError("not_joined", "You hold no seat.")
        seat = self.seats[number]
        self._viewers[conn] = None
        seat.conn = None
        if self.game is None:
            self._free(seat)
        else:
            seat.autoplay = True
            seat.autoplay_since = seat.disconnected_at = self._scheduler.now()
        if self.host == number:
            self.host = self._next_host()

    def _next_host(self) -> int | None:
        """The lowest seated human still at the table. With none left, a lobby waits for a
        newcomer to host (None); a game keeps its departed host, who may resume."""
        humans = [s.number for s in self.seat_list() if not s.bot and not s.autoplay]
        if humans:
            return humans[0]
        return self.host if self.game is not None else None

    def _free(self, seat: Seat) -> None:
        del self.seats[seat.number]
        if seat.token is not None:
            del self.tokens[seat.token]

    def _host_action(
        self, seat: int | None, message: SettingsChange | AddBot | Kick | Start | Rematch
    ) -> None:
        if seat is None or seat != self.host:
            raise ProtocolError("not_host", "Only the host may do that.")
        if isinstance(message, Rematch):
            if self.phase != "finished":
                code: ErrorCode = (
                    "game_in_progress" if self.phase == "playing" else "game_not_running"
                )
                raise ProtocolError(code, "A rematch follows a finished game.")
            self._start_game()
            return
        if self.game is not None:
            raise ProtocolError("game_in_progress", "Not while a game is on.")
        if isinstance(message, SettingsChange):
            self._change_settings(message.changes())
        elif isinstance(message, AddBot):
            self._add_bot(message.level)
        elif isinstance(message, Kick):
            self._kick(message.seat)
        else:
            if len(self.seats) < 2:
                raise ProtocolError("not_enough_players", "A game needs at least two players.")
            self._start_game()

    def _change_settings(self, changes: dict[str, Any]) -> None:
        updated = self.settings.model_copy(update=changes)
        if any(number >= updated.max_players for number in self.seats):
            raise ProtocolError(
                "bad_message", "Seats above max_players are taken; free them first."
            )
        self.settings = updated

    def _add_bot(self, level: BotLevel) -> None:
        number = next((n for n in range(self.settings.max_players) if n not in self.seats), None)
        if number is None:
            raise ProtocolError("room_full", "Every seat is taken.")
        taken = {seat.name.casefold() for seat in self.seats.values()}
        names = [f"Bot {n}" for n in BOT_NAMES if f"Bot {n}".casefold() not in taken]
        name = self._rng.choice(names) if names else f"Bot {number + 1}"
        self.seats[number] = Seat(number, name, None, level=level)

    def _kick(self, number: int) -> None:
        seat = self.seats.get(number)
        if seat is None or number == self.host:
            raise ProtocolError("bad_message", "There is no one to kick in that seat.")
        if seat.conn is not None:
            self._viewers[seat.conn] = None
        self._free(seat)

    # ----- the game --------------------------------------------------------------------------

    def _start_game(self) -> None:
        game_settings = GameSettings(
            calza=self.settings.calza,
            palifico=self.settings.palifico,
            calza_rule=self.settings.calza_rule,
        )
        self.game = Game(sorted(self.seats), self._rng, game_settings)
        self.game_id = None
        self.game_no += 1
        self.started_at = _utc_now()

    def _after(self, events: list[Event]) -> None:
        """Broadcast what the events reveal; a finished game goes to the store."""
        for event in events:
            if isinstance(event, RoundEnded):
                frame = orjson.dumps({"type": "round_result", **event.result.to_dict()}).decode()
                for conn in self._viewers:
                    conn.send(frame)
            elif isinstance(event, GameEnded):
                self._save_finished_game()

    def _save_finished_game(self) -> None:
        if self._store is None:
            return
        task = asyncio.create_task(self._save(self.game_no, self._record()))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _record(self) -> dict[str, Any]:
        """The finished game in the `GET /api/games/{id}` shape, without `game_id`."""
        game = self.game
        assert game is not None and game.winner is not None
        places = game.places()
        return {
            "room_id": self.room_id,
            "started_at": self.started_at,
            "finished_at": _utc_now(),
            "settings": self.settings.model_dump(),
            "winner": {"seat": game.winner, "name": self.seats[game.winner].name},
            "players": [
                {"seat": s.number, "name": s.name, "bot": s.bot, "place": places[s.number]}
                for s in self.seat_list()
            ],
            "rounds": [record.to_dict() for record in game.rounds],
        }

    async def _save(self, game_no: int, record: dict[str, Any]) -> None:
        assert self._store is not None
        try:
            game_id = await asyncio.to_thread(self._store.save_game, record)
        except Exception:
            logger.exception("could not save the finished game of room %s", self.room_id)
            return
        async with self.lock:
            if game_no == self.game_no:
                self.game_id = game_id
                self._changed()

    # ----- timers and bots -------------------------------------------------------------------

    def _cancel_timer(self) -> None:
        for timer in (self._timer, self._calza_timer):
            if timer is not None:
                timer.cancel()
        self._timer = self._calza_timer = None

    def rearm_timers(self) -> None:
        """Arm the timers that may act next: the one for the seat to play (bot, turn timer or
        grace) and, after a bid, the bots' calza decision."""
        self._cancel_timer()
        game = self.game
        if game is None or game.round is None:
            self._turn_key = None
            self._turn_deadline = None
            return
        now = self._scheduler.now()
        key = (self.game_no, game.round.number, len(game.round.bids))
        if key != self._turn_key:
            self._turn_key = key
            self._turn_started = now
            self._jitter = self._rng.uniform(0.0, 0.3) * self.config.bot_delay
            turn_seconds = self.settings.turn_seconds
            self._turn_deadline = now + turn_seconds if turn_seconds is not None else None
        seat = self.seats[game.round.turn]
        due: list[float] = []
        if seat.automated:
            start = max(self._turn_started, seat.autoplay_since)
            due.append(start + self.config.bot_delay + self._jitter)
        else:
            if self._turn_deadline is not None:
                due.append(self._turn_deadline)
            if seat.conn is None:
                start = max(self._turn_started, seat.disconnected_at)
                due.append(start + self.config.disconnect_grace)
        if due:
            self._timer = self._scheduler.call_at(min(due), partial(self._on_timer, key))
        if key != self._calza_weighed and self._calza_candidates(game):
            self._calza_timer = self._scheduler.call_at(
                self._turn_started + CALZA_THOUGHT * self.config.bot_delay,
                partial(self._on_calza_timer, key),
            )

    def _calza_candidates(self, game: Game) -> list[Seat]:
        """Bot-played seats that may call calza on the standing bid, clockwise from its bidder."""
        round_ = game.round
        if round_ is None or round_.standing is None:
            return []
        bidder = round_.standing.seat
        order = sorted(self.seats, key=lambda number: (number <= bidder, number))
        return [
            self.seats[number]
            for number in order
            if self.seats[number].automated and game.options(number).calza
        ]

    async def _on_calza_timer(self, key: tuple[int, int, int]) -> None:
        """Each bot-played seat that may call calza on the new bid decides, once per bid."""
        async with self.lock:
            game = self.game
            if key != self._turn_key or game is None or key == self._calza_weighed:
                return
            self._calza_weighed = key
            for seat in self._calza_candidates(game):
                if self._bot_calls_calza(game, seat):
                    self._after(game.apply(seat.number, Calza()))
                    self._changed()
                    return

    def _bot_calls_calza(self, game: Game, seat: Seat) -> bool:
        """The bot's out-of-turn calza decision, from that seat's view only; no on failure."""
        try:
            return maybe_calza(
                player_view(game, seat.number), seat.level or AUTOPLAY_LEVEL, self._rng
            )
        except Exception:
            logger.exception("bot calza decision failed in room %s", self.room_id)
            return False

    async def _on_timer(self, key: tuple[int, int, int]) -> None:
        async with self.lock:
            game = self.game
            if key != self._turn_key or game is None or game.round is None:
                return
            seat = self.seats[game.round.turn]
            now = self._scheduler.now()
            if not seat.automated:
                grace_over = seat.conn is None and now >= (
                    max(self._turn_started, seat.disconnected_at) + self.config.disconnect_grace
                )
                if grace_over:
                    seat.autoplay = True
                    seat.autoplay_since = now
                elif self._turn_deadline is None or now < self._turn_deadline:
                    self.rearm_timers()  # woke early
                    return
            self._after(self._bot_move(game, seat))
            self._changed()

    def _bot_move(self, game: Game, seat: Seat) -> list[Event]:
        """The bot's action for `seat`, chosen from that seat's view only."""
        view = player_view(game, seat.number)
        try:
            return game.apply(
                seat.number, choose_action(view, seat.level or AUTOPLAY_LEVEL, self._rng)
            )
        except Exception:
            logger.exception("bot failed in room %s; playing the safe move", self.room_id)
            return game.apply(seat.number, _safe_action(view))

    # ----- broadcasting ----------------------------------------------------------------------

    def _changed(self) -> None:
        """After every change: re-arm the timer, then send everyone a fresh `state`."""
        self.last_change = self._scheduler.now()
        self.rearm_timers()
        self.seq += 1
        for conn, frame in self._state_frames().items():
            conn.send(frame)

    def _state_frames(self) -> dict[Connection, str]:
        """The `state` for every connection: the public part serialised once, `you` per seat.

        Everything about the game comes from the engine's view functions: `table_view` is the
        same for every seat, `you_view` is the only part with hidden dice.
        """
        game = self.game
        public = table_view(game) if game is not None else None
        in_game: dict[int, PlayerPublic] = {}
        if public is not None:
            in_game = {player["seat"]: player for player in public["players"]}
            if public["round"] is not None:
                public["round"]["turn_deadline"] = self._turn_deadline
        state = {
            "type": "state",
            "seq": self.seq,
            "room_id": self.room_id,
            "phase": self.phase,
            "settings": self.settings.model_dump(),
            "host": self.host,
            "players": [
                {
                    **in_game.get(s.number, _lobby_player(s.number)),
                    "name": s.name,
                    "connected": s.bot or s.conn is not None,
                    "bot": s.bot,
                    "autoplay": s.autoplay,
                    "level": s.level,
                }
                for s in self.seat_list()
            ],
            "round": public["round"] if public else None,
            "last_result": public["last_result"] if public else None,
            "winner": public["winner"] if public else None,
            "game_id": self.game_id,
            "server_time": self._scheduler.now(),
            "spectators": sum(1 for seat in self._viewers.values() if seat is None),
        }
        head = orjson.dumps(state)[:-1] + b',"you":'
        yous: dict[int | None, bytes] = {}
        frames: dict[Connection, str] = {}
        for conn, seat in self._viewers.items():
            if seat not in yous:
                you: YouView = (
                    you_view(game, seat)
                    if game is not None
                    else {"seat": seat, "dice": [], "legal": no_legal()}
                )
                yous[seat] = orjson.dumps(you)
            frames[conn] = (head + yous[seat] + b"}").decode()
        return frames

    def seat_list(self) -> list[Seat]:
        """The seats in seat order."""
        return [self.seats[number] for number in sorted(self.seats)]


def _lobby_player(seat: int) -> PlayerPublic:
    """A seat's game fields before the first game: no dice yet."""
    return {"seat": seat, "dice": 0, "out": False, "palifico_used": False}


def _safe_action(view: GameView) -> Action:
    """A legal move read off `you.legal`, for when the bot strategy fails."""
    legal = view["you"]["legal"]
    if legal["dudo"]:
        return Dudo()
    face, quantity = next((f, q) for f, q in enumerate(legal["min_quantity"], 1) if q is not None)
    return Bid(quantity, face)


def _utc_now() -> str:
    return datetime.now(UTC).isoformat()
