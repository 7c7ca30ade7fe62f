"""The start-up bench's settings."""

import pytest

from octagames.experiments.bench_startup import StartupConfig


@pytest.mark.parametrize("repeats", [0, -2])
def test_fewer_than_one_warm_run_is_refused_naming_the_field(repeats):
    """It was refused after warming every game up, as "min() arg is an empty sequence", naming no flag."""
    with pytest.raises(ValueError, match=rf"^repeats={repeats} is not valid; it must be >= 1"):
        StartupConfig(game=("octrix-round",), repeats=repeats)
