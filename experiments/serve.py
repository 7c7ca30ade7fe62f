"""Play the games against the bots and watch replays in a browser (the web extra).

    octagames serve                          # http://127.0.0.1:8088/ : pick a variant and the seats
    octagames serve --port 9000 --host 0.0.0.0 --allowed-host games.lan
    octagames serve --replay docs/leaderboard/octrix.games.jsonl   # that file's first game with a record

The page names every variant; a new game takes a variant, the player count and, for each seat, a
person (``human``) or an agent spec (``zoo:octa-nl``, ``mcts:500``, ``heuristic``, ``random``,
``ppo:<path>``). Replays open records and journals under ``runs/`` and the leaderboard journals
``docs/leaderboard/*.games.jsonl`` of the folder the server runs in, or an uploaded file; a journal's
games are numbered as ``octagames replay --game-index`` numbers them (``game #`` on the page): the games
that keep a record, from 0 (not the journal's ``key``). The HTTP API is described in ``octagames.web.app``.

The app answers only requests whose ``Host`` is 127.0.0.1, localhost, the ``--host`` address, this
machine's hostname or an ``--allowed-host`` name (a page of another site cannot reach it by DNS
rebinding); with ``--host 0.0.0.0`` the other machines of the network reach it by one of those names.
The limits (``--max-games``, ``--idle-seconds``, ``--max-simulations``, ``--max-body-kib``,
``--max-replay-kib``) keep one browser or script from exhausting the server.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from octagames.experiments.cli import REPEATED, parse_config, script
from octagames.web.app import Limits, create_app

#: the addresses that listen on every interface (no one Host name)
EVERY_ADDRESS = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class ServeConfig:
    """Settings of the web app."""

    port: int = 8088
    """the port to listen on"""
    host: str = "127.0.0.1"
    """the address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)"""
    allowed_host: Annotated[tuple[str, ...], REPEATED] = ()
    """a Host name the app answers besides 127.0.0.1, localhost, this machine's hostname and the --host
    address (repeat the flag for several; '*' answers any, which opens the app to DNS rebinding)"""
    replay: str | None = None
    """a record or journal to open at start (a journal's game # 0, its first game with a record); prints its address"""
    root: str = "."
    """the folder whose runs/ and docs/leaderboard/*.games.jsonl the page may open replays from (--replay is read
    from the current folder)"""
    max_games: int = Limits.max_games
    """games kept at once; past it a new game drops a finished or abandoned one, else it is refused (503)"""
    idle_seconds: float = Limits.idle_seconds
    """a game nobody has asked about for this long is abandoned: dropped at the next request for a game or
    replay, or the server's next look (every 30 s at most); its bots stop at once (a compiled search when it
    returns to Python)"""
    max_simulations: int = Limits.max_simulations
    """the largest search budget an agent spec may ask for (simulations, worlds, CFR iterations)"""
    max_body_kib: int = Limits.max_body_kib
    """the largest request body in KiB (413), an uploaded replay apart"""
    max_replay_kib: int = Limits.max_replay_kib
    """the largest replay file in KiB, uploaded or opened by path (413)"""
    max_moves: int = Limits.max_moves
    """the most actions (chance included) a game keeps, or a replay holds: a game stops there, saying why; a
    longer replay is refused (413)"""

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise ValueError(f"port={self.port} is not valid; valid values: 1..65535")
        if not Path(self.root).is_dir():  # served anyway, the page found nothing there
            raise ValueError(f"root={self.root!r} is not valid: no such folder")
        if self.replay is not None and not Path(self.replay).is_file():
            raise ValueError(f"replay={self.replay!r}: no such file")
        for name in self.allowed_host:
            if not name or any(c.isspace() or c in "/:" for c in name):
                raise ValueError(f"allowed_host={name!r} is not valid; give a host name such as games.lan "
                                 "(no port, no scheme)")
        self.limits()  # refuses a limit that is not positive, naming it

    def limits(self) -> Limits:
        """The server's :class:`~octagames.web.app.Limits` from the flags."""
        return Limits(self.max_games, self.idle_seconds, self.max_simulations, self.max_body_kib,
                      self.max_replay_kib, self.max_moves)

    def url(self, host: str | None = None) -> str:
        """The page's address by ``host``; by default the --host address, or 127.0.0.1 when the app
        listens on every address (a browser cannot open 0.0.0.0, and the app would refuse that Host)."""
        if host is None:
            host = "127.0.0.1" if self.host in EVERY_ADDRESS else self.host
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/"

    def hosts(self) -> tuple[str, ...]:
        """The Host names the app answers besides 127.0.0.1 and localhost: the --host address (unless
        it is every address), this machine's hostname and the --allowed-host names."""
        listen = () if self.host in EVERY_ADDRESS else (self.host,)
        return tuple(dict.fromkeys((*listen, socket.gethostname(), *self.allowed_host)))


def main(cfg: ServeConfig) -> None:
    """Serve the app until interrupted (uvicorn)."""
    import uvicorn  # the web extra; octagames.web.app above needs it too

    check_listen(cfg.host, cfg.port)
    app = create_app(cfg.root, hosts=cfg.hosts(), limits=cfg.limits())
    url = cfg.url()
    if cfg.replay is not None:
        replay, games = app.state.server.open_replay({"text": Path(cfg.replay).read_text(encoding="utf-8"),
                                                      "name": Path(cfg.replay).name})
        print(f"{replay_line(cfg.replay, games)}: {url}#replay={replay.id}&step=0")
    print(banner(cfg))
    uvicorn.run(app, host=cfg.host, port=cfg.port, log_level="warning")


def check_listen(host: str, port: int) -> None:
    """Refuse, naming the flag, an address this machine cannot listen on, before the banner gives it as the page's
    (uvicorn's own refusal names no flag and comes after it).

    Raises:
        ValueError: ``host`` does not resolve, or ``port`` is taken (or not ours) at it.
    """
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except OSError as e:
        raise ValueError(f"host={host!r} is not valid: {e.strerror or e}; give an address of this machine "
                         "(127.0.0.1: this machine only, 0.0.0.0: every interface)") from e
    try:
        with socket.create_server((host, port), family=family):  # SO_REUSEADDR, as uvicorn listens
            pass
    except OSError as e:
        raise ValueError(f"port={port} is not valid: it cannot be listened on at {host} ({e.strerror or e}); "
                         "give another --port (or --host)") from e


def replay_line(path: str, games: int) -> str:
    """What ``--replay`` opened: its game # 0, numbered as the page and ``octagames replay --game-index`` number
    a journal's games (those with a record, from 0)."""
    if games == 1:
        return f"replay of {path} (its one game record, game # 0)"
    return f"replay of {path} (game # 0 of its {games} games with a record, numbered 0..{games - 1})"


def banner(cfg: ServeConfig) -> str:
    """The line ``octagames serve`` prints when it starts: the page's address, and every Host name the app
    answers, each once (127.0.0.1 and localhost last)."""
    every = f"; other machines: {cfg.url(socket.gethostname())}" if cfg.host in EVERY_ADDRESS else ""
    names = [name for name in cfg.hosts() if name not in ("127.0.0.1", "localhost")] + ["localhost", "127.0.0.1"]
    return f"octagames serve: {cfg.url()}{every}  (Ctrl-C stops it; answers the Host names {', '.join(names)})"


@script
def cli() -> None:
    """Command-line entry point (``octagames serve``, ``octagames-serve``)."""
    main(parse_config(ServeConfig))


if __name__ == "__main__":
    cli()
