"""The base install (``pip install octagames``, no extras), in a subprocess that cannot import the extras.

Point 5 of the ecosystem issue: what needs an extra says which one to install, and the demo
runs without any. A meta-path hook refuses every package of the extras, as a fresh venv
without them would.
"""

from __future__ import annotations

import configparser
import json
import subprocess
import sys
import textwrap
from pathlib import Path

EXTRAS = ["matplotlib", "PIL", "tqdm", "tyro", "scipy", "torch", "pyspiel", "open_spiel", "stable_baselines3",
          "sb3_contrib", "torchrl", "tensordict", "supersuit", "starlette", "uvicorn", "httpx", "selenium", "pygame"]

#: the start of a subprocess without the extras: the packages named by the JSON list argv[1] are refused
BASE_INSTALL = textwrap.dedent('''
    import importlib.abc, json, sys
    HIDDEN = set(json.loads(sys.argv[1]))

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in HIDDEN:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
''')

SCRIPT = BASE_INSTALL + textwrap.dedent('''
    import tempfile
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

    from octagames.experiments.main import demo  # the console script octagames-demo, with its flags
    from octagames.experiments.tournament import run_tournament, save
    with tempfile.TemporaryDirectory() as tmp:
        sys.argv = ["octagames-demo", "--game", "octrix-round", "--games-per-match", "2",
                    "--tournament-games", "1", "--out", tmp + "/demo.json"]
        demo()
        out["demo"] = json.load(open(tmp + "/demo.json"))
        result = run_tournament("octrix", ["random", "heuristic"], 1, progress=True)
        out["chart"] = failure(lambda: save(result, tmp, chart=True))
    out["imported"] = sorted(m for m in sys.modules if m.split(".")[0] in HIDDEN)
    print("RESULT " + json.dumps(out))
''')


def test_the_base_install_names_the_extra_and_runs_the_demo():
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(EXTRAS)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.rsplit("RESULT ", 1)[1])
    assert "pip install 'octagames[openspiel]'" in out["openspiel"] and "pyspiel" in out["openspiel"]
    for key in ("rgb_pettingzoo", "rgb_gym", "rgb_make", "chart"):
        assert out[key] is not None and "pip install 'octagames[render]'" in out[key], key
    assert out["ansi"].startswith("Octrix (2 players)")
    assert "heuristic" in proc.stdout and "no chart: matplotlib is not installed" in proc.stdout  # the demo ran
    assert sorted(out["demo"]) == ["octrix-round", "tournament_octrix-round"]
    assert out["demo"]["octrix-round"]["num_games"] == 2
    assert out["imported"] == []  # nothing of an extra was half-imported


# Point 6: every console script, run with --help where no extra is installed: its help (the standard
# library's parser reads the flags tyro would), or one line naming the extra its module needs.
SCRIPTS = BASE_INSTALL + textwrap.dedent('''
    import contextlib, importlib, io, traceback
    SCRIPTS, out = json.loads(sys.argv[2]), {}
    for name, target, *args in SCRIPTS:
        module, _, attr = target.partition(":")
        sys.argv = [f"/venv/bin/{name}", *args]
        stdout, stderr, code = io.StringIO(), io.StringIO(), 0
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                getattr(importlib.import_module(module), attr)()  # what the console script does
            except SystemExit as e:
                code = e.code
            except BaseException:
                code = "traceback"
                traceback.print_exc()
        out[" ".join([name, *args])] = [code, stdout.getvalue(), stderr.getvalue()]
    print("RESULT " + json.dumps(out))
''')

#: what each script needs on top of the base install (None: it runs there)
NEEDS = {"demo": None, "warmup": None, "play": None, "evaluate": None, "tournament": None, "bench": None,
         "bench-mcts": None, "bench-startup": None, "bench-cfr": "openspiel", "leaderboard": "train",
         "zoo": "train", "train-ppo": "train", "train-az": "train", "train-cfr": "train", "bench-ppo": "train",
         "bench-az": "train",
         "bench-ray": "train"}


