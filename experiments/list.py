"""List the game variants, the agent specs and the zoo models, one line each.

    octagames list                 # everything
    octagames list --what variants # one section: variants, agents or zoo

A variant's name is what ``--game`` (of the verbs that have it) and ``make_game`` take
(:mod:`octagames.catalogue`); an agent spec is what ``--agent``/``--opponents``/``--agents``
take (:data:`octagames.agents.registry.AGENTS`); a zoo model is played with ``zoo:<name>``.
Listing imports no agent, no torch and no compiled kernel.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import octagames.agents
from octagames import catalogue
from octagames.experiments.cli import agent_specs_help, parse_config, script

SECTIONS = ("variants", "agents", "zoo")

#: where the zoo's model files and cards lie (``agents/zoo/<name>.pt`` and ``.json``)
ZOO_DIR = Path(octagames.agents.__file__).resolve().parent / "zoo"


@dataclass(frozen=True)
class ListConfig:
    """What to list."""

    what: tuple[str, ...] = SECTIONS
    """sections to print: variants, agents, zoo"""

    def __post_init__(self) -> None:
        unknown = [w for w in self.what if w not in SECTIONS]
        if unknown:
            raise ValueError(f"what={unknown} is not valid; valid values: {list(SECTIONS)}")


def variant_lines() -> list[str]:
    """One line per variant: name, player counts (the default first), whether a zoo model plays it, title."""
    vs = catalogue.variants()
    width = max(map(len, vs))
    lines = []
    for v in vs.values():
        seats = "/".join(map(str, v.players))
        lines.append(f"  {v.name:<{width}}  {seats:<9}  {'zoo' if v.zoo else '   '}  {v.title}")
    bare = [g for g in catalogue.games() if g not in vs]
    lines += [f"  {g:<{width}}  = {catalogue.game_spec(g).seed_variant.name} (the game's own name)"
              for g in bare]
    return lines


def zoo_lines() -> list[str]:
    """One line per zoo model: ``zoo:<name>``, the variant and seats its card records (``octrix-2p``)
    and its card's evaluation."""
    zoo = catalogue.zoo_models()
    width = max((len(name) for name in zoo), default=0) + len("zoo:")
    lines = []
    for name, (v, n) in zoo.items():
        card_path, model = ZOO_DIR / f"{name}.json", ZOO_DIR / f"{name}.pt"
        if not model.exists():
            lines.append(f"  {'zoo:' + name:<{width}}  (no model file at {model})")
            continue
        card = json.loads(card_path.read_text()) if card_path.exists() else {}
        played = catalogue.describe(v.game, card.get("config", v.full_config(n)))
        evals = "; ".join(f"vs {e['opponent']} {e['win_rate']:.3f}" for e in card.get("evaluation", []))
        lines.append(f"  {'zoo:' + name:<{width}}  {played}" + (f"  {evals}" if evals else ""))
    return lines


def main(cfg: ListConfig, out: TextIO = sys.stdout) -> None:
    """Print the sections ``cfg.what`` asks for."""
    text = {
        "variants": ("variants (--game NAME; players: the counts it is played with, the default first)",
                     variant_lines),
        "agents": ("agent specs (--agent, --opponents, --agents; name or name:arg)",
                   lambda: agent_specs_help().split("\n")),
        "zoo": ("zoo models (agent spec zoo:<name>[:<simulations>], the train extra)", zoo_lines),
    }
    blocks = []
    for what in cfg.what:
        title, lines = text[what]
        blocks.append("\n".join([f"{title}:", *lines()]))
    out.write("\n\n".join(blocks) + "\n")


@script
def cli() -> None:
    """Command-line entry point (``octagames list``, or ``python -m octagames.experiments.list``)."""
    main(parse_config(ListConfig))


if __name__ == "__main__":
    cli()
