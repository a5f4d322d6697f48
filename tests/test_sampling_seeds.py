"""Distinct seeds per generation: splitmix64 reference values, distinctness, the lmdeploy wrapper."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin.sampling_seeds import replica_seeds, splitmix64

GAMMA = 0x9E3779B97F4A7C15


@pytest.mark.parametrize(
    "state, expected",
    [
        # Vigna's reference splitmix64 generator seeded with 0: its first three outputs.
        (0, 0xE220A8397B1DCDAF),
        (GAMMA, 0x6E789E6AA1B965F4),
        ((2 * GAMMA) % 2**64, 0x06C45D188009454F),
    ],
)
def test_splitmix64_reference_outputs(state, expected):
    assert splitmix64(state) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-(2**70), 2**70), st.lists(st.integers(0, 50), min_size=1, max_size=6, unique=True), st.integers(1, 300)
)
def test_seeds_are_distinct_across_batches_and_positions(base, batches, count):
    seeds = [seed for batch in batches for seed in replica_seeds(base, batch, count)]
    assert len(set(seeds)) == len(seeds) == len(batches) * count
    assert all(0 <= seed < 2**64 for seed in seeds)


@given(st.integers(0, 2**64 - 1), st.integers(0, 100), st.integers(0, 64))
def test_seeds_are_a_function_of_base_batch_and_position(base, batch, count):
    seeds = replica_seeds(base, batch, count)
    assert seeds == replica_seeds(base, batch, count)
    assert seeds == replica_seeds(base, batch, count + 5)[:count]


def test_bad_batch_is_refused():
    with pytest.raises(ValueError, match="batch and count must be in"):
        replica_seeds(1, -1, 3)
    with pytest.raises(ValueError, match="round must be 1 or 2"):
        replica_seeds(1, 0, 3, round=3)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-(2**70), 2**70),
    st.lists(st.integers(0, 2**31 - 1), min_size=1, max_size=4, unique=True),
    st.lists(st.integers(0, 2**31 - 1), min_size=1, max_size=4, unique=True),
    st.integers(1, 50),
)
def test_round_two_never_repeats_a_seed_of_round_one(base, first_batches, second_batches, count):
    """A curtailed run's round 2 (same base seed, batches counted from 0 again) shares no seed with its round 1,
    whatever the batches: the two rounds' counters are 2**63 apart (batches below 2**31, positions below 2**32)."""
    first = {seed for batch in first_batches for seed in replica_seeds(base, batch, count)}
    second = {seed for batch in second_batches for seed in replica_seeds(base, batch, count, round=2)}
    assert len(first) == len(first_batches) * count and len(second) == len(second_batches) * count
    assert not first & second
    # the extremes of the bounds: the last position of the last batch of one round, the first of the other
    assert replica_seeds(base, 2**31 - 1, 1)[0] != replica_seeds(base, 0, 1, round=2)[0]


# ----------------------------------------------------------------------------- lmdeploy wrapper


@dataclasses.dataclass
class GenerationConfig:
    """The fields of lmdeploy's GenerationConfig the wrapper touches (lmdeploy needs a GPU)."""

    do_sample: bool = False
    temperature: float = 0.8
    random_seed: int | None = None


