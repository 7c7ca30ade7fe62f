"""The faces of every game: PettingZoo AEC and Parallel envs, the vector env, the Gymnasium
wrapper and the OpenSpiel adapter.

The folder ``envs/`` installs as ``octagames.envs`` (see ``setup.cfg``); it has no
top-level import name of its own.

Importing it registers one Gymnasium id per variant of the catalogue
(:mod:`octagames.catalogue`), the way Gymnasium 1.x documents for third-party envs
(``gymnasium.register`` on import, as ``ale_py`` does)::

    import gymnasium
    import octagames.envs

    gymnasium.register_envs(octagames.envs)  # optional: keeps linters from dropping the import
    env = gymnasium.make("octagames/Octrix-v0", num_players=3, seat=1)  # the match to 88
    env = gymnasium.make("octagames/Octrix-round-v0")                   # a single round
    env = gymnasium.make("octagames/Octa-nl-v0")                        # Octa's Dutch rulebook

**The id of a variant** is its game's id (``GameSpec.gymnasium_id``, the bare game name:
``octagames/Octrix-v0`` is the variant ``octrix``) with the rest of the variant's name
before the version: ``octrix-round`` is ``octagames/Octrix-round-v0``, ``achten-dealer-pays``
``octagames/Achten-dealer-pays-v0``, ``octa-nl`` ``octagames/Octa-nl-v0``
(:func:`gymnasium_id`; :data:`GYMNASIUM_IDS` lists them all). A game whose seed variant
has another name keeps its id too: ``octagames/Octa-v0`` is ``octa``, the English
rulebook, as ``octagames/Octa-en-v0`` is. Each id builds its game's class
(``GameSpec.gymnasium_class``) with ``game=<variant>``: the variant's config, with the
keyword arguments of ``gymnasium.make`` over it (``num_players=3``, ``target=30``).

**PettingZoo**: each game has its module ``octagames.envs.<game>_v0``, whose ``env``,
``raw_env``, ``parallel_env`` and ``parallel_raw_env`` take ``variant=`` (one of that game's
variants; the seed's game by default); :func:`make_env` and :func:`make_parallel_env` build
any variant by name (``make_env("octa-nl")``). **OpenSpiel** names every variant
``octagames_<variant>`` with ``_`` for ``-`` (``pyspiel.load_game("octagames_octa_nl")``,
:mod:`octagames.envs.openspiel`).

The keyword arguments are those of :class:`octagames.envs.gym_wrapper.SingleAgentEnv`
(``seat``, ``opponents``, ``illegal_action``, ``illegal_reward``, ``render_mode``) and
the game's config fields. The registration names the wrapper by string, so it is
imported only when an env is made.

**Without an import.** Gymnasium 1.0 removed the plugin system of Gym 0.23+ and
Gymnasium 0.26-0.29 (the ``gymnasium.envs`` entry-point group, ``load_plugin_envs``):
``import gymnasium`` loads no third-party ids, so no entry point can register ours.
Where nothing has imported ``octagames.envs`` (``python -c``, a notebook kernel, a
spawned worker: ``SubprocVecEnv(start_method="spawn")``, ``AsyncVectorEnv(context=
"spawn")``, ``multiprocessing`` with spawn or forkserver, Ray) name the id with its
module, which Gymnasium imports first::

    gymnasium.make("octagames.envs:octagames/Octrix-v0")
    gymnasium.make(GYMNASIUM_MODULE_IDS["octa-nl"])  # "octagames.envs:octagames/Octa-nl-v0"
    make_vec_env("octagames.envs:octagames/Octrix-v0", n_envs=8, vec_env_cls=SubprocVecEnv)  # SB3

:data:`GYMNASIUM_MODULE_IDS` lists these ids by variant name. A worker that unpickles an env made
in the parent (``SubprocVecEnv([lambda: env])``) or that ``gymnasium.make_vec``
hands its spec needs neither.
"""

if __name__ != "octagames.envs":  # one import name per module, never two
    raise ImportError("the folder envs/ is the package octagames.envs; import octagames.envs "
                      f"(in a checkout, after `pip install -e .`), not {__name__}")

import gymnasium

from octagames import catalogue
from octagames.envs._pettingzoo import make_env, make_parallel_env


def gymnasium_id(name: str) -> str:
    """The Gymnasium id of a variant or game: its game's id with the rest of the variant's name.

    Args:
        name: a name of the catalogue (``"octa-nl"``, ``"octrix-round"``, ``"octa"``).

    Returns:
        ``"octagames/Octa-nl-v0"``; a game's own name gives ``GameSpec.gymnasium_id``.

    Raises:
        ValueError: an unknown name (the message lists the valid ones).
    """
    spec = catalogue.game_spec(name)
    if name == spec.game:
        return spec.gymnasium_id
    base, _, version = spec.gymnasium_id.rpartition("-")  # "octagames/Octrix", "v0"
    rest = name[len(spec.game):] if name.startswith(spec.game + "-") else "-" + name
    return f"{base}{rest}-{version}"


#: Gymnasium id -> variant (or game) name: the ids ``gymnasium.make`` knows after ``import octagames.envs``
GYMNASIUM_IDS = {gymnasium_id(name): name for name in catalogue.names()}

#: variant (or game) name -> its id with the module that registers it, for processes that have not imported us
GYMNASIUM_MODULE_IDS = {name: f"{__name__}:{gym_id}" for gym_id, name in GYMNASIUM_IDS.items()}

__all__ = ["GYMNASIUM_IDS", "GYMNASIUM_MODULE_IDS", "gymnasium_id", "make_env", "make_parallel_env"]

for _id, _name in GYMNASIUM_IDS.items():
    if _id not in gymnasium.registry:  # importlib.reload must not register twice (gymnasium warns)
        # one class per game (OctrixEnv, ...): its class metadata lists the render modes that game has;
        # the variant is its game argument (its config, under the keyword arguments of gymnasium.make)
        gymnasium.register(_id, entry_point=catalogue.game_spec(_name).gymnasium_class,
                           kwargs={"game": _name}, disable_env_checker=False)
