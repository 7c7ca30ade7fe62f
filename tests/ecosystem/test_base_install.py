"""The base install (``pip install octagames``, no extras), in a subprocess that cannot import the extras.

Point 5 of the ecosystem issue: what needs an extra says which one to install, and the demo
runs without any. A meta-path hook refuses every package of the extras, as a fresh venv
without them would.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

EXTRAS = ["matplotlib", "tqdm", "tyro", "scipy", "torch", "pyspiel", "open_spiel", "stable_baselines3",
          "sb3_contrib", "torchrl", "tensordict", "supersuit"]

SCRIPT = textwrap.dedent('''
    import importlib.abc, json, sys, tempfile
    HIDDEN = set(sys.argv[1:])

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in HIDDEN:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
    out = {}

    def failure(fn):
        try:
            fn()
        except ModuleNotFoundError as e:
            return str(e)
        return None

    import gymnasium
    import octagames.envs
    from octagames.envs import octa_v0, octiles_v0, octrix_v0
    from octagames.envs.gym_wrapper import SingleAgentEnv
    from octagames.envs.vector import make

    out["openspiel"] = failure(lambda: __import__("octagames.envs.openspiel"))
    out["rgb_pettingzoo"] = failure(lambda: octiles_v0.env(render_mode="rgb_array"))
    out["rgb_gym"] = failure(lambda: SingleAgentEnv("octa", render_mode="rgb_array"))
    out["rgb_make"] = failure(lambda: gymnasium.make("octagames/Octa-v0", render_mode="rgb_array"))

    # what needs no extra works
    env = octrix_v0.env(render_mode="ansi")
    env.reset(seed=0)
    out["ansi"] = env.render()
    vec = make("octrix", 8, seed=0)
    vec.reset()
    vec.step(vec.sample_actions())
    gym_env = gymnasium.make("octagames/Achten-v0", deal_penalty=1.0)
    obs, info = gym_env.reset(seed=0)
    gym_env.step(int(info["action_mask"].argmax()))

    from octagames.experiments.demo import DemoConfig, main
    from octagames.experiments.tournament import run_tournament, save
    with tempfile.TemporaryDirectory() as tmp:
        main(DemoConfig(games=("octrix",), games_per_match=2, tournament_games=1, out=tmp + "/demo.json"))
        result = run_tournament("octrix", ["random", "heuristic"], 1, progress=True)
        out["chart"] = failure(lambda: save(result, tmp, chart=True))
    out["imported"] = sorted(m for m in sys.modules if m.split(".")[0] in HIDDEN)
    print("RESULT " + json.dumps(out))
''')


def test_the_base_install_names_the_extra_and_runs_the_demo():
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *EXTRAS], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.rsplit("RESULT ", 1)[1])
    assert "pip install 'octagames[openspiel]'" in out["openspiel"] and "pyspiel" in out["openspiel"]
    for key in ("rgb_pettingzoo", "rgb_gym", "rgb_make", "chart"):
        assert out[key] is not None and "pip install 'octagames[render]'" in out[key], key
    assert out["ansi"].startswith("Octrix (2 players)")
    assert "heuristic" in proc.stdout and "no chart: matplotlib is not installed" in proc.stdout  # the demo ran
    assert out["imported"] == []  # nothing of an extra was half-imported