class RecordingPipeline:
    """Stands in for lmdeploy's pipeline: records each call's generation configs."""

    def __init__(self):
        self.calls = []
        self.backend_config = "engine settings"

    def __call__(self, prompts, gen_config=None, **kwargs):
        self.calls.append((list(prompts), gen_config, kwargs))
        return [f"reply to {prompt}" for prompt in prompts]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_sampled_batches_get_one_seed_per_prompt():
    from gpassk_opencompass.plugin.models import DistinctSeedPipeline

    inner = RecordingPipeline()
    pipe = DistinctSeedPipeline(inner)
    config = GenerationConfig(do_sample=True, temperature=1.0, random_seed=42)
    assert pipe(["q1", "q1", "q2"], gen_config=config, do_preprocess=False) == [
        "reply to q1",
        "reply to q1",
        "reply to q2",
    ]
    pipe(["q1", "q1"], gen_config=config)
    (_, first, kwargs), (_, second, _) = inner.calls
    assert kwargs == {"do_preprocess": False}
    assert [c.random_seed for c in first] == replica_seeds(42, 0, 3)
    assert [c.random_seed for c in second] == replica_seeds(42, 1, 2)
    assert all(c.temperature == 1.0 and c.do_sample for c in first + second)
    assert config.random_seed == 42  # the caller's config is not modified
    assert pipe.backend_config == "engine settings"  # other attributes pass through


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_round_two_of_a_curtailed_run_draws_other_seeds():
    from gpassk_opencompass.plugin.models import DistinctSeedPipeline

    first, second = RecordingPipeline(), RecordingPipeline()
    config = GenerationConfig(do_sample=True, temperature=1.0, random_seed=42)
    DistinctSeedPipeline(first)(["q1", "q1"], gen_config=config)
    DistinctSeedPipeline(second, seed_round=2)(["q1", "q1"], gen_config=config)
    seeds = [[c.random_seed for c in pipe.calls[0][1]] for pipe in (first, second)]
    assert seeds == [replica_seeds(42, 0, 2), replica_seeds(42, 0, 2, round=2)]
    assert not set(seeds[0]) & set(seeds[1])


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_without_a_seed_the_base_is_drawn_once():
    from gpassk_opencompass.plugin.models import DistinctSeedPipeline

    inner = RecordingPipeline()
    pipe = DistinctSeedPipeline(inner, fallback_seed=7)
    pipe(["a", "a"], gen_config=GenerationConfig(do_sample=True))
    assert [c.random_seed for c in inner.calls[0][1]] == replica_seeds(7, 0, 2)


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize(
    "gen_config",
    [None, GenerationConfig(do_sample=False, random_seed=42), [GenerationConfig(do_sample=True, random_seed=1)]],
)
def test_greedy_and_explicit_lists_pass_through(gen_config):
    from gpassk_opencompass.plugin.models import DistinctSeedPipeline

    inner = RecordingPipeline()
    DistinctSeedPipeline(inner)(["a"], gen_config=gen_config)
    assert inner.calls[0][1] is gen_config


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_turbomind_model_wraps_the_pipeline(monkeypatch):
    """TurboMindDistinctSeeds builds OpenCompass's pipeline and wraps it (lmdeploy itself needs a GPU)."""
    from opencompass.models.turbomind_with_tf_above_v4_33 import TurboMindModelwithChatTemplate

    from gpassk_opencompass.plugin.models import DistinctSeedPipeline, TurboMindDistinctSeeds

    built = RecordingPipeline()
    monkeypatch.setattr(TurboMindModelwithChatTemplate, "_build_pipe", lambda self, *args: built)
    model = object.__new__(TurboMindDistinctSeeds)
    pipe = model._build_pipe("org/model", "turbomind", {"tp": 1})
    assert isinstance(pipe, DistinctSeedPipeline)
    pipe(["x"], gen_config=GenerationConfig(do_sample=True, random_seed=3))
    assert built.calls[0][1][0].random_seed == replica_seeds(3, 0, 1)[0]

    # round 2 of a curtailed run: the keyword gpassk grid run writes into its config reaches the seeds
    monkeypatch.setattr(TurboMindModelwithChatTemplate, "__init__", lambda self, *args, **kwargs: None)
    second = TurboMindDistinctSeeds(path="org/model", seed_round=2)
    second._build_pipe("org/model", "turbomind", {"tp": 1})(["x"], gen_config=GenerationConfig(True, 1.0, 3))
    assert built.calls[1][1][0].random_seed == replica_seeds(3, 0, 1, round=2)[0]
    with pytest.raises(InputError, match="seed_round must be 1 or 2"):
        TurboMindDistinctSeeds(path="org/model", seed_round=0)


@dataclasses.dataclass
class Response:
    """The fields of lmdeploy's ``Response`` the model reads (lmdeploy needs a GPU)."""

    text: str
    finish_reason: str | None
    input_token_len: int = 1
    generate_token_len: int = 1


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_turbomind_model_records_each_finish_reason_beside_the_predictions(monkeypatch, tmp_path):
    """Inside OpenCompass's infer task (the real ``OpenICLInferTask`` on the stack), each generation's lmdeploy
    finish reason lands in the sidecar of the predictions file the task writes; outside one, nowhere."""
    from opencompass.models.turbomind_with_tf_above_v4_33 import TurboMindModelwithChatTemplate
    from opencompass.tasks.openicl_infer import OpenICLInferTask

    from gpassk_opencompass.plugin.models import TurboMindDistinctSeeds
    from gpassk_opencompass.scoring.finish_reasons import finish_reasons_of

    replies = [Response("\\boxed{4}", "stop"), Response("First we", "length"), Response("\\boxed{5}", None)]
    monkeypatch.setattr(TurboMindModelwithChatTemplate, "__init__", lambda self, *args, **kwargs: None)
    monkeypatch.setattr(TurboMindModelwithChatTemplate, "_build_pipe", lambda self, *args: lambda *a, **k: replies)

    def generate(self, inputs, max_out_len, **kwargs):  # OpenCompass's: the pipeline's texts
        return [output.text for output in self.pipe(inputs, gen_config=GenerationConfig(True, 1.0, 3))]

    monkeypatch.setattr(TurboMindModelwithChatTemplate, "generate", generate)
    model = TurboMindDistinctSeeds(path="org/model")
    model.pipe = model._build_pipe("org/model", "turbomind", {"tp": 1})

    task = object.__new__(OpenICLInferTask)  # the task as its run() has set it up for one model x dataset
    task.model_cfg, task.dataset_cfg, task.work_dir = {"abbr": "m"}, {"abbr": "d"}, str(tmp_path)

    def infer(self, model):  # the task's frame on the stack, as when OpenCompass's inferencer calls the model
        return model.generate(["q1", "q1", "q2"], max_out_len=8)

    assert infer(task, model) == ["\\boxed{4}", "First we", "\\boxed{5}"]
    sidecar = tmp_path / "predictions" / "m" / "d.finish_reasons.jsonl"
    assert finish_reasons_of([reply.text for reply in replies], [sidecar]) == ("stop", "length", None)
    assert len(sidecar.read_text().splitlines()) == 2  # a generation without a reason gets no line

    model.generate(["q3"], max_out_len=8)  # no infer task on the stack: nothing recorded
    assert len(sidecar.read_text().splitlines()) == 2
