"""OpenCompass model classes for G-Pass@k runs (glue: imports OpenCompass).

* :class:`OfflineOpenAISDK` -- OpenCompass's ``OpenAISDK`` for a model served behind an OpenAI-compatible URL
  on a machine without internet: it loads no tokenizer (each of ``OpenAISDK``'s is a download) and counts
  prompt tokens with :func:`~gpassk_opencompass.plugin.token_estimate.estimate_tokens`; ``key='ENV'`` reads
  ``OPENAI_API_KEY`` (else ``EMPTY``). Each replica is its own request without a ``seed``, so replicas differ.
* :class:`TurboMindDistinctSeeds` -- lmdeploy's TurboMind model with one seed per prompt of a sampled batch
  (:func:`~gpassk_opencompass.plugin.sampling_seeds.replica_seeds`), so replicas sharing a batch differ; the
  second round of a curtailed run (``seed_round=2``) draws with seeds its first round never had.

Both record why each generation stopped (the server's ``finish_reason``, lmdeploy's ``Response.finish_reason``)
in the sidecar of the predictions file OpenCompass's infer task is writing
(:mod:`~gpassk_opencompass.scoring.finish_reasons`), so a run's cut generations are counted, not guessed.

Why, and the alternatives: docs/generator.md.
"""

from __future__ import annotations

import copy
import os
import random
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import Any

from opencompass.models import OpenAISDK
from opencompass.models.turbomind_with_tf_above_v4_33 import TurboMindModelwithChatTemplate
from opencompass.utils import get_infer_output_path

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.log import logger
from gpassk_opencompass.plugin.sampling_seeds import replica_seeds
from gpassk_opencompass.plugin.token_estimate import estimate_tokens
from gpassk_opencompass.scoring.finish_reasons import append_finish_reasons


def running_predictions_file() -> Path | None:
    """The predictions file OpenCompass's infer task is writing, found on the caller's stack (the task calls the
    inferencer, which calls the model); ``None`` outside an infer task (a model used on its own).

    The task is known by its class's name: OpenCompass runs ``opencompass/tasks/openicl_infer.py`` as a script,
    so its ``OpenICLInferTask`` is ``__main__``'s, not the module's.
    """
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        task: Any = frame.f_locals.get("self")
        if any(kind.__name__ == "OpenICLInferTask" for kind in type(task).__mro__) and all(
            hasattr(task, name) for name in ("model_cfg", "dataset_cfg", "work_dir")
        ):
            return Path(
                get_infer_output_path(task.model_cfg, task.dataset_cfg, os.path.join(task.work_dir, "predictions"))
            )
        frame = frame.f_back
    return None


def record_finish_reasons(texts: Sequence[str], reasons: Sequence[object]) -> None:
    """Append the reasons (``str`` ones; others are not recorded) of a batch's generations to the sidecar of the
    predictions file being written (:func:`running_predictions_file`); outside an infer task, nothing."""
    predictions = running_predictions_file()
    if predictions is None:
        logger.debug("no OpenCompass infer task on the stack: finish reasons not recorded")
        return
    append_finish_reasons(predictions, list(texts), [reason if isinstance(reason, str) else None for reason in reasons])


#: Per thread, the finish reason of the last reply its client received (``None``: no reply, or none given).
_LAST_REPLY = threading.local()


class _RecordingCompletions:
    """``client.chat.completions`` whose ``create`` keeps the reply's first choice's ``finish_reason`` (per thread)."""

    def __init__(self, completions) -> None:
        self._completions = completions

    def create(self, *args, **kwargs):
        _LAST_REPLY.finish_reason = None
        response = self._completions.create(*args, **kwargs)
        choices = getattr(response, "choices", None)
        _LAST_REPLY.finish_reason = getattr(choices[0], "finish_reason", None) if choices else None
        return response

    def __getattr__(self, name):
        return getattr(self._completions, name)


class _RecordingClient:
    """An ``openai.OpenAI`` client whose chat completions record their finish reason (everything else is the client's)."""

    def __init__(self, client) -> None:
        self._client = client
        self.chat = SimpleNamespace(completions=_RecordingCompletions(client.chat.completions))

    def __getattr__(self, name):
        return getattr(self._client, name)


class _Stopped(str):
    """A generation's text carrying its reply's finish reason from ``_generate`` (a worker thread) to ``generate``."""

    finish_reason: str | None = None


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

    def _create_fresh_client(self):
        """OpenAISDK's client, its chat completions recording each reply's finish reason."""
        return _RecordingClient(super()._create_fresh_client())

    def _generate(self, input, max_out_len: int, temperature: float) -> str:
        """OpenAISDK's, the text carrying the finish reason of the reply it came from (``None``: no reply)."""
        _LAST_REPLY.finish_reason = None
        text = _Stopped(super()._generate(input, max_out_len, temperature))
        text.finish_reason = getattr(_LAST_REPLY, "finish_reason", None)
        return text

    def generate(self, inputs, max_out_len: int = 512, temperature: float = 0.7, **kwargs) -> list[str]:
        """OpenAISDK's, each generation's finish reason recorded beside the predictions (the module docstring)."""
        texts = super().generate(inputs, max_out_len, temperature, **kwargs)
        record_finish_reasons(texts, [getattr(text, "finish_reason", None) for text in texts])
        return [str(text) for text in texts]


class DistinctSeedPipeline:
    """Wraps an lmdeploy pipeline so that a sampled batch gets one seed per prompt.

    Greedy batches (``do_sample=False``) and batches that already carry a
    list of generation configs pass through unchanged. ``finish_reasons``: per prompt of the last batch, its
    response's ``finish_reason`` (``None`` until a batch returned a list).

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
        self.finish_reasons: list[object] | None = None

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
        self.finish_reasons = None
        outputs = self._pipeline(prompts, gen_config=gen_config, **kwargs)
        if isinstance(outputs, list):
            self.finish_reasons = [getattr(output, "finish_reason", None) for output in outputs]
        return outputs

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

    def generate(self, inputs, max_out_len, *args, **kwargs) -> list[str]:
        """TurboMind's, each generation's finish reason (lmdeploy's ``Response.finish_reason``) recorded beside
        the predictions (the module docstring)."""
        texts = super().generate(inputs, max_out_len, *args, **kwargs)
        reasons = getattr(self.pipe, "finish_reasons", None)
        if reasons is not None and len(reasons) == len(texts):
            record_finish_reasons(texts, reasons)
        return texts

    def _build_pipe(self, model_path, backend, engine_config):
        return DistinctSeedPipeline(
            super()._build_pipe(model_path, backend, engine_config), seed_round=getattr(self, "seed_round", 1)
        )
