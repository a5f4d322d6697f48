"""OpenCompass's own per-sample verdicts, scored by ``gpassk score --judge source``: a real OpenCompass 0.5.4 run.

One ``opencompass`` run (``--dump-eval-details``) of one scripted model at n = 8 on two datasets judged by
OpenCompass's OWN evaluators, no gpassk evaluator: ``oc_livemath`` by ``LiveMathBenchEvaluator`` (no judge
URL: its rule fallback) and ``oc_mathverify`` by ``MATHVerifyEvaluator``. The scripted model answers question
``i`` right exactly ``COUNTS[i]`` times of 8, so every G-Pass@k_tau is known exactly (Fraction + math.comb,
``tests/exact.py``), at any tau, and so is what OpenCompass itself wrote in ``results/`` at its own taus
{0, .25, .5, .75, 1}. The copy under ``tests/data/opencompass-details/`` came from this run
(its PROVENANCE.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exact import exact_mean
from in_process import run_main
from loopback_openai import LoopbackOpenAI
from opencompass_e2e import ScriptedModel, read_result, run_opencompass, tiny_livemathbench, write_livemathbench

pytestmark = pytest.mark.e2e

MODEL = "strong_t0-7"
#: Right answers of 8 per question (the eight questions of ``tiny_livemathbench``).
COUNTS = [8, 7, 5, 0, 4, 3, 2, 6]
N = 8
KS = (4, 8)
#: OpenCompass's own taus, and some it never prints.
OPENCOMPASS_TAUS = ("0.0", "0.25", "0.5", "0.75", "1.0")
OTHER_TAUS = ("0.4", "0.6", "0.9")
DATASETS = ("oc_livemath", "oc_mathverify")


def own_evaluators_config(model_url: str) -> str:
    """The model at T=0.7, n=8, k=[4, 8] on two datasets judged by OpenCompass's own evaluators (no gpassk one)."""
    return f"""
from mmengine.config import read_base

from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset
from gpassk_opencompass.plugin.models import OfflineOpenAISDK
from opencompass.datasets.livemathbench import LiveMathBenchEvaluator
from opencompass.evaluator.math_evaluator import MATHVerifyEvaluator
from opencompass.partitioners import NaivePartitioner
from opencompass.runners import LocalRunner
from opencompass.tasks import OpenICLEvalTask

with read_base():
    from gpassk_opencompass.plugin.configs.livemathbench_common import livemathbench_infer_cfg, livemathbench_reader_cfg

models = [dict(type=OfflineOpenAISDK, openai_api_base={model_url!r}, key='EMPTY', query_per_second=1000,
               abbr={MODEL!r}, path='strong', temperature=0.7, max_out_len=256, max_seq_len=4096, batch_size=16,
               retry=2, run_cfg=dict(num_gpus=0))]
dataset_base = dict(type=LiveMathBenchDataset, path='opencompass/LiveMathBench', version='202412',
                    dataset_splits=['CNMO', 'AMC'], dataset_languages=['en', 'cn'], n={N}, k={list(KS)},
                    reader_cfg=livemathbench_reader_cfg, infer_cfg=livemathbench_infer_cfg)
# LiveMathBenchEvaluator without a judge URL judges by rule; the prompts differ (cot) so the model counts apart.
datasets = [
    dict(dataset_base, abbr='oc_livemath', cot=True,
         eval_cfg=dict(evaluator=dict(type=LiveMathBenchEvaluator, model_name='', url=[]))),
    dict(dataset_base, abbr='oc_mathverify', cot=False, eval_cfg=dict(evaluator=dict(type=MATHVerifyEvaluator))),
]
eval = dict(partitioner=dict(type=NaivePartitioner, n=8),
            runner=dict(type=LocalRunner, max_num_workers=2, task=dict(type=OpenICLEvalTask)))
"""


