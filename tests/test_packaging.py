"""The installed distribution: one import name per module, nothing at the top level but ``octagames``.

The folders ``envs/``, ``agents/`` and ``experiments/`` sit at the top of the
repository (the user's layout) but install as ``octagames.envs`` and so on, so
that PyPI's unrelated ``envs`` package can live beside us.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPI_ENVS = "envs==1.4"  # PyPI's environment-variable package, the name clash of the issue


def _wheel_of(name: str, dest: Path, *args: str) -> Path:
    subprocess.run([sys.executable, "-m", "pip", *args, "--quiet", "--no-deps", "-w" if args[0] == "wheel" else "-d",
                    str(dest)], check=True, cwd=ROOT, capture_output=True, text=True)
    (found,) = sorted(dest.glob(f"{name}-*.whl"))
    return found


@pytest.fixture(scope="module")
def our_wheel(tmp_path_factory) -> Path:
    return _wheel_of("octagames", tmp_path_factory.mktemp("wheel"), "wheel", "--no-build-isolation", str(ROOT))


def test_the_wheel_holds_only_the_octagames_package(our_wheel):
    names = zipfile.ZipFile(our_wheel).namelist()
    top = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith((".dist-info", ".data"))}
    assert top == {"octagames"}
    for module in ("octagames/envs/vector.py", "octagames/agents/search/mcts.py", "octagames/experiments/demo.py",
                   "octagames/octiles/board.json"):
        assert module in names
    entry_points = zipfile.ZipFile(our_wheel).read(
        next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "octagames-demo = octagames.experiments.main:demo" in entry_points
    assert "octagames = octagames.experiments.main:main" in entry_points


def test_installs_beside_pypi_envs(our_wheel, tmp_path):
    """A fresh venv with PyPI's ``envs`` and our wheel imports both, each under its own name."""
    cache = Path(sys.prefix) / "wheels"  # `make` downloads PyPI's envs here; fetched on first use otherwise
    cache.mkdir(exist_ok=True)
    found = sorted(cache.glob("envs-*.whl"))
    envs_wheel = found[0] if found else _wheel_of("envs", cache, "download", "--only-binary=:all:", PYPI_ENVS)
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    py = target / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    for wheel in (envs_wheel, our_wheel):
        with zipfile.ZipFile(wheel) as z:  # a wheel of pure Python is a zip to unpack into site-packages
            z.extractall(site)
    # numpy, numba, ... come from this environment; its .pth files (our editable install) are not read
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    code = ("import envs, octagames, octagames.envs.vector, octagames.agents.registry, importlib.util\n"
            "from envs import Env\n"
            "print(envs.__file__); print(octagames.__file__)\n"
            "print([m for m in ('agents', 'experiments') if importlib.util.find_spec(m)])\n"
            "env = octagames.envs.vector.make('octrix', num_envs=2, seed=0); env.reset()\n"
            "print(env.step(env.sample_actions())[0].shape)\n")
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr
    envs_file, octagames_file, top_level, shape = out.stdout.strip().splitlines()
    assert envs_file.startswith(str(site / "envs"))
    assert octagames_file.startswith(str(site / "octagames"))
    assert top_level == "[]"
    assert shape.startswith("(2, ")


def test_a_folder_has_one_import_name():
    """From a checkout, ``import envs`` refuses with the name to use instead of loading a second copy."""
    out = subprocess.run([sys.executable, "-c", "import envs"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0
    assert "import octagames.envs" in out.stderr


def test_the_cache_command_runs_its_module_once_without_a_runpy_warning(tmp_path):
    """``python -m octagames.specialize`` (the README's command): importing the package imports no submodule,
    so runpy finds none in ``sys.modules`` before it runs it (and warns of none)."""
    env = {**os.environ, "OCTAGAMES_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-m", "octagames.specialize", "--where"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 0 and out.stderr == "" and out.stdout.strip() == str(tmp_path)
    probe = "import sys, octagames; print(sorted(m for m in sys.modules if m.startswith('octagames.')))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.strip() == "[]"
    names = "import octagames; print(octagames.make_game('octa-nl').name, octagames.core.Game is octagames.Game)"
    assert subprocess.run([sys.executable, "-c", names], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.split() == ["octa", "True"]
