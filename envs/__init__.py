"""The faces of every game: PettingZoo AEC and Parallel envs, the vector env, the Gymnasium
wrapper and the OpenSpiel adapter.

The folder ``envs/`` installs as ``octagames.envs`` (see ``setup.cfg``); it has no
top-level import name of its own.

Importing it registers one Gymnasium id per game, the way Gymnasium 1.x documents
for third-party envs (``gymnasium.register`` on import, as ``ale_py`` does)::

    import gymnasium
    import octagames.envs

    gymnasium.register_envs(octagames.envs)  # optional: keeps linters from dropping the import
    env = gymnasium.make("octagames/Octrix-v0", num_players=3, seat=1)

The keyword arguments are those of :class:`octagames.envs.gym_wrapper.SingleAgentEnv`
(``seat``, ``opponents``, ``illegal_action``, ``illegal_reward``, ``render_mode``) and
the game's config fields. The registration names the wrapper by string, so
nothing heavier than Gymnasium is imported until an env is made.

**Without an import.** Gymnasium 1.0 removed the plugin system of Gym 0.23+ and
Gymnasium 0.26-0.29 (the ``gymnasium.envs`` entry-point group, ``load_plugin_envs``):
``import gymnasium`` loads no third-party ids, so no entry point can register ours.
Where nothing has imported ``octagames.envs`` (``python -c``, a notebook kernel, a
spawned worker: ``SubprocVecEnv(start_method="spawn")``, ``AsyncVectorEnv(context=
"spawn")``, ``multiprocessing`` with spawn or forkserver, Ray) name the id with its
module, which Gymnasium imports first::

    gymnasium.make("octagames.envs:octagames/Octrix-v0")
    make_vec_env("octagames.envs:octagames/Octrix-v0", n_envs=8, vec_env_cls=SubprocVecEnv)  # SB3

:data:`GYMNASIUM_MODULE_IDS` lists these ids. A worker that unpickles an env made
in the parent (``SubprocVecEnv([lambda: env])``) or that ``gymnasium.make_vec``
hands its spec needs neither.
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

#: game short name -> its id with the module that registers it, for processes that have not imported us
GYMNASIUM_MODULE_IDS = {game: f"{__name__}:{gym_id}" for gym_id, game in GYMNASIUM_IDS.items()}

for _id, _game in GYMNASIUM_IDS.items():
    if _id not in gymnasium.registry:  # importlib.reload must not register twice (gymnasium warns)
        # one class per game (OctrixEnv, ...): its class metadata lists the render modes that game has
        gymnasium.register(_id, entry_point=f"octagames.envs.gym_wrapper:{_game.capitalize()}Env",
                           disable_env_checker=False)
