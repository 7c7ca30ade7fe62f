"""``octagames <verb>``: one command for every script; ``octagames --help`` lists them.

    octagames --help                      # the verbs, one line each
    octagames list                        # the variants, agent specs and zoo models
    octagames tournament --game octa-nl   # = octagames-tournament --game octa-nl
    octagames train-ppo --help            # the verb's own help

The verbs are the scripts of ``octagames.experiments``: ``octagames <verb>``, the console
script ``octagames-<verb>`` and ``python -m octagames.experiments.<verb_with_underscores>``
run the same ``cli()``. The console scripts come through here (``setup.cfg``:
``octagames-demo = octagames.experiments.main:demo``), so that a script whose module needs
an extra to import says which one in one line, instead of a traceback
(:func:`octagames.experiments.cli.user_errors`). A verb's one-line help is the first line
of its module's docstring, read without importing the module.

The verbs that play, train or measure games name them the same way
(:class:`octagames.experiments.cli.GameArgs`, ``GamesArgs`` for several games): ``--game VARIANT``
(``octagames list`` prints the variants), ``--players N`` and ``--config key=value ...``; demo,
leaderboard and zoo read ``--game`` their own way, and list, serve, replay and bench-cfr take no game
options (each verb's ``--help`` says). ``--help`` of a verb that takes agents lists the agent specs.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Callable, Sequence

from octagames.experiments.cli import fail, user_errors

#: the verbs, in the order ``octagames --help`` lists them
VERBS = ("list", "demo", "play", "evaluate", "tournament", "leaderboard", "zoo", "train-ppo", "train-az",
         "train-rollout", "improve-policy", "train-cfr", "bench", "bench-az", "bench-cfr", "bench-mcts", "bench-ppo",
         "bench-ray", "bench-startup", "warmup",
         "fuzz", "serve", "replay")


def module_of(verb: str) -> str:
    """``"train-ppo"`` -> ``"octagames.experiments.train_ppo"``."""
    return f"octagames.experiments.{verb.replace('-', '_')}"


def summary(verb: str) -> str:
    """The first line of the verb's module docstring (``"(not installed)"`` when the module is absent)."""
    spec = importlib.util.find_spec(module_of(verb))
    if spec is None or spec.origin is None:
        return "(not installed)"
    doc = ast.get_docstring(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))) or ""
    return doc.strip().split("\n")[0].replace("`", "")


def usage() -> str:
    """The text of ``octagames --help``."""
    width = max(map(len, VERBS))
    lines = [f"  {verb:<{width}}  {summary(verb)}" for verb in VERBS]
    return ("usage: octagames <verb> [options]    (octagames <verb> --help: the verb's options)\n\n"
            "Rules engines, agents and experiments for the game-of-8 family. The verbs that play, train or\n"
            "measure a game name it the same way: --game VARIANT (octagames list prints them) --players N\n"
            "--config key=value ... (each verb's --help gives its options)\n\n"
            "verbs:\n" + "\n".join(lines))


def run(verb: str, args: Sequence[str], prog: str) -> None:
    """Run the script of ``verb`` with the command-line arguments ``args``, under the name ``prog``.

    Raises:
        SystemExit: status 2 with one line when the verb's module needs an extra that is not
            installed (the line names it), or a setting is bad; otherwise the script's own status.
    """
    sys.argv = [prog, *args]
    with user_errors():
        if importlib.util.find_spec(module_of(verb)) is None:
            fail(f"{verb} is not part of this install of octagames")
        importlib.import_module(module_of(verb)).cli()


def main(argv: Sequence[str] | None = None) -> None:
    """``octagames <verb> [options]`` (the console script ``octagames``).

    Raises:
        SystemExit: status 0 after ``--help``; 2 without a verb or with an unknown one (one line
            naming the valid verbs); otherwise as :func:`run`.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if args else sys.stderr)
        raise SystemExit(0 if args else 2)
    verb = args[0]
    if verb not in VERBS:
        fail(f"{verb!r} is not a verb of octagames; valid verbs: {', '.join(VERBS)}", "octagames")
    run(verb, args[1:], f"octagames {verb}")


def __getattr__(name: str) -> Callable[[], None]:
    """``main.train_ppo``: the console script ``octagames-train-ppo`` (``setup.cfg``), for every verb.

    Raises:
        AttributeError: ``name`` is not a verb (with ``-`` written ``_``).
    """
    verb = name.replace("_", "-")
    if verb not in VERBS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return lambda: run(verb, sys.argv[1:], Path(sys.argv[0]).name)


if __name__ == "__main__":
    main()