def _console_scripts() -> list[tuple[str, str]]:
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).resolve().parents[2] / "setup.cfg")
    lines = cfg["options.entry_points"]["console_scripts"].strip().splitlines()
    return [tuple(x.strip() for x in line.partition("=")[::2]) for line in lines]


def test_every_script_helps_or_names_its_extra_on_the_base_install(tmp_path):
    scripts = _console_scripts()
    assert len(scripts) >= 17
    runs = [[name, target, "--help"] for name, target in scripts]
    runs += [["octagames", "octagames.experiments.main:main", verb, "--help"] for verb in ("tournament", "zoo")]
    runs += [["octagames-warmup", "octagames.experiments.main:warmup", "--game", "octa", "--bogus"],
             ["octagames-evaluate", "octagames.experiments.main:evaluate", "--agent", "zoo:octrix",
              "--games", "1"],
             # they played every game and then exited 2 for the chart; bench measured for seconds, then a traceback
             ["octagames", "octagames.experiments.main:main", "evaluate", "--game", "octrix-round", "--agent",
              "heuristic", "--opponents", "random", "--games", "2", "--out-dir", str(tmp_path)],
             ["octagames", "octagames.experiments.main:main", "tournament", "--game", "octrix-round", "--agents",
              "random,heuristic", "--games-per-pair", "1", "--out-dir", str(tmp_path)],
             ["octagames", "octagames.experiments.main:main", "bench", "--game", "octrix-round", "--out",
              str(tmp_path / "bench.json")]]
    proc = subprocess.run([sys.executable, "-c", SCRIPTS, json.dumps(EXTRAS), json.dumps(runs)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.rsplit("RESULT ", 1)[1])
    for command, (code, stdout, stderr) in out.items():
        assert "Traceback" not in stdout + stderr, (command, stderr)
        words = command.split()
        if words[-1] != "--help" or words == ["octagames", "--help"]:
            continue
        prog = " ".join(words[:-1])
        verb = words[1] if words[0] == "octagames" else words[0].removeprefix("octagames-")
        helped = code == 0 and stdout.startswith(f"usage: {prog} ") and "--help" in stdout
        named = (code == 2 and stderr.count("\n") == 1 and stderr.startswith(f"{prog}: error: this command needs ")
                 and "pip install 'octagames[" in stderr)  # one line: what to install
        assert helped or named, (command, code, stdout[-500:], stderr)
        if verb in NEEDS:  # a script written after this test may run on the base install or not
            assert helped if NEEDS[verb] is None else f"octagames[{NEEDS[verb]}]" in stderr, (command, stderr)
    assert "--seed" in out["octagames-demo --help"][1] and "games per game type" in out["octagames-demo --help"][1]
    assert out["octagames zoo --help"][2].startswith("octagames zoo: error: this command needs torch")
    assert out["octagames --help"][1].count("\n  ") >= 17  # the verbs, one line each
    code, _, stderr = out["octagames-warmup --game octa --bogus"]
    assert code == 2 and "unrecognized arguments: --bogus" in stderr  # not ignored (nor compiling anything)
    code, _, stderr = out["octagames-evaluate --agent zoo:octrix --games 1"]
    assert code == 2 and stderr.count("\n") == 1 and "pip install 'octagames[train]'" in stderr
    for verb in ("evaluate", "tournament"):
        code, stdout, stderr = next(v for k, v in out.items() if k.startswith(f"octagames {verb} --game"))
        assert code == 0 and "no chart: matplotlib is not installed" in stdout, (verb, stdout[-500:], stderr)
    evaluated = json.loads(next(tmp_path.glob("evaluate-*.json")).read_text())
    assert [r["games"] for r in evaluated["results"]] == [2]
    assert len(list(tmp_path.glob("tournament_*.json"))) == 1 and not list(tmp_path.glob("*.png"))
    code, stdout, stderr = next(v for k, v in out.items() if k.startswith("octagames bench --game"))
    assert code == 2 and stderr.count("\n") == 1 and "pip install 'octagames[bench]'" in stderr, stderr
    assert not (tmp_path / "bench.json").exists()
