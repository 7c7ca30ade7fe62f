"""``python -m octagames``: the ``octagames`` command (:func:`octagames.experiments.main.main`), where its console
script is not on ``PATH`` (a virtual environment that is not activated); ``python -m octagames --help`` lists
the verbs. A script's entry, not part of the rules engines: ``import octagames`` does not import it."""

from __future__ import annotations

from octagames.experiments.main import main

if __name__ == "__main__":
    main()
