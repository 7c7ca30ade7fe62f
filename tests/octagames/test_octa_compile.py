"""Octa's kernels are compiled for one rulebook: what a config compiles, and that it behaves the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from octagames.core import Game
from octagames.octa import dispatch, en, nl

ROOT = Path(__file__).resolve().parents[2]

COMPILED = """
import json, sys
from octagames.core import Game
from octagames.octa import dispatch, en, nl
g = Game("octa", rules=sys.argv[1])
s = g.new_state(seed=1)
g.observation(s, 0)
def compiled(module):
    return sorted(n for n, f in vars(module).items()
                  if getattr(f, "py_func", None) is not None and f.py_func.__module__ == module.__name__
                  and f.signatures)
print(json.dumps({"en": compiled(en), "nl": compiled(nl), "dispatch": compiled(dispatch)}))
"""


@pytest.mark.parametrize("rules", ["en", "nl"])
def test_a_config_binds_and_compiles_its_own_rulebook_alone(rules, tmp_path):
    g = Game("octa", rules=rules)
    assert g.kernel_module == f"octagames.octa.turn[book=octagames.octa.{rules}]"
    turn = g.kernels.game  # the turn machinery the generated entry points call, specialised
    assert turn.book is {"en": en, "nl": nl}[rules]
    assert Path(g.kernels.__file__).stem.startswith(f"engine_octa_turn_{rules}_")
    other = {"en": nl, "nl": en}[rules]
    assert not [name for name, value in vars(turn).items() if value is other or value is dispatch]
    # in a process with an empty cache: the rulebook's kernels compile, the other's and the dispatch's do not
    env = dict(os.environ, OCTAGAMES_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", COMPILED, rules], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    assert "observation" in compiled[rules]
    assert compiled[{"en": "nl", "nl": "en"}[rules]] == [] and compiled["dispatch"] == []


def test_a_record_of_the_other_rulebook_is_refused():
    english, dutch = Game("octa"), Game("octa", rules="nl")
    s = dutch.new_state(seed=0)
    with pytest.raises(ValueError, match="another octa config"):
        english.legal_mask(s)
    with pytest.raises(ValueError, match="another octa config"):
        english.apply_action(s, 0)
    with pytest.raises(ValueError, match="another octa config"):
        english.from_bytes(dutch.to_bytes(s))


AGREE = """
import sys
import numpy as np
import octagames.octa as octa
from octagames.core import Game
g = Game("octa", rules=sys.argv[1])
mask = np.zeros(g.num_actions, np.uint8)
obs = np.zeros(g.observation_size, np.float32)
for seed in (3, 4):
    a = g.new_state(seed)
    b = g.clone(a)
    rng = np.random.default_rng(seed)
    for _ in range(int(sys.argv[2])):
        if g.is_terminal(a):
            break
        if g.is_chance(a):
            o = g.sample_chance(a)
            assert octa.sample_chance(b) == o
            g.apply_action(a, o)
            assert octa.apply_action(b, o)
        else:
            p = g.acting_player(a)
            legal = g.legal_actions(a)
            assert octa.legal_mask(b, p, mask) == len(legal) and np.flatnonzero(mask).tolist() == legal
            assert np.array_equal(g.observation(a, p), (octa.observation(b, p, obs), obs)[1])
            x = int(rng.choice(legal))
            g.apply_action(a, x)
            assert octa.apply_action(b, x)
        assert a.tobytes() == b.tobytes()
print("agree")
"""


@pytest.mark.parametrize("rules", ["en", "nl"])
def test_the_rulebook_kernels_agree_with_the_package_kernels_that_dispatch_on_the_record(rules):
    # uncompiled (the same Python either way): the specialised turn machinery is the dispatching one
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", AGREE, rules, "300"], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("agree")
