"""Command-line scripts (console scripts ``octagames-<name>``, or
``python -m octagames.experiments.<name>``); results go to ``runs/``.

The folder ``experiments/`` installs as ``octagames.experiments`` (see ``setup.cfg``); it has no
top-level import name of its own.
"""

if __name__ != "octagames.experiments":  # one import name per module, never two
    raise ImportError("the folder experiments/ is the package octagames.experiments; import octagames.experiments "
                      f"(in a checkout, after `pip install -e .`), not {__name__}")
