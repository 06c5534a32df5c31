"""CFR+ for a heads-up Perudo round, vectorised over hands and histories (numpy).

A history is a bit mask of ladder rungs (`app.engine.headsup`). A raise to rung b is legal
after every history m < 2**b, and leads to m + 2**b: so action b's strategy is one array of
2**b rows, its children are the rows [2**b, 2**(b+1)), and one numpy operation per rung walks
the whole tree (forward for the reaches, backward for the values). Columns are the mover's
hands (player 0 moves at an even number of bids). Perfect recall, exact: 2**(6 * dice) rows.

The payoff is player 0's in [-1, 1] (2 * P(player 0 wins the game) - 1): `lose0` when player
0 loses the round's die, `lose1` when player 1 does, the values of the states that follow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.engine.bids import ACE, FACES
from app.engine.game import count_matching
from app.engine.headsup import hands, holds, ladder

DTYPE = np.float32  # halves the memory traffic; the regrets need no more precision
Array = NDArray[np.float32]


@dataclass
class Solution:
    value: float  # player 0's equilibrium value (of the average strategy's best responses' mean)
    exploitability: float  # (best response of 0 + best response of 1) / 2
    iterations: int


class RoundSolver:
    """CFR+ (regret floors at zero, linear averaging, alternating updates) on one split."""

    def __init__(self, dice0: int, dice1: int, lose0: float = -1.0, lose1: float = 1.0) -> None:
        self.dice = (dice0, dice1)
        self.total = dice0 + dice1
        self.ladder = ladder(self.total)
        self.rungs = len(self.ladder)
        self.rows = 1 << self.rungs
        hand_sets = (hands(dice0), hands(dice1))
        self.hands = tuple(found for found, _ in hand_sets)
        self.chance = tuple(np.array(weights, DTYPE) for _, weights in hand_sets)
        self.width = max(len(found) for found in self.hands)
        counts = np.array([bin(m).count("1") for m in range(self.rows)], dtype=np.int64)
        self.mover = (counts & 1).astype(np.int64)
        top = np.zeros(self.rows, dtype=np.int64)
        for b in range(self.rungs):
            top[1 << b : 2 << b] = b
        self.top = top
        # payoff to player 0 at a dudo, per (rung, caller): matrix hands0 x hands1
        self.payoff = np.zeros((self.rungs, 2, len(self.hands[0]), len(self.hands[1])), DTYPE)
        for b, bid in enumerate(self.ladder):
            held = np.array([[holds(bid, h0, h1) for h1 in self.hands[1]] for h0 in self.hands[0]])
            self.payoff[b, 0] = np.where(held, lose0, lose1)  # player 0 called: loses if it holds
            self.payoff[b, 1] = np.where(held, lose1, lose0)
        # legality: action b from row m is legal for every m < 2**b but aces never open
        self.opening_closed = [bid.face == ACE for bid in self.ladder]
        self.regret_raise = [np.zeros((1 << b, self.width), DTYPE) for b in range(self.rungs)]
        self.regret_dudo = np.zeros((self.rows, self.width), DTYPE)
        self.average_raise = [np.zeros((1 << b, self.width), DTYPE) for b in range(self.rungs)]
        self.average_dudo = np.zeros((self.rows, self.width), DTYPE)
        self.iterations = 0

    # -- strategies -------------------------------------------------------------------------

    def _normalise(self, raise_: list[Array], dudo: Array) -> tuple[list[Array], Array]:
        """Regret matching (or averaging): each row's positive weights over its legal actions,
        uniform where they are all zero."""
        raise_ = [np.maximum(part, 0.0) for part in raise_]
        dudo = np.maximum(dudo, 0.0)
        dudo[0] = 0.0
        for b, closed in enumerate(self.opening_closed):
            if closed:
                raise_[b][0] = 0.0
        total = dudo.copy()
        legal = np.zeros(self.rows, DTYPE)
        legal[1:] = 1.0
        for b, part in enumerate(raise_):
            total[: 1 << b] += part
            legal[: 1 << b] += 1.0
        legal[0] -= sum(self.opening_closed)
        empty = total <= 0.0
        safe = np.where(empty, 1.0, total)  # parts never exceed their row's total: no overflow
        uniform = np.where(empty, 1.0 / legal[:, None], 0.0)
        dudo_out = dudo / safe + uniform
        dudo_out[0] = 0.0
        raise_out = []
        for b, part in enumerate(raise_):
            out = part / safe[: 1 << b] + uniform[: 1 << b]
            if self.opening_closed[b]:
                out[0] = 0.0
            raise_out.append(out)
        return raise_out, dudo_out

    def current(self) -> tuple[list[Array], Array]:
        return self._normalise(self.regret_raise, self.regret_dudo)

    def average(self) -> tuple[list[Array], Array]:
        return self._normalise(self.average_raise, self.average_dudo)

    # -- passes -------------------------------------------------------------------------

    def reaches(self, raise_: list[Array], player: int) -> Array:
        """`player`'s own reach of every history, per hand of theirs."""
        width = len(self.hands[player])
        reach = np.zeros((self.rows, width), DTYPE)
        reach[0] = 1.0
        for b in range(self.rungs):
            parents = slice(0, 1 << b)
            own = (self.mover[parents] == player)[:, None]
            step = np.where(own, raise_[b][:, :width], 1.0)
            reach[1 << b : 2 << b] = reach[parents] * step
        return reach

    def dudo_values(self, player: int, opponent_reach: Array, dudo: Array) -> Array:
        """Counterfactual value for `player` (per own hand) of a dudo at each history: where
        the opponent moves, weighted by the chance that they call it."""
        values = np.zeros((self.rows, len(self.hands[player])), DTYPE)
        other = 1 - player
        width = len(self.hands[other])
        calls = np.where((self.mover == other)[:, None], dudo[:, :width], 1.0)
        weighted = opponent_reach * calls * self.chance[other][None, :]
        for b in range(self.rungs):
            rows = slice(1 << b, 2 << b)
            callers = self.mover[rows]
            for caller in (0, 1):
                matrix = self.payoff[b, caller]
                if player == 1:
                    matrix = -matrix.T
                chosen = callers == caller
                block = weighted[rows][chosen] @ matrix.T
                values[rows][chosen] = block * self.chance[player][None, :]
        return values

    def values(
        self, player: int, raise_: list[Array], dudo: Array, opponent_reach: Array, best: bool
    ) -> tuple[Array, Array]:
        """Counterfactual values of every history for `player`, playing `raise_`/`dudo`
        (or, `best`, a best response), and the dudo values they start from."""
        width = len(self.hands[player])
        at_dudo = self.dudo_values(player, opponent_reach, dudo)
        own = (self.mover == player)[:, None]
        if best:
            value = np.where(own, at_dudo, at_dudo)
            value[0] = -np.inf if own[0, 0] else 0.0
        else:
            value = np.where(own, dudo[:, :width] * at_dudo, at_dudo)
        for b in reversed(range(self.rungs)):
            parents = slice(0, 1 << b)
            child = value[1 << b : 2 << b]
            mine = own[parents]
            if best:
                candidate = child.copy()
                if self.opening_closed[b]:
                    candidate[0] = -np.inf
                value[parents] = np.where(
                    mine, np.maximum(value[parents], candidate), value[parents] + child
                )
            else:
                value[parents] += np.where(mine, raise_[b][:, :width] * child, child)
        return value, at_dudo

    def iterate(self, count: int) -> None:
        """`count` iterations, each updating player 0 and then player 1 (alternating updates
        converge far faster than simultaneous ones here: 1v1 reaches 1e-4 in 400, not 1e-3)."""
        for _ in range(count):
            self.iterations += 1
            for player in (0, 1):
                raise_, dudo = self.current()
                reach = (self.reaches(raise_, 0), self.reaches(raise_, 1))
                value, at_dudo = self.values(player, raise_, dudo, reach[1 - player], best=False)
                width = len(self.hands[player])
                own = (self.mover == player)[:, None]
                self.regret_dudo[:, :width] = np.maximum(
                    self.regret_dudo[:, :width] + np.where(own, at_dudo - value, 0.0), 0.0
                )
                weight = self.iterations * reach[player]  # linear averaging by own reach
                self.average_dudo[:, :width] += np.where(own, weight * dudo[:, :width], 0.0)
                for b in range(self.rungs):
                    parents = slice(0, 1 << b)
                    mine = own[parents]
                    gain = value[1 << b : 2 << b] - value[parents]
                    regret = self.regret_raise[b][:, :width]
                    regret[...] = np.maximum(regret + np.where(mine, gain, 0.0), 0.0)
                    self.average_raise[b][:, :width] += np.where(
                        mine, weight[parents] * raise_[b][:, :width], 0.0
                    )

    def best_response_value(self, player: int, raise_: list[Array], dudo: Array) -> float:
        """What `player` wins (in their own payoff) best-responding to the other's strategy."""
        opponent_reach = self.reaches(raise_, 1 - player)
        value, _ = self.values(player, raise_, dudo, opponent_reach, best=True)
        return float(value[0].sum())

    def exploitability(self, raise_: list[Array], dudo: Array) -> tuple[float, float]:
        """(exploitability, player 0's value at the profile's mean of best responses)."""
        br0 = self.best_response_value(0, raise_, dudo)
        br1 = self.best_response_value(1, raise_, dudo)
        return (br0 + br1) / 2, (br0 - br1) / 2

    def solve(self, target: float, max_iterations: int, check_every: int = 25) -> Solution:
        """Iterate until the average strategy's exploitability is at most `target`."""
        gap, value = self.exploitability(*self.average())
        while gap > target and self.iterations < max_iterations:
            self.iterate(check_every)
            gap, value = self.exploitability(*self.average())
        return Solution(value, gap, self.iterations)


