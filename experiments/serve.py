"""Play the games against the bots and watch replays in a browser (the web extra).

    octagames serve                          # http://127.0.0.1:8088/ : pick a variant and the seats
    octagames serve --port 9000 --host 0.0.0.0
    octagames serve --replay docs/leaderboard/octrix.jsonl   # opens the replay of that file's first game

The page names every variant; a new game takes a variant, the player count and, for each seat, a
person (``human``) or an agent spec (``zoo:octa-nl``, ``mcts:500``, ``heuristic``, ``random``,
``ppo:<path>``). Replays open records and journals under ``runs/`` and ``docs/leaderboard/`` of the
folder the server runs in, or an uploaded file. The HTTP API is described in ``octagames.web.app``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from octagames.experiments.cli import parse_config, script
from octagames.web.app import create_app


@dataclass(frozen=True)
class ServeConfig:
    """Settings of the web app."""

    port: int = 8088
    """the port to listen on"""
    host: str = "127.0.0.1"
    """the address to listen on (127.0.0.1: this machine only)"""
    replay: str | None = None
    """a record or journal to open as a replay at start (its first game); the page prints its address"""
    root: str = "."
    """the folder whose runs/ and docs/leaderboard/ the page may open replays from"""

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise ValueError(f"port={self.port} is not valid; valid values: 1..65535")
        if self.replay is not None and not Path(self.replay).is_file():
            raise ValueError(f"replay={self.replay!r}: no such file")


def main(cfg: ServeConfig) -> None:
    """Serve the app until interrupted (uvicorn)."""
    import uvicorn  # the web extra; octagames.web.app above needs it too

    # the Host names the app answers: listening on every address, any (the page is then open to the network)
    app = create_app(cfg.root, hosts=("*",) if cfg.host in ("0.0.0.0", "::", "") else (cfg.host,))
    url = f"http://{cfg.host}:{cfg.port}/"
    if cfg.replay is not None:
        replay, games = app.state.server.open_replay({"text": Path(cfg.replay).read_text(encoding="utf-8"),
                                                      "name": Path(cfg.replay).name})
        print(f"replay of {cfg.replay} (game 1 of {games}): {url}#replay={replay.id}&step=0")
    print(f"octagames serve: {url}  (Ctrl-C stops it)")
    uvicorn.run(app, host=cfg.host, port=cfg.port, log_level="warning")


@script
def cli() -> None:
    """Command-line entry point (``octagames serve``, ``octagames-serve``)."""
    main(parse_config(ServeConfig))


if __name__ == "__main__":
    cli()
