"""OpenCompass model classes for G-Pass@k runs (glue: imports OpenCompass).

* :class:`OfflineOpenAISDK` -- OpenCompass's ``OpenAISDK`` for a model served behind an OpenAI-compatible URL
  on a machine without internet: it loads no tokenizer (each of ``OpenAISDK``'s is a download) and counts
  prompt tokens with :func:`~gpassk_opencompass.plugin.token_estimate.estimate_tokens`; ``key='ENV'`` reads
  ``OPENAI_API_KEY`` (else ``EMPTY``). Each replica is its own request without a ``seed``, so replicas differ.
* :class:`TurboMindDistinctSeeds` -- lmdeploy's TurboMind model with one seed per prompt of a sampled batch
  (:func:`~gpassk_opencompass.plugin.sampling_seeds.replica_seeds`), so replicas sharing a batch differ; the
  second round of a curtailed run (``seed_round=2``) draws with seeds its first round never had.

Why, and the alternatives: docs/generator.md.
"""

from __future__ import annotations

import copy
import os
import random

from opencompass.models import OpenAISDK
from opencompass.models.turbomind_with_tf_above_v4_33 import TurboMindModelwithChatTemplate

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.log import logger
from gpassk_opencompass.plugin.sampling_seeds import replica_seeds
from gpassk_opencompass.plugin.token_estimate import estimate_tokens


class OfflineOpenAISDK(OpenAISDK):
    """``OpenAISDK`` that never downloads a tokenizer (see the module docstring).

    Args:
        chars_per_token: characters per token for the length estimate.
        key: ``'ENV'`` (``OPENAI_API_KEY`` if set, else ``'EMPTY'``) or a key.
        **kwargs: everything ``OpenAISDK`` takes (``path``, ``openai_api_base``,
            ``temperature``, ``max_seq_len``, ``extra_body``, ...).
    """

    def __init__(self, *, chars_per_token: float = 3.0, key: str = "ENV", **kwargs) -> None:
        if chars_per_token <= 0:
            raise InputError(f"chars_per_token must be > 0, got {chars_per_token!r}")
        self.chars_per_token = chars_per_token
        if key == "ENV" and not os.environ.get("OPENAI_API_KEY"):
            logger.info(
                "OPENAI_API_KEY is not set: sending the placeholder key 'EMPTY' "
                "(what keyless vLLM / lmdeploy / SGLang servers expect)"
            )
            key = "EMPTY"
        super().__init__(key=key, **kwargs)

    def _init_tokenizer(self) -> None:
        """Load nothing: token counts come from :meth:`get_token_len`."""
        self.tokenizer = None
        self.tokenizer_type = "length-estimate"

    def get_token_len(self, prompt: str) -> int:
        """Estimated token count of ``prompt`` (no tokenizer involved)."""
        return estimate_tokens(prompt, self.chars_per_token)


class DistinctSeedPipeline:
    """Wraps an lmdeploy pipeline so that a sampled batch gets one seed per prompt.

    Greedy batches (``do_sample=False``) and batches that already carry a
    list of generation configs pass through unchanged.

    Args:
        pipeline: the lmdeploy pipeline (called as ``pipeline(prompts, gen_config=..., **kwargs)``).
        fallback_seed: base seed when the generation config sets no
            ``random_seed`` (default: drawn once from the OS).
        seed_round: the round of a curtailed run (1 or 2): round 2's seeds are none of round 1's.
    """

    def __init__(self, pipeline, fallback_seed: int | None = None, seed_round: int = 1) -> None:
        self._pipeline = pipeline
        self._fallback_seed = random.SystemRandom().getrandbits(63) if fallback_seed is None else fallback_seed
        self._round = seed_round
        self._batches = 0

    def __call__(self, prompts, gen_config=None, **kwargs):
        if gen_config is not None and not isinstance(gen_config, list) and getattr(gen_config, "do_sample", True):
            base = gen_config.random_seed if gen_config.random_seed is not None else self._fallback_seed
            configs = []
            for seed in replica_seeds(base, self._batches, len(prompts), self._round):
                config = copy.copy(gen_config)
                config.random_seed = seed
                configs.append(config)
            gen_config = configs
        self._batches += 1
        return self._pipeline(prompts, gen_config=gen_config, **kwargs)

    def __getattr__(self, name):
        return getattr(self._pipeline, name)


class TurboMindDistinctSeeds(TurboMindModelwithChatTemplate):
    """``TurboMindModelwithChatTemplate`` whose sampled batches use one seed per prompt.

    ``gen_config['random_seed']`` becomes the base seed of
    :func:`~gpassk_opencompass.plugin.sampling_seeds.replica_seeds`; ``seed_round`` is the round of a curtailed
    run whose config this is (``gpassk grid run`` writes ``seed_round=2`` into round 2's); every other argument
    is OpenCompass's.
    """

    def __init__(self, *args, seed_round: int = 1, **kwargs) -> None:
        if seed_round not in (1, 2):
            raise InputError(f"seed_round must be 1 or 2 (the round of a curtailed run), got {seed_round!r}")
        self.seed_round = seed_round
        super().__init__(*args, **kwargs)

    def _build_pipe(self, model_path, backend, engine_config):
        return DistinctSeedPipeline(
            super()._build_pipe(model_path, backend, engine_config), seed_round=getattr(self, "seed_round", 1)
        )
