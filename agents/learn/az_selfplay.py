"""Self-play for search and learning: the worker (weights in, trajectories out), the replay buffer, the learner.

The split is the one a distributed trainer needs: a :class:`SelfPlayWorker`
holds ``B`` games, a copy of the network and a :class:`~octagames.agents.learn.az.BatchedSearch`;
its whole interface is :meth:`SelfPlayWorker.set_weights` (the current network and
the snapshot pool), :meth:`SelfPlayWorker.play` (finished games' samples out) and
its state for checkpoints; it is built from plain data (game name, config
fields, :class:`WorkerConfig`, a seed), so a Ray actor can wrap it unchanged.
The :class:`Learner` owns the network being trained and its optimizer; the
:class:`ReplayBuffer` sits between them.

A game in the worker is, for its whole length, one of three kinds (drawn with
the worker's RNG when it starts):

* **self-play**: every seat searches with the current network; every seat's
  searched decisions become samples;
* **agent**: the learner searches for one seat (drawn uniformly) and a registry
  agent (``heuristic`` by default) plays the others; only the learner's
  decisions become samples;
* **snapshot**: as *agent*, with a past network of the pool playing the other
  seats from its raw policy (sampled).

**Expert iteration** (:attr:`WorkerConfig.expert`, a registry spec such as ``zoo:octa-en``,
``belief`` or ``mcts:200``): the expert agent makes the decisions the network's search would
have made (every seat in self-play, the learner's seat otherwise), and its decision becomes the
sample's policy target (:func:`expert_target`: a search's visit shares over its whole search,
rollouts' per-move values, a policy's probabilities, or its choice); the outcome stays the value
target. :meth:`SelfPlayWorker.use_expert` turns it off and on (the trainer's ``expert_iterations``),
so that the network's own search plays next.

A **sample** is the record before a searched decision (the observation is
rebuilt from it by the engine's kernel when a batch is drawn: a record is
tens of times smaller than Achten's observation), the seat, the search's
visit distribution (its ``policy_width`` largest entries) and, once the game
is over, its outcome for every seat (:func:`~octagames.agents.learn.az.outcome_values`),
counted from the sample's seat. Forced moves (one legal action) are played at
once, never searched nor sampled.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from octagames.agents.learn.az import (AZAgent, BatchedSearch, PolicyValueNet, SearchConfig, az_loss, build_net,
                                 choose_actions, leaf_value_function, network_evaluator, outcome_values)
from octagames.agents.base import Agent, decide, legal_shares, make_turn, pack_agents, unpack_agents
from octagames.agents.search.mcts import search_kernels
from octagames.agents.learn.ppo import masked_logits
from octagames.agents.registry import make_agent
from octagames.core import CHANCE, TERMINAL, Game, is_count

SELF_PLAY, AGENT_GAME, SNAPSHOT_GAME = 0, 1, 2
LEARNER = "learner:"
"""The expert spec prefix of the rollouts in which the network being trained plays (``learner:<worlds>``)."""
KIND_NAMES = {SELF_PLAY: "self", AGENT_GAME: "agent", SNAPSHOT_GAME: "snapshot"}


@dataclass(frozen=True)
class WorkerConfig:
    """What a self-play worker plays.

    Attributes:
        num_games: games played in lockstep (``B``).
        search: the search of every searched decision.
        temperature: moves are drawn from ``visits ** (1 / temperature)`` for the first
            ``temperature_moves`` searched decisions of each seat in a game, then the most visited.
        temperature_moves: see ``temperature``.
        self_play_prob: share of self-play games.
        agent_prob: share of games against ``opponent_agent`` (the rest: snapshots, or
            self-play while the pool is empty).
        opponent_agent: registry spec of the agent opponent (``heuristic``, ``random``, ``mcts:50`` ...).
        policy_width: the largest entries of each visit distribution kept in a sample.
        record: whether searched decisions become samples.
        eval_games: evaluation mode when > 0: exactly this many games against
            ``opponent_agent``, the learner's seat rotating (game ``n`` started gives it
            seat ``n % P``); slots fall idle once all have started.
        expert: registry spec of the expert ("" : none): its decisions replace the network's
            search in the learner's seats and make the policy targets (:func:`expert_target`).
            ``learner:<worlds>``: rollouts over that many believed worlds in which the network being
            trained plays the seat's later moves (its greedy policy) and the belief's model the
            others (:attr:`~octagames.agents.learn.az.SearchConfig.belief_rollouts`): expert
            iteration with the apprentice inside the expert, in the games whose rollouts can call a
            network (Achten; Octa's are compiled and refuse it).
        expert_temperature: for a rollout expert (per-move values, whether or not a network's search
            votes in): 0: the target is one-hot on its choice; > 0: ``softmax(values / expert_temperature)``
            over the moves it valued (values are win rates in [0, 1]).
    """

    num_games: int = 64
    search: SearchConfig = SearchConfig(simulations=64, dirichlet_alpha=0.3)
    temperature: float = 1.0
    temperature_moves: int = 8
    self_play_prob: float = 0.6
    agent_prob: float = 0.2
    opponent_agent: str = "heuristic"
    policy_width: int = 32
    record: bool = True
    eval_games: int = 0
    expert: str = ""
    expert_temperature: float = 0.0

    def __post_init__(self) -> None:
        if self.num_games < 1:
            raise ValueError(f"num_games={self.num_games} is not valid; it must be >= 1")
        if self.temperature < 0 or self.temperature_moves < 0:
            raise ValueError("temperature and temperature_moves must be >= 0")
        if not (0 <= self.self_play_prob <= 1 and 0 <= self.agent_prob <= 1 - self.self_play_prob + 1e-12):
            raise ValueError(f"self_play_prob={self.self_play_prob}, agent_prob={self.agent_prob}: each must be "
                             "in [0, 1] and their sum at most 1")
        if self.policy_width < 1:
            raise ValueError(f"policy_width={self.policy_width} is not valid; it must be >= 1")
        if self.search.belief_worlds:
            raise ValueError(f"search.belief_worlds={self.search.belief_worlds} is not valid here; it must be 0: "
                             "the self-play worker searches uniform determinizations (beliefs are play-time only)")
        if self.expert_temperature < 0:
            raise ValueError(f"expert_temperature={self.expert_temperature} is not valid; it must be >= 0")
        if self.expert and self.eval_games:
            raise ValueError(f"expert={self.expert!r} is not valid in evaluation mode (eval_games > 0): "
                             "evaluations play the network's own search")


@dataclass
class Trajectories:
    """Samples of finished games (arrays over samples) and what happened.

    Attributes:
        records: the record before each decision (the true one: observations are
            taken for ``seats`` only).
        seats: the deciding seat.
        pol_idx, pol_p: the ``policy_width`` largest entries of the target
            distribution (action, probability; padding has probability 0).
        values: outcome per seat counted from ``seats`` (``[n, P]``).
        stats: counters: games and searched decisions by kind, the learner's
            score against agents and snapshots, forced moves.
    """

    records: np.ndarray
    seats: np.ndarray
    pol_idx: np.ndarray
    pol_p: np.ndarray
    values: np.ndarray
    stats: dict[str, float]

    def __len__(self) -> int:
        return len(self.seats)


def expert_target(agent: Agent, mask: np.ndarray, chosen: int, temperature: float = 0.0) -> np.ndarray:
    """The policy target of an expert's decision, from what its decision rests on.

    Read after its ``act`` (:func:`~octagames.agents.base.decide` clears its thinking before, the
    worker its ``last`` search), by the kind of expert:

    * a **search** (MCTS, the AZ agents' tree search): the visit shares of its whole search, which it
      keeps as ``agent.last`` (``visits``: ``[A]`` for MCTS, ``[1, A]`` for the AZ agents), every
      visited legal move (not only the few largest its thinking keeps); without it, its thinking's
      ``policy`` (the AZ agents at 0 simulations: the network's policy);
    * **rollouts** over sampled worlds (``rollout``, ``belief``, the AZ agents with ``belief_rollouts``
      such as ``zoo:octa-en`` and ``zoo:achten-dealer-pays``, ``learner:<worlds>``; an agent that keeps
      no search and tells per-move ``values``): its per-move values (win rates), even when a network's
      search votes in and its thinking tells the vote's shares as ``policy`` (that vote is the
      apprentice's own search, not the expert): one-hot on its choice when ``temperature`` is 0, else
      ``softmax(values / temperature)`` over the moves its thinking valued (the
      :data:`~octagames.agents.base.THINKING_TOP` best by value and its choice, a voting search's
      shares aside: :func:`~octagames.agents.base.considered_rollouts`);
    * a **policy** (PPO, CFR, the Octrix solver): its thinking's ``policy`` probabilities;
    * else (a heuristic, which tells nothing) one-hot on its choice.

    Only legal moves keep a share (:func:`~octagames.agents.base.legal_shares`).

    Args:
        agent: the expert, just after choosing ``chosen``.
        mask: the legal actions of the decision.
        chosen: the action it chose (legal).
        temperature: see above.

    Returns:
        ``[num_actions]`` a distribution over the legal actions.
    """
    legal = np.asarray(mask) > 0
    dist = np.zeros(len(legal))
    told = getattr(agent, "last_thinking", None)  # the records' thinking format
    told = told if isinstance(told, dict) else {}
    searches = hasattr(agent, "last") and not (isinstance(agent, AZAgent) and agent.search.belief_rollouts)
    visits = _searched_visits(agent, len(legal)) if searches else None
    if visits is not None:
        dist = visits
    elif told.get("values") and not (searches and told.get("policy")):  # rollouts (a search's are its q)
        if temperature > 0:
            moves = np.array([int(a) for a in told["values"]], np.int64)
            v = np.array([float(x) for x in told["values"].values()]) / temperature
            dist[moves] = np.exp(v - v.max())
    elif told.get("policy"):
        for a, share in told["policy"].items():
            dist[int(a)] = float(share)
    dist = legal_shares(dist, legal)
    if not dist.sum() > 0:
        dist[chosen] = 1.0
    return dist


def _searched_visits(agent: Agent, num_actions: int) -> np.ndarray | None:
    """``[num_actions]`` the visits of the search the agent keeps as ``last`` (None: it keeps none)."""
    last = getattr(agent, "last", None)
    visits = last.get("visits") if isinstance(last, dict) else getattr(last, "visits", None)
    if visits is None or np.shape(visits)[-1] != num_actions:
        return None
    return np.asarray(visits, np.float64).reshape(-1, num_actions)[0]


def _top_entries(dist: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``width`` largest entries of a distribution (renormalised), as (indices, probabilities)."""
    w = min(width, len(dist))
    idx = np.argsort(-dist, kind="stable")[:w]
    p = dist[idx].astype(np.float64)
    total = p.sum()
    p = p / total if total > 0 else p
    out_i = np.zeros(width, np.int32)
    out_p = np.zeros(width, np.float32)
    out_i[:w], out_p[:w] = idx, p
    return out_i, out_p


class SelfPlayWorker:
    """``B`` games in lockstep, searched with a copy of the network; see the module docstring.

    Args:
        game: short game name.
        game_config: the game's config fields.
        cfg: what to play.
        net_spec: :attr:`PolicyValueNet.spec` of the networks it will receive.
        seed: seeds every game, draw and search of the worker.
        device: where its networks run (``"cuda"`` on a GPU machine): the search's batched network
            calls (the leaves of every game in lockstep) and the snapshots' calls run there; the
            games, the search trees and the samples stay on the CPU. The moves are the same on
            every device up to the floating-point rounding of the network.
    """

    def __init__(self, game: str, game_config: dict[str, Any], cfg: WorkerConfig, net_spec: dict[str, Any],
                 seed: int, device: torch.device | str = "cpu") -> None:
        self.game = Game(game, **game_config)
        self.cfg = cfg
        self.P = self.game.num_players
        self.device = torch.device(device)
        self.net = build_net(net_spec).to(self.device)
        self.net.eval()
        self.evaluate = network_evaluator(self.net)
        self.pool: dict[int, PolicyValueNet] = {}
        self.rng = np.random.default_rng(seed)
        self.search = BatchedSearch(self.game, cfg.num_games, cfg.search)
        B = cfg.num_games
        self.states = np.zeros(B, dtype=self.game.dtype)
        self.kind = np.zeros(B, np.int64)
        self.seat = np.zeros(B, np.int64)
        self.snap = np.full(B, -1, np.int64)
        self.moves = np.zeros((B, self.P), np.int64)
        self.agents: list[list[Agent] | None] = [None] * B
        self.pending: list[list[tuple[np.ndarray, int, np.ndarray, np.ndarray]]] = [[] for _ in range(B)]
        self.idle = np.zeros(B, np.bool_)
        self.games_started = 0
        self.need = np.zeros(B, np.bool_)
        self.player = np.zeros(B, np.int64)
        self.root_mask = np.zeros((B, self.game.num_actions), np.uint8)
        self._mask = np.zeros(self.game.num_actions, np.uint8)
        self._done: list[tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]] = []
        self.stats: dict[str, float] = {}
        self.started = False
        # the expert of each seat, reset with a drawn seed before each of its decisions (its RNG is the
        # only state an agent keeps between decisions, so a checkpoint need not hold it)
        self.experts = [self._expert() for _ in range(self.P)] if cfg.expert else []
        self.expert_on = bool(cfg.expert)

    def _expert(self) -> Agent:
        # a registry agent, or learner:<worlds>: rollouts by this worker's network (its weights follow set_weights)
        spec = self.cfg.expert
        if not spec.startswith(LEARNER):
            return make_agent(spec, self.game, field="expert")
        worlds = spec[len(LEARNER):]
        if not is_count(worlds) or int(worlds) < 1:
            raise ValueError(f"expert={spec!r} is not valid; the learner's rollouts are 'learner:<worlds>' with "
                             "worlds a whole number >= 1 in plain digits (e.g. learner:32)")
        agent = AZAgent(self.net, SearchConfig(simulations=0, belief_worlds=int(worlds), belief_rollouts=True,
                                               rollout_policy="network"), name=spec)
        agent.reset(self.game, 0, 0)  # a game without a belief, or whose rollouts cannot ask a network, stops here
        return agent

    def use_expert(self, on: bool) -> None:
        """Let the expert make the learner's decisions (``on``) or the network's search (off).

        Raises:
            ValueError: ``on`` without an expert in the config.
        """
        if on and not self.experts:
            raise ValueError("use_expert(True) needs an expert: set WorkerConfig.expert")
        self.expert_on = bool(on)

    # -- interface ----------------------------------------------------------------
    def set_weights(self, weights: dict[str, torch.Tensor], pool: dict[int, dict[str, torch.Tensor]] | None = None
                    ) -> None:
        """Take the current network's weights and (optionally) the snapshot pool ``{id: weights}``.

        Games against a snapshot that left the pool switch to another one when they end.
        """
        self.net.load_state_dict(weights)
        if pool is not None:
            self.pool = {k: self.pool[k] if k in self.pool else self._net_of(w) for k, w in pool.items()}

    def play(self, min_samples: int = 1, max_decisions: int = 0, max_games: int = 0) -> Trajectories:
        """Play until ``min_samples`` samples of finished games are ready (or a bound is hit).

        Args:
            min_samples: samples to return at least (from games that finished).
            max_decisions: stop after this many searched decisions (0: no bound).
            max_games: stop once this many games finished (0: no bound).

        Returns:
            the samples of the games that finished, and the counters of this call.
        """
        if not self.started:
            for i in range(self.cfg.num_games):
                self._new_game(i)
            self.started = True
        self.stats = {}
        decisions = 0
        while True:
            ready = len(self._done)
            if ready >= min_samples and (ready > 0 or min_samples == 0):
                break
            if max_decisions and decisions >= max_decisions:
                break
            if max_games and self.stats.get("games", 0) >= max_games:
                break
            if self.idle.all():
                break
            self._advance()
            decisions += self._search_step()
        return self._collect()

    def state_dict(self) -> dict[str, Any]:
        """Everything that determines the worker's future (for checkpoints)."""
        return {"rng": self.rng.bit_generator.state, "states": self.states.copy(), "kind": self.kind.copy(),
                "idle": self.idle.copy(), "games_started": self.games_started,
                "seat": self.seat.copy(), "snap": self.snap.copy(), "moves": self.moves.copy(),
                "agents": pack_agents(self.agents), "pending": self.pending, "done": self._done,
                "started": self.started,
                "weights": {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()},
                "pool": {k: {n: v.detach().cpu().clone() for n, v in m.state_dict().items()}
                         for k, m in self.pool.items()}}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`."""
        self.rng.bit_generator.state = d["rng"]
        self.states[:] = d["states"]
        self.kind[:], self.seat[:], self.snap[:], self.moves[:] = d["kind"], d["seat"], d["snap"], d["moves"]
        self.idle[:], self.games_started = d["idle"], int(d["games_started"])
        self.agents = unpack_agents(d["agents"])
        self.pending, self._done = [list(p) for p in d["pending"]], list(d["done"])
        self.started = d["started"]
        self.set_weights(d["weights"], d["pool"])

    # -- games ------------------------------------------------------------------------
    def _net_of(self, weights: dict[str, torch.Tensor]) -> PolicyValueNet:
        net = build_net(self.net.spec).to(self.device)
        net.load_state_dict(weights)
        return net.eval()

    def _new_game(self, i: int) -> None:
        cfg, g = self.cfg, self.game
        self.pending[i] = []
        if cfg.eval_games and self.games_started >= cfg.eval_games:
            self.idle[i] = True
            return
        seed = int(self.rng.integers(1 << 62))
        g.module.write_config(self.states[i], g.config)
        g.kernels.reset(self.states[i], seed)
        u = self.rng.random()
        seat = int(self.rng.integers(self.P))
        snap_ids = sorted(self.pool)
        k = int(self.rng.integers(max(1, len(snap_ids))))
        if cfg.eval_games:
            kind, seat = AGENT_GAME, self.games_started % self.P
        elif u < cfg.self_play_prob:
            kind = SELF_PLAY
        elif u < cfg.self_play_prob + cfg.agent_prob:
            kind = AGENT_GAME
        else:
            kind = SNAPSHOT_GAME if snap_ids else SELF_PLAY
        self.games_started += 1
        self.kind[i], self.seat[i] = kind, seat
        self.snap[i] = snap_ids[k] if kind == SNAPSHOT_GAME else -1
        self.moves[i] = 0
        self.agents[i] = None
        if kind == AGENT_GAME:
            agents = [make_agent(cfg.opponent_agent, g) for _ in range(self.P)]
            for p, a in enumerate(agents):
                a.reset(g, p, int(self.rng.integers(1 << 31)))
            self.agents[i] = agents

    def _finish(self, i: int) -> None:
        g = self.game
        rets = g.returns(self.states[i])
        vals = outcome_values(rets[None, :], self.P, self.cfg.search.objective, self.search.lo, self.search.hi)[0]
        kind = int(self.kind[i])
        name = KIND_NAMES[kind]
        st = self.stats
        st["games"] = st.get("games", 0) + 1
        st[f"games_{name}"] = st.get(f"games_{name}", 0) + 1
        if kind != SELF_PLAY:
            share = _win_share(rets, int(self.seat[i]))
            st[f"score_{name}"] = st.get(f"score_{name}", 0.0) + share
            key = "wins" if share == 1.0 else "draws" if share == 0.5 else "losses"
            st[f"{key}_{name}"] = st.get(f"{key}_{name}", 0) + 1
        for rec, seat, pi, pp in self.pending[i]:
            rel = vals[(seat + np.arange(self.P)) % self.P]
            self._done.append((rec, seat, pi, pp, rel.astype(np.float32)))
        self._new_game(i)

    def _searches(self, i: int, p: int) -> bool:
        return self.kind[i] == SELF_PLAY or p == self.seat[i]

    def _advance(self) -> None:
        # play every game up to a decision of a searching seat: chance, forced moves, opponents
        g, m = self.game, self.game.kernels
        todo = [i for i in range(self.cfg.num_games) if not self.idle[i]]
        while todo:
            snap_rows: list[tuple[int, int]] = []
            for i in todo:
                s = self.states[i]
                while True:
                    cp = m.current_player(s)
                    if cp == TERMINAL:
                        self._finish(i)
                        if self.idle[i]:
                            break
                        continue
                    if cp == CHANCE:
                        m.apply_action(s, m.sample_chance(s))
                        continue
                    p = int(m.acting_player(s))
                    n = m.legal_mask(s, p, self._mask)
                    if n == 1:
                        m.apply_action(s, int(np.flatnonzero(self._mask)[0]))
                        self.stats["forced"] = self.stats.get("forced", 0) + 1
                        continue
                    if self._searches(i, p):
                        self.need[i] = True
                        self.player[i] = p
                        self.root_mask[i] = self._mask
                        break
                    if self.kind[i] == AGENT_GAME:
                        turn = make_turn(g, s, p, int(self.rng.integers(1 << 31)))
                        g.apply_action(s, int(self.agents[i][p].act(turn)))
                        continue
                    snap_rows.append((i, p))
                    break
            todo = [i for i, _ in snap_rows]
            if snap_rows:
                self._snapshot_moves(snap_rows)

    def _snapshot_moves(self, rows: list[tuple[int, int]]) -> None:
        # one call of each snapshot network for all the games it plays now; sampled moves
        g = self.game
        by_snap: dict[int, list[tuple[int, int]]] = {}
        for i, p in rows:
            by_snap.setdefault(int(self.snap[i]), []).append((i, p))
        for k in sorted(by_snap):
            items = by_snap[k]
            obs = np.stack([g.observation(self.states[i], p) for i, p in items])
            masks = np.stack([g.legal_mask(self.states[i], p) for i, p in items])
            net = self.pool.get(k)
            if net is None:  # the snapshot left the pool: the current network plays it
                net = self.net
            with torch.no_grad():
                x = torch.from_numpy(obs).to(self.device)
                logits = masked_logits(net(x)[0], torch.from_numpy(masks.astype(bool)).to(self.device))
                probs = torch.softmax(logits.double(), -1).cpu().numpy()
            for r, (i, p) in enumerate(items):
                pr = probs[r] * masks[r]
                g.apply_action(self.states[i], int(self.rng.choice(len(pr), p=pr / pr.sum())))

    def _search_step(self) -> int:
        cfg, B = self.cfg, self.cfg.num_games
        active = self.need.copy()
        n = int(active.sum())
        if n == 0:
            return 0
        seeds = self.rng.integers(1 << 62, size=B)
        noise = None
        if cfg.search.dirichlet_alpha > 0:
            raw = self.rng.gamma(cfg.search.dirichlet_alpha, size=self.root_mask.shape) * self.root_mask
            noise = raw / np.maximum(raw.sum(axis=1, keepdims=True), 1e-12)
        if self.expert_on:
            visits, actions = self._expert_moves(active, seeds)
        else:
            if cfg.search.simulations > 0:
                res = self.search.run(self.states, self.player, active, seeds, self.evaluate, noise)
                visits, q = res["visits"], res["q"]
            else:  # the network's policy alone
                rows = np.flatnonzero(active)
                obs = np.stack([self.game.observation(self.states[i], int(self.player[i])) for i in rows])
                pri, _ = self.evaluate(obs, self.root_mask[rows], self.player[rows])
                visits = np.zeros(self.root_mask.shape)
                visits[rows] = pri * self.root_mask[rows]
                q = np.zeros_like(visits)
            temp = np.where(self.moves[np.arange(B), self.player] < cfg.temperature_moves, cfg.temperature, 0.0)
            actions = choose_actions(visits, q, temp, self.rng)
        g = self.game
        rows = np.flatnonzero(active)
        roots = self.states[rows] if cfg.record else None  # one copy of the searched records: a sample's is a row
        for j, i in enumerate(rows):
            p = int(self.player[i])
            if cfg.record:
                pi, pp = _top_entries(visits[i] / max(visits[i].sum(), 1e-12), cfg.policy_width)
                self.pending[i].append((roots[j:j + 1], p, pi, pp))
            self.moves[i, p] += 1
            g.apply_action(self.states[i], int(actions[i]))
            self.need[i] = False
        self.stats["decisions"] = self.stats.get("decisions", 0) + n
        return n

    def _expert_moves(self, active: np.ndarray, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # the expert's decision in every active game: its targets (expert_target) and its actions
        g, cfg = self.game, self.cfg
        targets = np.zeros(self.root_mask.shape)
        actions = np.zeros(len(active), np.int64)
        for i in np.flatnonzero(active):
            p, seed = int(self.player[i]), int(seeds[i])
            agent = self.experts[p]
            agent.reset(g, p, seed)
            if getattr(agent, "last", None) is not None:  # what it tells must be about this decision
                agent.last = None
            a, _ = decide(agent, make_turn(g, self.states[i], p, seed % (1 << 31)))  # clears last_thinking
            if not (0 <= a < g.num_actions and self.root_mask[i, a]):
                raise ValueError(f"expert {cfg.expert!r} chose action {a}, which is not legal for seat {p} here")
            targets[i] = expert_target(agent, self.root_mask[i], a, cfg.expert_temperature)
            actions[i] = a
        self.stats["expert_decisions"] = self.stats.get("expert_decisions", 0) + int(active.sum())
        return targets, actions

    def _collect(self) -> Trajectories:
        done, self._done = self._done, []
        P, W = self.P, self.cfg.policy_width
        if done:  # joined as bytes: numpy's structured-dtype concatenation checks every pair of fields
            recs = np.concatenate([d[0].view(np.uint8).reshape(-1) for d in done]).view(self.game.dtype)
            seats = np.array([d[1] for d in done], np.int64)
            pol_idx = np.stack([d[2] for d in done])
            pol_p = np.stack([d[3] for d in done])
            values = np.stack([d[4] for d in done])
        else:
            recs = np.zeros(0, self.game.dtype)
            seats = np.zeros(0, np.int64)
            pol_idx, pol_p = np.zeros((0, W), np.int32), np.zeros((0, W), np.float32)
            values = np.zeros((0, P), np.float32)
        return Trajectories(recs, seats, pol_idx, pol_p, values, dict(self.stats))


def concat_trajectories(parts: Sequence[Trajectories]) -> Trajectories:
    """The samples of ``parts`` one after another; their counters summed (several workers' output)."""
    if len(parts) == 1:
        return parts[0]
    stats: dict[str, float] = {}
    for t in parts:
        for k, v in t.stats.items():
            stats[k] = stats.get(k, 0) + v
    return Trajectories(np.concatenate([t.records for t in parts]), np.concatenate([t.seats for t in parts]),
                        np.concatenate([t.pol_idx for t in parts]), np.concatenate([t.pol_p for t in parts]),
                        np.concatenate([t.values for t in parts]), stats)


def _win_share(rets: np.ndarray, seat: int) -> float:
    best, worst = rets.max(), rets.min()
    if best - worst <= 1e-9:
        return 0.5
    return 1.0 if rets[seat] >= best - 1e-9 else 0.0


# ----------------------------------------------------------------------------
# Replay buffer
# ----------------------------------------------------------------------------
class ReplayBuffer:
    """The last ``capacity`` samples (a ring); batches are rebuilt into observations on demand.

    Args:
        game: the game (its observation kernel rebuilds the observations).
        capacity: most samples kept.
        policy_width: entries per stored target distribution.
        value_mix: weight of the game's compiled leaf value of each sample's record in its value
            target, ``(1 - value_mix) * outcome + value_mix * leaf value`` (the leaf value rescaled
            by the utility bounds as the search does, per seat counted from the sample's seat);
            0 keeps the outcome alone.

    Raises:
        ValueError: ``value_mix`` outside [0, 1], or positive for a game without a compiled leaf value.
    """

    def __init__(self, game: Game, capacity: int, policy_width: int, value_mix: float = 0.0) -> None:
        self.game = game
        self.capacity = int(capacity)
        P = game.num_players
        self.records = np.zeros(self.capacity, dtype=game.dtype)
        self.seats = np.zeros(self.capacity, np.int64)
        self.pol_idx = np.zeros((self.capacity, policy_width), np.int32)
        self.pol_p = np.zeros((self.capacity, policy_width), np.float32)
        self.values = np.zeros((self.capacity, P), np.float32)
        self.size = 0
        self.pos = 0
        self.added = 0
        self._observe = search_kernels(game.kernel_module).observe_many
        if not 0.0 <= value_mix <= 1.0:
            raise ValueError(f"value_mix={value_mix} is not valid; it must be in [0, 1]")
        self.value_mix = float(value_mix)
        self._leaf_values = None
        if self.value_mix:
            value = leaf_value_function(game)
            if value is None:
                raise ValueError(f"value_mix={value_mix} is not valid for {game.name}: it has no compiled leaf value")
            self._leaf_values = search_kernels(game.kernel_module, value=value).leaf_values_many
            lo, hi = game.min_utility, game.max_utility
            self._bounds = (lo, hi if hi > lo else lo + 1.0)

    def __len__(self) -> int:
        return self.size

    def add(self, t: Trajectories) -> None:
        """Append the samples of ``t`` (the oldest ones leave when full)."""
        n = total = len(t)
        if n == 0:
            return
        if n > self.capacity:  # only the newest fit
            t = Trajectories(t.records[-self.capacity:], t.seats[-self.capacity:], t.pol_idx[-self.capacity:],
                             t.pol_p[-self.capacity:], t.values[-self.capacity:], t.stats)
            n = self.capacity
        idx = (self.pos + np.arange(n)) % self.capacity
        self.records[idx] = t.records
        self.seats[idx] = t.seats
        w = min(t.pol_idx.shape[1], self.pol_idx.shape[1])
        self.pol_idx[idx] = 0
        self.pol_p[idx] = 0.0
        self.pol_idx[idx, :w] = t.pol_idx[:, :w]
        self.pol_p[idx, :w] = t.pol_p[:, :w]
        self.values[idx] = t.values
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)
        self.added += total

    def batch(self, idx: np.ndarray, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
        """The training batch of samples ``idx``: observations, masks, target policies and values."""
        g = self.game
        recs = self.records[idx].copy()
        seats = self.seats[idx]
        obs = np.zeros((len(idx), g.observation_size), np.float32)
        masks = np.zeros((len(idx), g.num_actions), np.uint8)
        self._observe(recs, seats, obs, masks)
        policy = np.zeros((len(idx), g.num_actions), np.float32)
        np.add.at(policy, (np.repeat(np.arange(len(idx)), self.pol_idx.shape[1]), self.pol_idx[idx].ravel()),
                  self.pol_p[idx].ravel())
        values = self.values[idx].copy()
        if self._leaf_values is not None:
            values = (1.0 - self.value_mix) * values + self.value_mix * self.leaf_values(recs, seats)
        return {"obs": torch.from_numpy(obs).to(device), "mask": torch.from_numpy(masks.astype(bool)).to(device),
                "policy": torch.from_numpy(policy).to(device), "values": torch.from_numpy(values).to(device)}

    def leaf_values(self, records: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The compiled leaf value of each record in [0, 1], per seat counted from ``seats`` (``[n, P]``,
        float32): the value the search mixes in at its leaves (``leaf_value_mix``)."""
        P = self.values.shape[1]
        known = np.zeros((len(records), P), np.float64)
        self._leaf_values(records, np.zeros(len(records), np.int64), np.asarray(seats, np.int64), known)
        lo, hi = self._bounds
        known = np.clip((known - lo) / (hi - lo), 0.0, 1.0)
        order = (np.asarray(seats)[:, None] + np.arange(P)[None, :]) % P
        return np.take_along_axis(known, order, axis=1).astype(np.float32)

    def state_dict(self) -> dict[str, Any]:
        """The stored samples (only the filled part) and the ring's position.

        The samples are CPU tensors **sharing memory with the buffer** (the game records as
        their raw bytes, ``uint8[size, itemsize]``): ``torch.save`` writes a tensor's storage
        straight from memory, where numpy arrays are pickled through several full copies (a
        buffer of 620 MB of records took 4.7 GB more to save). Save them before the buffer
        changes, or copy them.
        """
        n = self.size
        raw = self.records[:n].view(np.uint8).reshape(n, self.records.dtype.itemsize)
        return {"records": torch.from_numpy(raw), "seats": torch.from_numpy(self.seats[:n]),
                "pol_idx": torch.from_numpy(self.pol_idx[:n]), "pol_p": torch.from_numpy(self.pol_p[:n]),
                "values": torch.from_numpy(self.values[:n]),
                "pos": self.pos, "size": self.size, "added": self.added}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` into a buffer of the same capacity (also the numpy arrays
        that checkpoints written before 2026-11-25 hold)."""
        n = int(d["size"])
        records = np.asarray(d["records"])
        if records.dtype == np.uint8:  # raw bytes, one row per record
            records = records.reshape(-1).view(self.records.dtype)
        self.records[:n] = records
        self.seats[:n], self.pol_idx[:n] = np.asarray(d["seats"]), np.asarray(d["pol_idx"])
        self.pol_p[:n], self.values[:n] = np.asarray(d["pol_p"]), np.asarray(d["values"])
        self.pos, self.size, self.added = int(d["pos"]), n, int(d["added"])


# ----------------------------------------------------------------------------
# Learner
# ----------------------------------------------------------------------------
class Learner:
    """The network being trained and its optimizer.

    Args:
        net: the network.
        learning_rate: AdamW learning rate.
        weight_decay: AdamW weight decay.
        value_weight: weight of the value loss in :func:`~octagames.agents.learn.az.az_loss`.
        max_grad_norm: gradient norm clip.
    """

    def __init__(self, net: PolicyValueNet, learning_rate: float = 1e-3, weight_decay: float = 1e-4,
                 value_weight: float = 1.0, max_grad_norm: float = 1.0) -> None:
        self.net = net
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=learning_rate, weight_decay=weight_decay)
        self.value_weight = value_weight
        self.max_grad_norm = max_grad_norm

    def step(self, batch: dict[str, torch.Tensor]) -> dict[str, float]:
        """One gradient step on ``batch``; the loss statistics."""
        self.net.train()
        loss, stats = az_loss(self.net, batch, self.value_weight)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.max_grad_norm)
        self.optimizer.step()
        self.net.eval()
        return {k: float(v) for k, v in stats.items()}

    def weights(self) -> dict[str, torch.Tensor]:
        """A CPU copy of the current weights (what workers receive)."""
        return {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()}

    def set_learning_rate(self, lr: float) -> None:
        """Change the learning rate of every parameter group."""
        for group in self.optimizer.param_groups:
            group["lr"] = lr


def play_games(game: str, game_config: dict[str, Any], weights: dict[str, torch.Tensor], net_spec: dict[str, Any],
               search: SearchConfig, opponent: str, num_games: int, seed: int, parallel: int = 64,
               device: torch.device | str = "cpu") -> dict[str, float]:
    """The network with ``search`` against ``opponent`` in every other seat, ``num_games`` games in lockstep.

    Seats rotate (the ``n``-th game started gives the network seat ``n % P``), no
    noise, the most visited action always (:attr:`WorkerConfig.eval_games`).
    Used for the trainer's evaluations; ``device``: where the network runs.

    Returns:
        ``wins``, ``draws``, ``losses``, ``games`` and ``score`` (a draw is half a win).
    """
    cfg = WorkerConfig(num_games=min(parallel, num_games), search=dataclasses.replace(search, dirichlet_alpha=0.0),
                       temperature=0.0, temperature_moves=0, self_play_prob=0.0, agent_prob=1.0,
                       opponent_agent=opponent, record=False, eval_games=num_games)
    w = SelfPlayWorker(game, game_config, cfg, net_spec, seed, device=device)
    w.set_weights(weights)
    st = w.play(min_samples=1).stats
    out = {k: int(st.get(f"{k}_agent", 0)) for k in ("wins", "draws", "losses")}
    out["games"] = int(st.get("games", 0))
    out["score"] = (out["wins"] + 0.5 * out["draws"]) / max(1, out["games"])
    return out
