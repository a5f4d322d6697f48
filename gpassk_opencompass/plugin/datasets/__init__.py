"""OpenCompass dataset loaders for the leaderboard benchmarks (glue: imports OpenCompass).

Configs reference them as ``type=ImportedClass``; none is registered in
OpenCompass's ``LOAD_DATASET`` (OpenCompass already registers a
``LiveMathBenchDataset`` of its own).
"""

from gpassk_opencompass.plugin.datasets.aime import AIMEDataset
from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset
from gpassk_opencompass.plugin.datasets.math500 import Math500Level5Dataset

__all__ = ["AIMEDataset", "LiveMathBenchDataset", "Math500Level5Dataset"]
