"""One sampling seed per generation, so that n replicas of a prompt differ.

OpenCompass hands lmdeploy one ``GenerationConfig`` for a whole batch, and
lmdeploy applies its ``random_seed`` to every request of the batch.  The n
replicas of a question are identical prompts, so replicas that land in the
same batch with the same seed sample the same tokens: every G-Pass@k then
collapses to plain accuracy.  :func:`replica_seeds` derives a distinct seed
for every prompt of every batch from one base seed (the ``rs`` of the model
abbr), so a run stays reproducible while no two generations share a seed.

The derivation is ``splitmix64(base + ((round - 1) << 63) + (batch << 32) + position)``: the
counter is distinct for every (round, batch, position) with position < 2**32 and batch < 2**31, and
splitmix64's finaliser is a bijection on 64-bit integers, so the seeds are distinct too. ``round`` is the
round of a curtailed run (docs/grid.md, "Curtailed grids"): its second round draws the questions that go on
with seeds no generation of its first round had.

>>> replica_seeds(42, batch=0, count=3) == replica_seeds(42, batch=0, count=3)
True
>>> len(set(replica_seeds(42, batch=0, count=1000) + replica_seeds(42, batch=1, count=1000)))
2000
>>> set(replica_seeds(42, batch=0, count=1000)) & set(replica_seeds(42, batch=0, count=1000, round=2))
set()
"""

from __future__ import annotations

_MASK = (1 << 64) - 1


def splitmix64(value: int) -> int:
    """The splitmix64 output function: a bijection on 64-bit unsigned integers.

    >>> splitmix64(0)
    16294208416658607535
    """
    z = (value + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def replica_seeds(base_seed: int, batch: int, count: int, round: int = 1) -> list[int]:
    """Seeds for the ``count`` prompts of the ``batch``-th generation call.

    Args:
        base_seed: the run's seed (any integer; taken modulo 2**64).
        batch: index of the generation call (0, 1, ...), < 2**31.
        count: number of prompts in the call, < 2**32.
        round: the round of a curtailed run (1 or 2); the counters of the two rounds are ``2**63`` apart, so
            no seed of round 2 is one of round 1 (the same run's seed, every batch).

    Returns:
        ``count`` distinct integers in [0, 2**64).
    """
    if not 0 <= batch < 1 << 31 or not 0 <= count <= 1 << 32:
        raise ValueError(f"batch and count must be in [0, 2**31) and [0, 2**32], got batch={batch}, count={count}")
    if round not in (1, 2):
        raise ValueError(f"round must be 1 or 2, got {round!r}")
    start = (base_seed + ((round - 1) << 63) + (batch << 32)) & _MASK
    return [splitmix64((start + position) & _MASK) for position in range(count)]
