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


def test_the_self_play_figures_are_the_best_of_the_repeats(monkeypatch):
    # the docstring's best of --repeats runs: the search-and-learning figures were one timed run each
    import torch

    import octagames.experiments.bench_ray as bench_ray

    plays = []

    class Fake:
        def __init__(self, *args, **kwargs):
            self.name = "actors" if args and isinstance(args[0], int) else "here"

        def set_weights(self, weights):
            pass

        def play(self, min_samples):
            plays.append(self.name)
            return list(range(min_samples))

    monkeypatch.setattr(bench_ray, "SelfPlayWorker", Fake)
    monkeypatch.setattr(bench_ray, "SelfPlayActors", Fake)
    threads = torch.get_num_threads()
    try:
        out = bench_ray.bench_az(bench_ray.BenchRayConfig(repeats=3, az_samples=8))
    finally:
        torch.set_num_threads(threads)  # (the bench sets one thread)
    assert set(out) == {"here", "ray_1", "ray_2"} and all(v > 0 for v in out.values())
    assert plays.count("here") == 1 + 3 and plays.count("actors") == 2 * (1 + 3)  # a warm-up, then 3 timed
