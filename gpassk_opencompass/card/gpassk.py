"""G-Pass@k as a Hugging Face ``evaluate`` metric: the metric card's ``evaluate.load("gpassk")``, shipped.

``evaluate.load(gpassk_opencompass.EVALUATE_SCRIPT)`` loads this file (a local path: no network); its
``compute`` is :func:`gpassk_opencompass.card.compute`, nothing is computed here. It needs the ``evaluate``
extra (``pip install 'gpassk-opencompass[evaluate]'``); the package never imports it (``evaluate`` imports
transformers).
"""

from __future__ import annotations

import datasets
import evaluate

from gpassk_opencompass.card import compute

_CITATION = """\
@misc{liu2024llmscapablestablereasoning,
      title={Are Your LLMs Capable of Stable Reasoning?},
      author={Junnan Liu and Hongwei Liu and Linchen Xiao and Ziyi Wang and Kuikun Liu and Songyang Gao and Wenwei Zhang and Songyang Zhang and Kai Chen},
      year={2024},
      eprint={2412.13147},
      archivePrefix={arXiv},
      primaryClass={cs.AI},
      url={https://arxiv.org/abs/2412.13147},
}
"""


class GPassK(evaluate.Metric):
    """The metric card's G-Pass@k: ``compute(predictions=..., references=..., k=..., thresholds=..., check_correct_fn=...)``."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=(compute.__doc__ or "").split("\n\n")[0],
            citation=_CITATION,
            inputs_description=compute.__doc__ or "",
            features=datasets.Features(
                {"predictions": datasets.Sequence(datasets.Value("string")), "references": datasets.Value("string")}
            ),
            homepage="https://open-compass.github.io/GPassK/",
            codebase_urls=["https://github.com/open-compass/GPassK"],
            reference_urls=["https://arxiv.org/abs/2412.13147"],
        )

    def _compute(self, predictions: list[list[str]], references: list[str], **options) -> dict[str, float]:
        return compute(predictions, references, **options)
