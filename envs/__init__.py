"""The faces of every game: PettingZoo AEC and Parallel envs, the vector env, the Gymnasium
wrapper and the OpenSpiel adapter.

The folder ``envs/`` installs as ``octagames.envs`` (see ``setup.cfg``); it has no
top-level import name of its own.
"""

if __name__ != "octagames.envs":  # one import name per module, never two
    raise ImportError("the folder envs/ is the package octagames.envs; import octagames.envs "
                      f"(in a checkout, after `pip install -e .`), not {__name__}")
