"""The Ray bench's settings (it needs no Ray to read them)."""

import pytest

from octagames.experiments.bench_ray import BenchRayConfig


@pytest.mark.parametrize("field", ["games", "ppo_envs", "ppo_steps", "az_samples", "az_simulations",
                                   "repeats"])
@pytest.mark.parametrize("value", [0, -5])
def test_counts_below_one_are_refused_naming_the_field(field, value):
    """games -5 gave negative games/s, repeats -5 ran once, ppo_envs -5 was refused as num_envs (a flag of
    train_ppo) after Ray had started and the games were measured."""
    with pytest.raises(ValueError, match=rf"^{field}={value} is not valid; it must be >= 1"):
        BenchRayConfig(**{field: value})