class LastBidSolver:
    """CFR+ on the round abstracted to the standing bid: a player remembers only the last bid
    and who made it, not the bids before it (imperfect recall, as Neller and Hnath abstract
    Dudo). The round becomes a graph of 2 * rungs + 1 nodes (node 0: nobody has bid; node
    1 + 2b + p: rung b stands, bid by player p), small enough to solve up to five dice each.

    Since play after a node depends on the node alone, `payoff_after[n]` (player 0's expected
    payoff from node n for every pair of hands) is computed once per pass, backwards; reaches
    are summed over every path into a node, forwards, and regrets weigh each action's payoff
    by the opponent's summed reach.
    """

    def __init__(
        self,
        dice0: int,
        dice1: int,
        lose0: float = -1.0,
        lose1: float = 1.0,
        window: int | None = None,
    ) -> None:
        """`window`: the most rungs one raise may climb (None: any); bigger splits need it to
        fit the time, and an opponent's longer jump still lands on a node the table knows."""
        self.dice = (dice0, dice1)
        self.ladder = ladder(dice0 + dice1)
        self.rungs = len(self.ladder)
        self.nodes = 2 * self.rungs + 1
        hand_sets = (hands(dice0), hands(dice1))
        self.hands = tuple(found for found, _ in hand_sets)
        self.chance = tuple(np.array(weights) for _, weights in hand_sets)
        self.width = max(len(found) for found in self.hands)
        self.rung = np.array([-1] + [b for b in range(self.rungs) for _ in (0, 1)])
        self.mover = np.array([0] + [1 - p for _ in range(self.rungs) for p in (0, 1)])
        self.payoff = np.zeros((self.rungs, 2, len(self.hands[0]), len(self.hands[1])))
        matching = [
            np.array([[count_matching(hand, f, aces_wild=True) for f in FACES] for hand in found])
            for found in self.hands
        ]
        for b, bid in enumerate(self.ladder):
            count = matching[0][:, bid.face - 1, None] + matching[1][None, :, bid.face - 1]
            held = count >= bid.quantity
            self.payoff[b, 0] = np.where(held, lose0, lose1)
            self.payoff[b, 1] = np.where(held, lose1, lose0)
        # actions: column b < rungs raises to rung b, column `rungs` is dudo; node n's raises
        # are rungs first[n]..last[n] - 1, leading to nodes 1 + 2b + mover (a strided slice)
        self.legal = np.zeros((self.nodes, self.rungs + 1), dtype=bool)
        self.span: list[slice] = []
        for n in range(self.nodes):
            first = self.rung[n] + 1
            last = self.rungs if window is None or n == 0 else min(self.rungs, first + window)
            self.legal[n, first:last] = True
            self.legal[n, self.rungs] = n > 0
            self.span.append(slice(first, last))
        self.legal[0, [b for b, bid in enumerate(self.ladder) if bid.face == ACE]] = False
        self.children = [
            slice(1 + 2 * part.start + self.mover[n], 1 + 2 * part.stop + self.mover[n], 2)
            for n, part in enumerate(self.span)
        ]
        shape = (self.nodes, self.width, self.rungs + 1)
        self.regret = np.zeros(shape)
        self.average_sum = np.zeros(shape)
        self.iterations = 0

    def _normalise(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        positive = np.where(self.legal[:, None, :], np.maximum(weights, 0.0), 0.0)
        total = positive.sum(axis=2, keepdims=True)
        uniform = self.legal[:, None, :] / self.legal.sum(axis=1)[:, None, None]
        return np.where(total > 0.0, positive / np.where(total > 0.0, total, 1.0), uniform)

    def current(self) -> NDArray[np.float64]:
        return self._normalise(self.regret)

    def average(self) -> NDArray[np.float64]:
        return self._normalise(self.average_sum)

    def payoffs_after(self, policy: NDArray[np.float64]) -> NDArray[np.float64]:
        """Player 0's expected payoff from each node, per pair of hands."""
        after = np.zeros((self.nodes, len(self.hands[0]), len(self.hands[1])))
        h0, h1 = (len(found) for found in self.hands)
        for n in reversed(range(self.nodes)):
            kids = after[self.children[n]]
            if self.mover[n] == 0:
                chosen = policy[n, :h0]
                weights = chosen[:, self.span[n]]  # (h, a) with kids (a, h, g)
                after[n] = np.matmul(weights[:, None, :], kids.transpose(1, 0, 2))[:, 0, :]
                if n:
                    after[n] += chosen[:, self.rungs, None] * self.payoff[self.rung[n], 0]
            else:
                chosen = policy[n, :h1]
                weights = chosen[:, self.span[n]]  # (g, a) with kids (a, h, g)
                after[n] = np.matmul(kids.transpose(2, 1, 0), weights[:, :, None])[:, :, 0].T
                after[n] += chosen[None, :, self.rungs] * self.payoff[self.rung[n], 1]
        return after

    def reaches(self, policy: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
        """Each player's reach of each node, summed over every path into it, per hand."""
        reach = [np.zeros((self.nodes, len(found))) for found in self.hands]
        for r in reach:
            r[0] = 1.0
        for n in range(self.nodes):
            mover = self.mover[n]
            kids = self.children[n]
            width = len(self.hands[mover])
            reach[mover][kids] += (policy[n, :width, self.span[n]] * reach[mover][n][:, None]).T
            reach[1 - mover][kids] += reach[1 - mover][n][None, :]
        return tuple(reach)

    def action_values(
        self, player: int, n: int, after: NDArray[np.float64], opponent: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """`player`'s counterfactual value of each legal action at node n, per hand."""
        raises = self.span[n]
        kids = after[self.children[n]]
        width = len(self.hands[player])
        values = np.zeros((width, self.rungs + 1))
        weights = opponent * self.chance[1 - player]
        if player == 0:
            values[:, raises] = (kids @ weights).T
            if n:
                values[:, self.rungs] = self.payoff[self.rung[n], 0] @ weights
            return values * self.chance[0][:, None]
        values[:, raises] = -(weights @ kids).T
        values[:, self.rungs] = -(weights @ self.payoff[self.rung[n], 1])
        return values * self.chance[1][:, None]

    def iterate(self, count: int) -> None:
        for _ in range(count):
            self.iterations += 1
            for player in (0, 1):
                policy = self.current()
                after = self.payoffs_after(policy)
                reach = self.reaches(policy)
                width = len(self.hands[player])
                for n in np.nonzero(self.mover == player)[0]:
                    values = self.action_values(player, n, after, reach[1 - player][n])
                    chosen = policy[n, :width]
                    gain = values - (chosen * values).sum(axis=1, keepdims=True)
                    regret = self.regret[n, :width]
                    regret[...] = np.where(self.legal[n], np.maximum(regret + gain, 0.0), 0.0)
                    self.average_sum[n, :width] += (
                        self.iterations * reach[player][n][:, None] * chosen
                    )

    def value(self, policy: NDArray[np.float64]) -> float:
        """Player 0's expected payoff when both play `policy`."""
        return float(self.chance[0] @ self.payoffs_after(policy)[0] @ self.chance[1])

    def expand(self, policy: NDArray[np.float64]) -> tuple[list[Array], Array]:
        """`policy` in `RoundSolver`'s perfect-recall layout (same split), to measure it there."""
        rows = 1 << self.rungs
        counts = np.array([bin(m).count("1") for m in range(rows)])
        top = np.zeros(rows, dtype=np.int64)
        for b in range(self.rungs):
            top[1 << b : 2 << b] = b
        node = np.where(counts == 0, 0, 1 + 2 * top + (1 - (counts & 1)))
        raise_ = [policy[node[: 1 << b], :, b].astype(DTYPE) for b in range(self.rungs)]
        dudo = policy[node, :, self.rungs].astype(DTYPE)
        return raise_, dudo
