"""The one naming convention of a grid's runs: model abbrs, dataset abbrs, config file names (docs/generator.md).

Greedy and sampled runs never share an abbr; a curtailed run's dataset abbr names its design, and each of its two
rounds its own abbr beside it (:func:`round_abbr`).

>>> model_abbr("Qwen2.5-7B-Instruct", temperature=1.0, top_p=0.8, top_k=50,
...            repetition_penalty=1.0, seed=42, max_out_len=8192)
'Qwen2.5-7B-Instruct_t1.0_p0.8_k50_rp1.0_rs42_l8192'
>>> dataset_abbr("LiveMathBench-202412", (4, 8, 16), 48)
'LiveMathBench-202412_k4-8-16_n48'
>>> dataset_abbr("AIME2025", (4, 8, 16), 48, curtail=Curtailed(16, 48))  # round 1 draws 16, round 2 the rest
'AIME2025_k4-8-16_n48_c16-all-wrong'
>>> config_file_name("Qwen2.5-7B-Instruct_t1.0_l8192", "AIME2025_k1_n1")
'Qwen2-5-7B-Instruct_t1-0_l8192@AIME2025_k1_n1.py'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gpassk_opencompass.checks import question_range
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.errors import InputError

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._+-]")


def _number(value: float | int) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def model_abbr(
    name: str,
    *,
    temperature: float,
    top_p: float | None,
    top_k: int | None,
    repetition_penalty: float | None,
    seed: int | None,
    max_out_len: int,
) -> str:
    """``{name}_t{T}_p{top_p}_k{top_k}_rp{rep}_rs{seed}_l{max_out_len}``, unset segments left out.

    >>> model_abbr("m", temperature=0.0, top_p=None, top_k=None, repetition_penalty=1.0,
    ...            seed=None, max_out_len=512)
    'm_t0.0_rp1.0_l512'
    """
    segments = [name, f"t{_number(float(temperature))}"]
    for prefix, value in (("p", top_p), ("k", top_k), ("rp", repetition_penalty), ("rs", seed)):
        if value is not None:
            segments.append(f"{prefix}{_number(value)}")
    segments.append(f"l{max_out_len}")
    return "_".join(segments)


def dataset_abbr(
    benchmark: str, k: Sequence[int], n: int, test_range: str | None = None, curtail: Curtailed | None = None
) -> str:
    """``{benchmark}_k{k joined by -}_n{n}``, then ``_c{n1}-{rule}`` for a curtailed run and ``_q{start}-{stop}``
    for a pilot's question range.

    >>> dataset_abbr("AIME2025", (4, 8), 8, "[:5]")
    'AIME2025_k4-8_n8_q0-5'
    """
    name = f"{benchmark}_k{'-'.join(map(str, k))}_n{n}"
    if curtail is not None:
        name += f"_c{curtail.n1}-{curtail.rule}"
    if test_range is None:
        return name
    questions = question_range(test_range, "test_range")
    return f"{name}_q{questions.start or 0}-{'' if questions.stop is None else questions.stop}"


def round_abbr(dataset_abbr: str, round: int) -> str:
    """The dataset abbr of round 1 or 2 of a curtailed run (its results are the run's, under ``dataset_abbr``).

    >>> round_abbr("AIME2025_k4-8-16_n48_c16-all-wrong", 2)
    'AIME2025_k4-8-16_n48_c16-all-wrong_r2'
    """
    return f"{dataset_abbr}_r{round}"


def config_file_name(model: str, dataset: str) -> str:
    """``{model_abbr}@{dataset_abbr}.py`` with ``.`` -> ``-`` in both parts."""
    return f"{model.replace('.', '-')}@{dataset.replace('.', '-')}.py"


def safe_name(name: str) -> str:
    """A display name usable in file names: characters outside ``[A-Za-z0-9._+-]`` become ``-``.

    >>> safe_name("my org/model v2")
    'my-org-model-v2'
    """
    cleaned = _SAFE_NAME.sub("-", str(name))
    if not cleaned.strip(".-"):
        raise InputError(f"model name {name!r} has no usable characters; give the model a name=")
    return cleaned
