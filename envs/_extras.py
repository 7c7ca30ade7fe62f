"""The optional extras of ``pip install octagames[...]``, and the error raised when one is missing.

The base install (``pip install octagames``) runs every rules engine, the
PettingZoo and Gymnasium faces with text rendering, the vector env, the agents
without torch and the demo. What needs more names the extra to install instead
of failing with a bare ``No module named ...``:

===============  ==============================  =================================================
extra            brings                          needed for
===============  ==============================  =================================================
``render``       matplotlib, Pillow              ``render_mode="rgb_array"`` (every game), plots
``openspiel``    open-spiel                      ``octagames.envs.openspiel``
``train``        torch, scipy, tqdm, matplotlib  PPO, the Octrix solver, progress bars, plots
``ecosystem``    sb3-contrib, torchrl, supersuit the clients ``tests/ecosystem`` drives
``bench``        sb3-contrib, pygame-ce,         the anchors of ``bench`` and the baseline of
                 open-spiel                      ``bench-ppo``
===============  ==============================  =================================================
"""

from __future__ import annotations

#: the extra that brings each optional top-level package
EXTRA_OF = {
    "matplotlib": "render",
    "PIL": "render",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "torch": "train",
    "scipy": "train",
    "tqdm": "train",
    "tyro": "train",
    "ray": "distributed",
    "pygame": "bench",
    "sb3_contrib": "bench",
    "stable_baselines3": "bench",
    "starlette": "web",
    "uvicorn": "web",
    "selenium": "web",
}


def missing_extra(error: ModuleNotFoundError, needed_for: str) -> ModuleNotFoundError:
    """The error to raise instead of ``error`` when an optional package is missing.

    Use it where the optional import fails::

        try:
            import matplotlib
        except ModuleNotFoundError as e:
            raise missing_extra(e, "render_mode='rgb_array'") from e

    Args:
        error: the ``ModuleNotFoundError`` of the failed import.
        needed_for: what the user asked for, in their words.

    Returns:
        A ``ModuleNotFoundError`` naming the package and the extra that installs it,
        or ``error`` itself when the missing module is none of the optional ones (a
        broken install of another package must not be disguised).
    """
    package = (error.name or "").split(".")[0]
    extra = EXTRA_OF.get(package)
    if extra is None:
        return error
    return ModuleNotFoundError(f"{needed_for} needs {package}, which is not installed; "
                               f"install it with: pip install 'octagames[{extra}]'", name=error.name)
