"""``octagames list``: the variants, the agent specs and the zoo models, one line each."""

from __future__ import annotations

import io

import pytest

from octagames import catalogue
from octagames.agents.registry import AGENTS
from octagames.experiments.list import ZOO_DIR, ListConfig, main


def _listing(*what: str) -> str:
    out = io.StringIO()
    main(ListConfig(what) if what else ListConfig(), out)
    return out.getvalue()


def _section(text: str, title: str) -> list[str]:
    """The lines of the section whose heading starts with ``title``."""
    block = next(b for b in text.split("\n\n") if b.startswith(title))
    return block.splitlines()[1:]


def test_every_variant_agent_and_zoo_model_has_one_line():
    text = _listing()
    variants = _section(text, "variants")
    names = [line.split()[0] for line in variants]
    assert names == catalogue.names()  # every name --game takes, the bare game names last
    for line in variants:
        name = line.split()[0]
        if name not in catalogue.variants():  # a bare game name: its seed variant
            assert f"= {catalogue.variant(name).name} " in line
            continue
        v = catalogue.variant(name)
        assert v.title in line and "/".join(map(str, v.players)) in line.split()
        assert (" zoo " in line) == bool(v.zoo), line
    octa_nl = next(line for line in variants if line.split()[0] == "octa-nl")
    assert octa_nl.split()[:3] == ["octa-nl", "2", "zoo"]
    agents = _section(text, "agent specs")
    assert [line.split()[0] for line in agents] == sorted(AGENTS)
    for line in agents:
        assert AGENTS[line.split()[0]].summary in line
    zoo = _section(text, "zoo models")
    models = catalogue.zoo_models()
    assert [line.split()[0] for line in zoo] == [f"zoo:{name}" for name in models]
    for line, (name, (v, n)) in zip(zoo, models.items()):
        if (ZOO_DIR / f"{name}.pt").exists():  # the variant and seats its card records: its own
            assert line.split()[1] == f"{v.name}-{n}p", line


def test_one_section_and_a_bad_one():
    text = _listing("agents")
    assert text.startswith("agent specs") and "variants" not in text and "zoo models" not in text
    with pytest.raises(ValueError, match=r"what=\['games'\] is not valid; valid values: \['variants'"):
        ListConfig(("games",))