@pytest.fixture(scope="module")
def own_run(tmp_path_factory) -> Path:
    """The finished run directory (``opencompass own_evaluators.py -w outputs --dump-eval-details``)."""
    tmp = tmp_path_factory.mktemp("opencompass_own_evaluators")
    questions = tiny_livemathbench({"strong": COUNTS})
    data_root = write_livemathbench(tmp / "data_root", questions)
    workdir = tmp / "outputs"
    workdir.mkdir()
    with LoopbackOpenAI(ScriptedModel(questions, N), model_name="strong") as model:
        config = tmp / "own_evaluators.py"
        config.write_text(own_evaluators_config(model.url))
        run_dir = run_opencompass(config, workdir, data_root, "--dump-eval-details", "--max-num-workers", "2")
    for dataset in DATASETS:
        read_result(run_dir, MODEL, dataset)  # with the task logs in the failure if OpenCompass wrote none
    return run_dir


def scored(capsys, path: Path, output: Path, *taus: str) -> dict:
    done = run_main(
        capsys, "score", str(path), "--judge", "source", "--k", *map(str, KS), "--thresholds", *taus,
        "--no-cache", "--output", str(output),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text())


@pytest.mark.parametrize("dataset", DATASETS)
def test_opencompass_verdicts_give_exact_gpassk_at_any_tau(own_run, dataset, tmp_path, capsys):
    """--judge source on the predictions: every G-Pass@k_tau (0.4, 0.6, 0.9 too) and mG-Pass@k exactly."""
    results = scored(capsys, own_run / "predictions" / MODEL / f"{dataset}_0.json", tmp_path / "r.json",
                     *OPENCOMPASS_TAUS, *OTHER_TAUS)  # fmt: skip
    assert results["gpassk"]["judge"] == "source:opencompass" and results["gpassk"]["n"] == N
    assert results["gpassk"]["questions"] == len(COUNTS) and results["unresolved"] == 0
    for k in KS:
        for tau in OPENCOMPASS_TAUS + OTHER_TAUS:
            assert results[f"G-Pass@{k}_{float(tau)}"] == pytest.approx(exact_mean(COUNTS, N, k, tau), abs=1e-9)
        assert results[f"mG-Pass@{k}"] == pytest.approx(exact_mean(COUNTS, N, k), abs=1e-9)
    intervals = results["gpassk"]["uncertainty"]
    assert intervals, "the results carry intervals"
    counted = sorted(sum(verdict["correct"] for verdict in detail["verdicts"]) for detail in results["details"])
    assert counted == sorted(COUNTS)


@pytest.mark.parametrize("dataset", DATASETS)
def test_at_opencompass_taus_the_figures_are_what_opencompass_wrote(own_run, dataset, tmp_path, capsys):
    """Given the results file instead: at tau in {0, .25, .5, .75, 1} equal to OpenCompass's own G-Pass@k.

    OpenCompass computes m = ceil(k * tau) in floats; its taus are exact binary fractions, so its ceil is
    right at every k and the figures agree to float precision.
    """
    theirs = read_result(own_run, MODEL, dataset)
    ours = scored(capsys, own_run / "results" / MODEL / f"{dataset}.json", tmp_path / "r.json", *OPENCOMPASS_TAUS)
    keys = [f"G-Pass@{k}_{tau}" for k in KS for tau in OPENCOMPASS_TAUS] + [f"mG-Pass@{k}" for k in KS]
    for key in keys:
        assert ours[key] == pytest.approx(theirs[key], abs=1e-9), key
    assert ours[f"accuracy ({N} runs average)"] == pytest.approx(theirs[f"accuracy ({N} runs average)"], abs=1e-9)


def test_rejudge_with_the_source_judge_points_to_gpassk_score(own_run, capsys):
    """gpassk rejudge --judge source judged nothing (64 unresolved); now one line naming the command that works."""
    done = run_main(capsys, "rejudge", str(own_run), "--judge", "source", "--output", str(own_run) + "_rejudged")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"gpassk score {own_run / 'predictions' / MODEL}" in done.stderr and "--judge source" in done.stderr
    assert not Path(str(own_run) + "_rejudged").exists()
