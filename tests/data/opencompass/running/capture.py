"""Run the real ``opencompass`` on the tiny LiveMathBench (one model, a slow loopback model) and copy the run's
``logs/``, ``predictions/`` and ``results/`` every 0.5 s while it runs: what ``gpassk grid status`` sees of a
running config. How the files next to this script were made (PROVENANCE.md)::

    PYTHONPATH=. python tests/data/opencompass/running/capture.py /tmp/capture
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tests/: the e2e helpers

from loopback_openai import LoopbackOpenAI
from opencompass_e2e import (
    TINY_MODELS,
    ScriptedModel,
    opencompass_cli,
    tiny_livemathbench,
    write_livemathbench,
)

CONFIG = """
from mmengine.config import read_base
from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset
from gpassk_opencompass.plugin.evaluator import GPassKEvaluator
from gpassk_opencompass.plugin.models import OfflineOpenAISDK
with read_base():
    from gpassk_opencompass.plugin.configs.livemathbench_common import livemathbench_infer_cfg, livemathbench_reader_cfg
models = [dict(type=OfflineOpenAISDK, openai_api_base={url!r}, key='EMPTY', query_per_second=1000,
              max_out_len=256, max_seq_len=4096, batch_size=8, retry=2, run_cfg=dict(num_gpus=0),
              abbr='strong_t0-7', path='strong', temperature=0.7)]
datasets = [dict(type=LiveMathBenchDataset, path='opencompass/LiveMathBench', version='202412',
                 dataset_splits=['CNMO', 'AMC'], dataset_languages=['en', 'cn'],
                 reader_cfg=livemathbench_reader_cfg, infer_cfg=livemathbench_infer_cfg,
                 abbr='tiny_rule', cot=True, n=8, k=[4, 8],
                 eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, benchmark='LiveMathBench-202412', judge='rule')))]
"""


def main(tmp: Path) -> None:
    tmp.mkdir(parents=True, exist_ok=True)
    questions = tiny_livemathbench(TINY_MODELS)
    data_root = write_livemathbench(tmp / "data_root", questions)
    workdir, snapshots = tmp / "outputs", tmp / "snapshots"
    workdir.mkdir(exist_ok=True)
    snapshots.mkdir(exist_ok=True)
    with LoopbackOpenAI(ScriptedModel(questions, 8), latency=0.5, model_name="strong") as model:
        config = tmp / "tiny_one.py"
        config.write_text(CONFIG.format(url=model.url))
        env = dict(
            os.environ,
            COMPASS_DATA_CACHE=str(data_root),
            HF_HUB_OFFLINE="1",
            HF_DATASETS_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            OPENAI_API_KEY="EMPTY",
            TIKTOKEN_CACHE_DIR=str(workdir / "no-tiktoken"),
        )
        env.pop("DATASET_SOURCE", None)
        command = [opencompass_cli(), str(config), "-w", str(workdir), "--dump-eval-details"]
        with open(tmp / "stdout.log", "w") as log:
            process = subprocess.Popen(command, cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT)
            count = 0
            while process.poll() is None:
                time.sleep(0.5)
                runs = sorted(path for path in workdir.iterdir() if path.is_dir() and path.name[0].isdigit())
                if runs:
                    for folder in ("logs", "predictions", "results"):
                        if (runs[-1] / folder).exists():
                            shutil.copytree(runs[-1] / folder, snapshots / f"{count:04d}" / folder, dirs_exist_ok=True)
                    count += 1
    print("exit", process.returncode, "snapshots", count)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
