"""Run ``save_opencompass_configs.py`` as a user would (a subprocess) and read its manifest."""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: Each distinct generation, run once per test process: what the generator writes depends only on the
#: template and the assignments (not on the output folder), so a later call with the same ones copies it.
_GENERATED: dict[tuple[str, ...], Path] = {}


def generate_configs(template: str, output_dir: Path, *assignments: str) -> list[dict]:
    """Generate ``opencompass_config_templates/<template>`` with ``--set assignments``; return the manifest's runs."""
    key = (template, *assignments)
    if key not in _GENERATED:
        generated = Path(tempfile.mkdtemp(prefix="gpassk-generated-configs-")) / "configs"
        atexit.register(shutil.rmtree, generated.parent, ignore_errors=True)
        command = [
            sys.executable,
            str(REPO / "save_opencompass_configs.py"),
            "-tc",
            str(REPO / "opencompass_config_templates" / template),
            "--output_dir",
            str(generated),
        ]
        if assignments:
            command += ["--set", *assignments]
        completed = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert completed.returncode == 0, completed.stderr
        _GENERATED[key] = generated
    shutil.copytree(_GENERATED[key], output_dir, copy_function=shutil.copy, dirs_exist_ok=True)  # fresh mtimes
    return json.loads((Path(output_dir) / "manifest.json").read_text(encoding="utf-8"))["runs"]


def stand_in_grid(output_dir: Path, *benchmarks: str, assignments: tuple[str, ...] = ()) -> list[dict]:
    """A sampled self-served grid no server answers (n = 2, k = [1]) over ``benchmarks`` (default AIME2025), for the
    tests whose ``opencompass`` is a stand-in; ``assignments`` are further ``--set`` values."""
    return generate_configs(
        "self_served.py",
        output_dir,
        "model_url=http://127.0.0.1:9/v1",
        f"benchmarks=[{', '.join(benchmarks or ('AIME2025',))}]",
        "greedy=False",
        "n=2",
        "k=[1]",
        *assignments,
    )


#: An ``opencompass`` stand-in that starts a child (as OpenCompass starts its tasks) and sleeps, writing nothing.
SLEEPER = """\
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
time.sleep(300)
"""


def sleeping_opencompass(folder: Path) -> Path:
    """:data:`SLEEPER` as an executable ``opencompass`` in ``folder``."""
    fake = Path(folder) / "opencompass"
    fake.write_text(f"#!{sys.executable}\n{SLEEPER}")
    fake.chmod(0o755)
    return fake
