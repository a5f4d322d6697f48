"""The complete GPassKEvaluator config of docs/evaluator.md is a real, loadable OpenCompass config."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mmengine.config import Config

from gpassk_opencompass import GPassKEvaluator
from gpassk_opencompass.plugin.models import OfflineOpenAISDK

#: Drives OpenCompass (its datasets, evaluators or configs): only the e2e step collects it (conftest.py).
pytestmark = pytest.mark.e2e

PAGE = Path(__file__).resolve().parents[1] / "docs" / "evaluator.md"


def readme_config() -> str:
    text = PAGE.read_text(encoding="utf-8")
    match = re.search(
        r"<!-- evaluator config: loaded by tests/test_readme_config.py -->\n```python\n(.*?)```", text, re.S
    )
    assert match, "docs/evaluator.md lost its config block"
    return match.group(1)


def test_readme_config_loads_and_builds(tmp_path):
    path = tmp_path / "eval_livemathbench.py"
    path.write_text(readme_config(), encoding="utf-8")
    config = Config.fromfile(str(path))
    (dataset,) = config.datasets
    assert dataset.n == 48 and list(dataset.k) == [4, 8, 16] and dataset.abbr == "LiveMathBench-202412"
    evaluator = dict(dataset.eval_cfg.evaluator)
    assert evaluator.pop("type") is GPassKEvaluator
    built = GPassKEvaluator(**evaluator)
    assert built.judge_settings.kind == "llm"
    assert built.judge_settings.urls == ("http://gpu-node-1:8000/v1",)
    assert built.request.benchmark == "LiveMathBench-202412"
    assert built.columns.subset_columns == ("split", "language")
    (model,) = config.models
    model = dict(model)
    assert model.pop("type") is OfflineOpenAISDK
    for key in ("abbr", "max_out_len", "batch_size", "run_cfg"):  # popped by OpenCompass before building
        model.pop(key)
    OfflineOpenAISDK(**model)  # no network, no tokenizer download
