"""Run ``save_opencompass_configs.py`` as a user would (a subprocess) and read its manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def generate_configs(template: str, output_dir: Path, *assignments: str) -> list[dict]:
    """Generate ``opencompass_config_templates/<template>`` with ``--set assignments``; return the manifest's runs."""
    command = [sys.executable, str(REPO / "save_opencompass_configs.py"), "-tc",
               str(REPO / "opencompass_config_templates" / template), "--output_dir", str(output_dir)]
    if assignments:
        command += ["--set", *assignments]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return json.loads((Path(output_dir) / "manifest.json").read_text(encoding="utf-8"))["runs"]
