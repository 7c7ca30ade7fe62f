"""The faces of every game: PettingZoo AEC and Parallel envs, the vector env, the Gymnasium
wrapper and the OpenSpiel adapter.

The folder ``envs/`` installs as ``octagames.envs`` (see ``setup.cfg``); it has no
top-level import name of its own.

Importing it registers one Gymnasium id per game, the way Gymnasium documents
for third-party envs (``gymnasium.register`` on import, as ``ale_py`` does)::

    import gymnasium
    import octagames.envs

    env = gymnasium.make("octagames/Octrix-v0", num_players=3, seat=1)

The keyword arguments are those of :class:`octagames.envs.gym_wrapper.SingleAgentEnv`
(``seat``, ``opponents``, ``illegal_action``, ``illegal_reward``, ``render_mode``) and
the game's config fields. ``gymnasium.make("octagames.envs:octagames/Octa-v0")``
imports this package itself. The registration names the wrapper by string, so
nothing heavier than Gymnasium is imported until an env is made.
"""

if __name__ != "octagames.envs":  # one import name per module, never two
    raise ImportError("the folder envs/ is the package octagames.envs; import octagames.envs "
                      f"(in a checkout, after `pip install -e .`), not {__name__}")

import gymnasium

#: Gymnasium id -> game short name (the ids ``gymnasium.make`` knows after ``import octagames.envs``)
GYMNASIUM_IDS = {
    "octagames/Octrix-v0": "octrix",
    "octagames/Achten-v0": "achten",
    "octagames/Octiles-v0": "octiles",
    "octagames/Octa-v0": "octa",
}

for _id, _game in GYMNASIUM_IDS.items():
    if _id not in gymnasium.registry:  # importlib.reload must not register twice (gymnasium warns)
        gymnasium.register(_id, entry_point="octagames.envs.gym_wrapper:SingleAgentEnv",
                           kwargs={"game": _game}, disable_env_checker=False)
