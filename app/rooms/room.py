"""One room: the lock, the dispatch of client messages, and the one path by which every move
reaches the game (boardgame.io's master). Every message and timer runs under the lock, in
arrival order; a rejected message raises `ProtocolError` before anything changes. Its lasting
state is its `RoomState`."""

from __future__ import annotations

import asyncio
import random
from functools import partial

from app import protocol as wire
from app.engine import Action, Bid, Event, GameEnded, PlacedBid, RoundEnded, RuleError
from app.protocol import CloseCode, ProtocolError
from app.rooms import autoplay, messages, thinking
from app.rooms.audience import Audience
from app.rooms.clock import Scheduler
from app.rooms.dice import SecureDice
from app.rooms.journal import Journal, Recorder
from app.rooms.ports import Connection, GameStore, RoomConfig
from app.rooms.saver import GameSaver, game_record, guest_standing
from app.rooms.state import RoomState
from app.rooms.turns import TurnClock, TurnKey


class Room:
    """A table: the lobby, then a game, then back to the lobby for a rematch. `Room(state)`
    is a new room or a restored one: nobody connected, timers armed from now, and its dice
    its game's (or `rng` in the lobby)."""

    def __init__(
        self,
        state: RoomState,
        *,
        scheduler: Scheduler,
        config: RoomConfig | None = None,
        store: GameStore | None = None,
        journal: Journal | None = None,
        rev: int = 0,
        rng: random.Random | None = None,
    ) -> None:
        self.state = state
        self.room_id = state.room_id
        self.lock = asyncio.Lock()
        self.since = self.last_change = scheduler.now()  # since: made or restored here
        self.closed = False
        self._config = config or RoomConfig()
        self.audience = Audience(self._config.room_sockets)  # read-only outside the room
        self._scheduler = scheduler
        self._store = store
        self._saver = GameSaver(store, state.room_id)
        self._rng = state.game.rng if state.game is not None else rng or SecureDice()
        self._recorder = Recorder(journal, rev)
        self._thinking: TurnKey | None = None  # the turn a bot thinks about, off the lock
        self._turns = TurnClock(
            scheduler, self._config, self._rng, on_turn=self._turn_due, on_calza=self._calza_due
        )
        self._turns.follow(state)

    async def hello(self, conn: Connection, message: wire.Hello) -> None:
        """Seat, re-seat or seat-less: answer `welcome` (and `history` during a game), then
        everyone gets a `state`."""
        guest = (
            await guest_standing(self._store, message) if isinstance(message, wire.Join) else True
        )
        async with self.lock:
            if self.closed:  # dropped from the registry after this socket found it
                return conn.close(CloseCode.UNKNOWN_ROOM)
            if not isinstance(message, wire.Resume) and self.audience.full:
                return conn.close(CloseCode.TRY_AGAIN_LATER)  # a seat's owner always gets in
            state = self.state
            seat = state.seats.for_hello(message, state.game is not None, state.settings, guest)
            self.audience.arrive(conn, seat, events=message.events)
            conn.send(messages.welcome_frame(self.room_id, seat))
            if seat is not None:
                seat.missed = ()
            if state.game is not None:
                conn.send(messages.history_frame(state.game))
            self._changed(lasting=seat is not None)

    async def receive(self, conn: Connection, message: wire.RoomMessage) -> None:
        """Apply one message from a connection that said hello; ProtocolError if refused."""
        async with self.lock:
            if conn not in self.audience:
                return  # superseded by a newer connection on its seat; being closed
            seat = self.audience.seat_of(conn)
            state = self.state
            match message:
                case wire.BidMessage() | wire.DudoMessage() | wire.CalzaMessage():
                    return self._apply(state.person_move(seat, message), message.action())
                case wire.Join() | wire.Resume() | wire.Watch():
                    raise ProtocolError("bad_message", "This connection has already said hello.")
                case wire.Chat(text=text):
                    if seat is None:
                        raise ProtocolError("not_joined", "Only seated players may chat.")
                    self.audience.broadcast(messages.chat_frame(state.seats[seat], text))
                    return
                case wire.React(emoji=emoji):
                    self.audience.broadcast(messages.reaction_frame(seat, emoji))
                    return
                case wire.Sync():
                    now = self._scheduler.now()
                    return self.audience.send_states(state, self._turns.deadline, now, only=conn)
                case wire.Leave():
                    if seat is None:
                        raise ProtocolError("not_joined", "You hold no seat.")
                    self.audience.sit(conn, None)
                    in_game = state.game is not None
                    state.seats.leave(seat, in_game=in_game, now=self._scheduler.now())
                case wire.Rematch():
                    state.require_host(seat, "finished")
                    state.rematch()
                case wire.Start():
                    state.require_host(seat, "lobby")
                    state.start(self._rng)
                case wire.SettingsChange():
                    state.require_host(seat, "lobby")
                    state.change_settings(message.changes())
                case wire.AddBot(level=level):
                    state.require_host(seat, "lobby")
                    state.seats.seat_bot(level, state.settings.max_players, self._rng)
                case wire.Kick(seat=number):
                    state.require_host(seat, "lobby")
                    kicked = state.seats.kick(number).conn
                    if kicked is not None:
                        self.audience.sit(kicked, None)  # it watches on
            self._changed()

    async def disconnect(self, conn: Connection) -> None:
        """A socket went away: the seat stays, shown offline (the bot may step in later)."""
        async with self.lock:
            if self.audience.depart(conn, self.state.seats, self._scheduler.now()):
                self._changed(lasting=False)

    async def notice(self, text: str) -> None:  # the operator's, to everyone at this table
        async with self.lock:
            self.audience.broadcast(messages.notice_frame(text))

    async def close(
        self, code: CloseCode = CloseCode.GOING_AWAY, notice: str | None = None
    ) -> None:
        """Stop the timers and close every connection (the room is being dropped), telling
        them `notice` first if given."""
        async with self.lock:
            self.closed = True
            self._turns.close()
            if notice is not None:
                self.audience.broadcast(messages.notice_frame(notice))
            self.audience.close_all(code)
        await self.settle()

    async def settle(self) -> None:
        await self._saver.settle()  # no finished game of this room is being saved

    def record(self) -> None:  # the last change, in the journal: its action, or a snapshot
        self._recorder.record(self.state)

    # ----- moves: a person's and the server's, through one path ----------------------------

    def _apply(
        self,
        number: int,
        action: Action,
        by: wire.AutoplayReason | None = None,
        *,
        shown_as_bid: bool = True,
    ) -> None:
        """Apply a move to the game: the one place that decides what is recorded, what is
        broadcast and when the clock is re-armed. `by`: why the server's bot made it for a
        person, who everyone is told about (and the seat, if away, about on its return)."""
        game = self.state.game
        assert game is not None
        try:
            events = self.state.play(number, action, by)
        except RuleError as exc:
            raise ProtocolError(exc.code, exc.message) from None
        if by is None:
            self._recorder.played(number, action, game)
        else:  # recorded as a snapshot: the seat may have just gone over to the bot
            message = messages.autoplayed_message(number, by, action)
            self.audience.broadcast(wire.encode(message))
            seat = self.state.seats[number]
            if seat.conn is None:
                seat.missed += (message,)  # told on its return (`welcome`)
        self._after(events)
        round_ = game.round
        bid = round_.bids[-1] if shown_as_bid and isinstance(action, Bid) and round_ else None
        self._changed(bid=bid)

    async def _turn_due(self, key: TurnKey) -> None:
        """The turn clock: the seat to act is a bot's, or its person ran out of time or
        stayed away. The bot decides without the lock (`thinking`: the expert elsewhere, the
        others at once), and its move is dropped if the table moved on meanwhile."""
        async with self.lock:
            game = self.state.game
            if self.closed or key != self._turns.key or game is None or game.round is None:
                return
            if key == self._thinking:
                return  # the clock was re-armed while this turn's bot thinks
            seat = self.state.seats[game.round.turn]
            due = self._turns.due(seat)
            if due is None:
                return self._turns.follow(self.state)  # woke early
            went_away = due == "away"
            if went_away:
                seat.hand_to_bot(self._scheduler.now())
            view = autoplay.turn_view(self.state, seat)
            self._thinking = key
        try:
            action = await thinking.decide(view, autoplay.level_of(seat), self._rng)
        finally:
            self._thinking = None
        async with self.lock:
            if self.closed or key != self._turns.key:
                return  # a calza, a leave...: the turn it thought about is gone
            move = autoplay.checked_move(view, seat, due, action)
            self._apply(move.seat, move.action, move.by, shown_as_bid=not went_away)

    async def _calza_due(self, key: TurnKey) -> None:
        """The turn clock: the bot-played seats that may call calza on the new bid decide,
        once per bid."""
        async with self.lock:
            if self.closed or self.state.game is None or not self._turns.weigh_calza(key):
                return
            move = autoplay.calza_move(self.state, self._rng)
            if move is not None:
                self._apply(move.seat, move.action, move.by)

    def _after(self, events: list[Event]) -> None:
        """A round's result goes out with the next states; a finished game to the store."""
        for event in events:
            if isinstance(event, RoundEnded):
                self.audience.announce(messages.round_result_frame(event.result))
            elif isinstance(event, GameEnded):
                self._saver.save(game_record(self.state), partial(self._saved, self.state.game_no))

    async def _saved(self, game_no: int, saved: wire.SavedGame) -> None:
        """Show the saved game's id and its rating changes, unless a rematch came first or
        the room is gone."""
        async with self.lock:
            state = self.state
            if game_no == state.game_no and state.phase == "finished" and not self.closed:
                state.game_id = saved.game_id
                self._changed(rating_changes=saved.rating_changes)

    def _changed(
        self,
        lasting: bool = True,
        bid: PlacedBid | None = None,
        rating_changes: list[wire.RatingChange] | None = None,
    ) -> None:
        """After every change: record it if `lasting` (not presence alone), re-arm the
        timers, then send everyone a fresh `state` (or, when it was only `bid`, a bid event
        to the connections that take them; `rating_changes` go with the saved game's)."""
        self.state.seq += 1
        if lasting:
            self.record()
        self.last_change = now = self._scheduler.now()
        self._turns.follow(self.state)
        self.audience.send_states(
            self.state, self._turns.deadline, now, bid=bid, rating_changes=rating_changes
        )
