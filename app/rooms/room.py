"""One room: the lock, the dispatch of client messages, and the game's lifecycle. Every
message and timer runs under the lock, in arrival order; a rejected message raises
`ProtocolError` before anything changes. See `seats`, `autoplay`, `audience`, `frames` and
`journal`."""

from __future__ import annotations

import asyncio
import random
from functools import partial

from app import protocol as wire
from app.engine import Calza, Event, Game, GameEnded, RoundEnded, RuleError
from app.engine.game import Action
from app.protocol import CloseCode, ProtocolError, RoomSettings
from app.rooms import autoplay, frames
from app.rooms.audience import Audience
from app.rooms.clock import Scheduler
from app.rooms.dice import SecureDice
from app.rooms.journal import Journal, Recorder
from app.rooms.persistence import GameSaver, SavedRoom, game_record, utc_now
from app.rooms.ports import Connection, GameStore, RoomConfig
from app.rooms.seats import Seat, Seats


class Room:
    """A table: the lobby, then a game, then back to the lobby for a rematch."""

    def __init__(
        self,
        room_id: str,
        settings: RoomSettings,
        *,
        scheduler: Scheduler,
        config: RoomConfig | None = None,
        store: GameStore | None = None,
        journal: Journal | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.room_id = room_id
        self.lock = asyncio.Lock()
        self.seq = 0
        self.last_change = scheduler.now()
        self.since = scheduler.now()  # when this process made or restored it
        self._settings = settings
        self._seats = Seats()
        self._game: Game | None = None
        self._game_id: str | None = None
        self._game_no, self._started_at = 0, ""
        self._audience = Audience((config or RoomConfig()).room_sockets)
        self._scheduler = scheduler
        self._saver = GameSaver(store, room_id)
        self._rng = rng or SecureDice()
        self.closed = False
        self._recorder = Recorder(journal)
        self._autoplay = autoplay.Autoplayer(self, scheduler, config or RoomConfig(), self._rng)

    @classmethod
    def restore(
        cls,
        saved: SavedRoom,
        *,
        scheduler: Scheduler,
        config: RoomConfig | None = None,
        store: GameStore | None = None,
        journal: Journal | None = None,
        rev: int = 0,
        rng: random.Random | None = None,
    ) -> Room:
        """The room `saved` describes as of its change `rev`, nobody connected, its timers
        armed from now; it records itself afresh, so a later restore counts `seq` on. Like a
        new room, it has one set of dice: its game's, or `rng` in the lobby."""
        dice = saved.game.rng if saved.game is not None else rng
        room = cls(
            saved.room_id,
            saved.settings,
            scheduler=scheduler,
            config=config,
            store=store,
            rng=dice,
        )
        room._recorder = Recorder(journal, rev)
        room._seats = Seats(saved.seats, saved.host)
        room._game, room._game_id, room._game_no = saved.game, saved.game_id, saved.game_no
        room._started_at, room.seq = saved.started_at, saved.seq
        room._autoplay.rearm()
        room.record()
        return room

    @property
    def phase(self) -> wire.Phase:
        if self._game is None:
            return "lobby"
        return "finished" if self._game.finished else "playing"

    @property
    def settings(self) -> RoomSettings:
        return self._settings

    @property
    def game(self) -> Game | None:
        return self._game

    @property
    def game_no(self) -> int:
        return self._game_no

    @property
    def seats(self) -> Seats:
        return self._seats

    @property
    def host(self) -> int | None:
        return self._seats.host

    @property
    def game_id(self) -> str | None:
        return self._game_id

    @property
    def started_at(self) -> str:
        return self._started_at

    @property
    def connections(self) -> int:
        return len(self._audience)

    # ----- entry points (each takes the lock) ----------------------------------------------

    async def hello(self, conn: Connection, message: wire.Hello) -> None:
        """Seat, re-seat or seat-less: answer `welcome` (and `history` during a game), then
        everyone gets a `state`."""
        async with self.lock:
            if self.closed:  # dropped from the registry after this socket found it
                return conn.close(CloseCode.UNKNOWN_ROOM)
            if not isinstance(message, wire.Resume) and self._audience.full:
                return conn.close(CloseCode.TRY_AGAIN_LATER)  # a seat's owner always gets in
            seat = self._seats.for_hello(message, self._game is not None, self._settings)
            if seat is not None:
                if seat.conn is not None:  # resumed: the older socket goes
                    self._audience.remove(seat.conn)
                    seat.conn.close(CloseCode.SUPERSEDED)
                seat.conn = conn
            self._audience.sit(conn, seat.number if seat else None)
            conn.send(frames.welcome_frame(self.room_id, seat))
            if seat is not None:
                seat.missed = ()
            if self._game is not None:
                conn.send(frames.history_frame(self._game))
            self._changed(lasting=seat is not None)

    async def receive(self, conn: Connection, message: wire.RoomMessage) -> None:
        """Apply one message from a connection that said hello; ProtocolError if refused."""
        async with self.lock:
            if conn not in self._audience:
                return  # superseded by a newer connection on its seat; being closed
            seat = self._audience.seat_of(conn)
            match message:
                case wire.Join() | wire.Resume() | wire.Watch():
                    raise ProtocolError("bad_message", "This connection has already said hello.")
                case wire.Chat(text=text):
                    if seat is None:
                        raise ProtocolError("not_joined", "Only seated players may chat.")
                    self._audience.broadcast(frames.chat_frame(self._seats[seat], text))
                    return
                case wire.BidMessage() | wire.DudoMessage() | wire.CalzaMessage():
                    self._play(seat, message.action())
                case wire.Leave():
                    if seat is None:
                        raise ProtocolError("not_joined", "You hold no seat.")
                    self._audience.sit(conn, None)
                    in_game = self._game is not None
                    self._seats.leave(seat, in_game=in_game, now=self._scheduler.now())
                case wire.Rematch():
                    self._as_host(seat, "finished")
                    self._rematch()
                case wire.Start():
                    self._as_host(seat, "lobby")
                    self._start()
                case wire.SettingsChange():
                    self._as_host(seat, "lobby")
                    self._change_settings(message)
                case wire.AddBot(level=level):
                    self._as_host(seat, "lobby")
                    self._seats.seat_bot(level, self._settings.max_players, self._rng)
                case wire.Kick(seat=number):
                    self._as_host(seat, "lobby")
                    kicked = self._seats.kick(number).conn
                    if kicked is not None:
                        self._audience.sit(kicked, None)  # it watches on
            self._changed()

    async def disconnect(self, conn: Connection) -> None:
        """A socket went away: the seat stays, shown offline (the bot may step in later)."""
        async with self.lock:
            if conn not in self._audience:
                return
            number = self._audience.remove(conn)
            seat = self._seats.get(number) if number is not None else None
            if seat is not None and seat.conn is conn:
                seat.conn = None
                seat.disconnected_at = self._scheduler.now()
            self._changed(lasting=False)

    async def close(self, code: CloseCode = CloseCode.GOING_AWAY) -> None:
        """Stop the timers and close every connection (the room is being dropped)."""
        async with self.lock:
            self.closed = True
            self._autoplay.close()
            self._audience.close_all(code)
        await self.settle()

    def notice(self, text: str) -> None:
        """The operator's `notice` to every connection now."""
        self._audience.broadcast(wire.encode({"type": "notice", "text": text}))

    async def close_by_operator(self, text: str) -> None:
        """The operator closes the room: everyone is told why, then closed with 4410 (a
        finished game still being saved is saved first)."""
        self.notice(text)
        await self.close(CloseCode.ROOM_CLOSED)

    async def settle(self) -> None:
        """Wait for background work (saving a finished game) to finish."""
        await self._saver.settle()

    def _as_host(self, number: int | None, phase: wire.Phase) -> None:
        """Host commands: only the host sends them, and only in `phase`."""
        if number is None or number != self._seats.host:
            raise ProtocolError("not_host", "Only the host may do that.")
        if self.phase != phase:
            code: wire.ErrorCode = (
                "game_not_running" if self.phase == "lobby" else "game_in_progress"
            )
            raise ProtocolError(code, f"Not now: the room is {self.phase}.")

    def _change_settings(self, message: wire.SettingsChange) -> None:
        updated = self._settings.model_copy(update=message.changes())
        if any(number >= updated.max_players for number in self._seats.numbers()):
            raise ProtocolError("bad_message", "Seats above max_players are taken; free them.")
        self._settings = updated

    def _play(self, number: int | None, action: Action) -> None:
        if self._game is None:
            raise ProtocolError("game_not_running", "The game has not started.")
        if number is None:
            if isinstance(action, Calza):
                raise ProtocolError("calza_not_allowed", "Spectators may not call calza.")
            raise ProtocolError("not_your_turn", "Spectators do not play.")
        try:
            events = self._game.apply(number, action)
        except RuleError as exc:
            raise ProtocolError(exc.code, exc.message) from None
        self._recorder.played(number, action, self._game)
        self._after(events)

    # ----- the game's lifecycle ------------------------------------------------------------

    def _start(self) -> None:
        if len(self._seats) < 2:
            raise ProtocolError("not_enough_players", "A game needs at least two players.")
        self._game = Game(self._seats.numbers(), self._rng, self._settings.rules())
        self._game_id = None
        self._game_no += 1
        self._started_at = utc_now()

    def _rematch(self) -> None:
        """Back to the lobby with the same seats (see `Seats.keep_for_rematch`)."""
        self._seats.keep_for_rematch()
        self._game = self._game_id = None

    def _after(self, events: list[Event]) -> None:
        """Announce what the events reveal (it goes out with the next states); a finished
        game goes to the store."""
        for event in events:
            if isinstance(event, RoundEnded):
                self._audience.announce(frames.round_result_frame(event.result))
            elif isinstance(event, GameEnded):
                self._saver.save(game_record(self), partial(self._saved, self._game_no))

    async def _saved(self, game_no: int, game_id: str) -> None:
        """Show the saved game's id, unless a rematch came first or the room is gone."""
        async with self.lock:
            if game_no == self._game_no and self.phase == "finished" and not self.closed:
                self._game_id = game_id
                self._changed()

    def played_for(
        self, seat: Seat, reason: wire.AutoplayReason | None, action: Action, events: list[Event]
    ) -> None:
        """A move the server made for `seat` (under the lock): a person's is announced (and
        recorded with a snapshot: the seat may have just gone over to the bot)."""
        if reason is not None:
            message = frames.autoplayed_message(seat.number, reason, action)
            self._audience.broadcast(wire.encode(message))
            if seat.conn is None:
                seat.missed += (message,)  # told on its return (`welcome`)
        elif self._game is not None:
            self._recorder.played(seat.number, action, self._game)
        self._after(events)
        self._changed()

    def record(self) -> None:
        """Record this room's last change in the journal: the action it was, or a snapshot."""
        self._recorder.record(self)

    def _changed(self, lasting: bool = True) -> None:
        """After every change: record it if `lasting` (not presence alone), re-arm the
        timers, then send everyone a fresh `state`."""
        self.seq += 1
        if lasting:
            self.record()
        self.last_change = self._scheduler.now()
        self._autoplay.rearm()
        self._audience.send_states(
            self, turn_deadline=self._autoplay.deadline, now=self._scheduler.now()
        )
