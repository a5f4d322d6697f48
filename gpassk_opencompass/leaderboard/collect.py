"""Read finished OpenCompass runs from disk into :class:`RunResult` s.

Any folder with a ``results/`` folder is a run (``<work_dir>/<timestamp>/results/<model>/<dataset>.json``);
the paths given may be runs, ``-w`` work dirs or any folder above them. The generator's ``manifest.json`` is
matched by exact ``(model_abbr, dataset_abbr)``: the ``--manifest`` files only, else every ``manifest.json``
under the paths, else the one beside the config a ``gpassk grid run`` launch log names; runs it lists without
results are :class:`MissingRun` s. A bad run is a :class:`Notice`, never an exception; only a path that does not
exist or paths without any results raise ``InputError``. See docs/leaderboard.md, "Inputs".
"""

from __future__ import annotations

import hashlib
import os
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from gpassk_opencompass.console import progress
from gpassk_opencompass.errors import InputError, clause
from gpassk_opencompass.files import (
    UnreadableFile,
    UnreadableJSON,
    file_identity,
    find_files,
    load_json_text,
    open_regular,
    read_bytes_bounded,
    read_json_file,
)
from gpassk_opencompass.leaderboard.identify import UnidentifiedRun, identify_run
from gpassk_opencompass.leaderboard.records import Collection, MissingRun, Notice, RunResult, run_id
from gpassk_opencompass.plugin.runs import (
    UnreadableConfig,
    find_entry,
    load_saved_config,
    saved_config_paths,
)
from gpassk_opencompass.scoring.results_io import MAX_RESULTS_BYTES

MANIFEST_NAME = "manifest.json"
#: ``gpassk grid run`` logs each launch to ``<run>/gpassk_launch_<timestamp>.log``, first line ``# <command>``.
LAUNCH_LOG_GLOB = "gpassk_launch_*.log"

ManifestIndex = Mapping[tuple[str, str], Mapping]
#: A data file a saved config names is digested up to this size (a benchmark's data are megabytes).
MAX_DATA_DIGEST_BYTES = 1 << 30


def collect_runs(paths: Sequence[Path | str], manifests: Sequence[Path | str] = ()) -> Collection:
    """Read every results file under ``paths``.

    Args:
        paths: OpenCompass work dirs, single ``outputs/<ts>`` runs, or folders of them.
        manifests: generator ``manifest.json`` files to use besides those found under ``paths``.

    Returns:
        The identified runs (in path order) and a notice for every file skipped
        or doubtful.

    Raises:
        InputError: a path does not exist, a manifest given in ``manifests`` is
            unreadable, or no results file exists under any of ``paths``.
    """
    roots = [Path(path) for path in paths]
    for root in roots:
        if not root.is_dir():
            raise InputError(
                f"{str(root)!r} is not a directory; expected an OpenCompass work dir "
                "(the -w folder or one of its <timestamp> runs)"
            )
    notices: list[Notice] = []
    given = [Path(path) for path in manifests]
    origins: dict[tuple[str, str], Path] = {}  # which manifest each entry came from
    manifest_index = _index_manifests(given, notices, strict=True, origins=origins)
    run_dirs: dict[Path, Path] = {}  # resolved -> as first found; overlapping OUTPUTS read each run once
    found: dict[Path, Path] = {}  # manifests found by looking around, resolved -> as found
    for root in roots:
        runs_here, manifests_here = _discover(root)
        if not runs_here:
            notices.append(Notice(f"no results/ folder under {root}", root))
        for run_dir in runs_here:
            if (first := run_dirs.setdefault(run_dir.resolve(), run_dir)) != run_dir:  # a `latest` symlink: normal
                notices.append(Notice(f"{run_dir} and {first} are one run folder under two names; read once", run_dir))
        for manifest in manifests_here:
            found.setdefault(manifest.resolve(), manifest)
    if not run_dirs:
        raise InputError(
            f"no OpenCompass results under {', '.join(map(str, roots))}; expected "
            "<work_dir>/<timestamp>/results/<model_abbr>/<dataset_abbr>.json"
        )
    if not given:
        for manifest in launched_from_manifests(run_dirs.values(), notices):
            found.setdefault(manifest.resolve(), manifest)
        manifest_index = _index_manifests(found.values(), notices, strict=False, origins=origins)
    used = tuple(given) if given else tuple(found.values())
    runs: list[RunResult] = []
    seen: set[tuple[str, str]] = set()
    read: dict[tuple[int, int], Path] = {}  # each results file read once, by what it is (a hard link is one file)
    for run_dir in progress(run_dirs.values(), desc="reading runs", unit="run", leave=False):
        seen.update((path.parent.name, path.stem) for path in _results_files(run_dir))
        runs += _read_run_dir(run_dir, manifest_index, notices, read)
    missing = tuple(_missing_run(entry, origins[key]) for key, entry in manifest_index.items() if key not in seen)
    inputs = [*given, *found.values()]
    for run_dir in run_dirs.values():
        inputs += [*_results_files(run_dir), *saved_config_paths(run_dir), *find_files(run_dir, LAUNCH_LOG_GLOB)]
    return Collection(runs=tuple(runs), notices=tuple(notices), manifests=used, missing=missing, inputs=tuple(inputs))


def launched_from_manifests(run_dirs: Iterable[Path], notices: list[Notice]) -> list[Path]:
    """The ``manifest.json`` beside each config the runs were launched from, per their launch logs.

    A launch log names its config in its first line (``# opencompass CONFIG -w …``,
    see :mod:`gpassk_opencompass.grid.launch`); a relative config path is taken
    relative to the current folder.  A config folder without a manifest is a notice.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     run = Path(tmp, "work", "m@d", "20250101_120000")
    ...     run.mkdir(parents=True)
    ...     configs = Path(tmp, "configs")
    ...     configs.mkdir()
    ...     _ = (configs / "manifest.json").write_text('{"runs": []}')
    ...     _ = (run / "gpassk_launch_20250101_120000.log").write_text(
    ...         f"# opencompass {configs / 'm@d.py'} -w work/m@d -r 20250101_120000\\n# start\\n")
    ...     launched_from_manifests([run], []) == [configs / "manifest.json"]
    True
    """
    manifests: dict[Path, Path] = {}
    absent: set[Path] = set()
    for run_dir in run_dirs:
        for log in find_files(run_dir, LAUNCH_LOG_GLOB):
            config = launch_log_config(log)
            if config is None:
                continue
            manifest = config.parent / MANIFEST_NAME
            if manifest.is_file():
                manifests.setdefault(manifest.resolve(), manifest)
            elif config.parent not in absent:
                absent.add(config.parent)
                notices.append(
                    Notice(
                        f"{log} says the run was launched from {config}, but {manifest} does not exist "
                        "(from the current folder); pass the generator's manifest with --manifest",
                        log,
                    )
                )
    return list(manifests.values())


def launch_log_config(log: Path) -> Path | None:
    """The config a ``gpassk grid run`` launch log names in its first line, or ``None``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log = Path(tmp, "gpassk_launch_20250101_120000.log")
    ...     _ = log.write_text("# opencompass 'my configs/m@d.py' -w out/m@d -r 20250101_120000\\n")
    ...     launch_log_config(log)
    PosixPath('my configs/m@d.py')
    """
    try:
        with open_regular(log) as file:
            first = file.readline(4096).decode("utf-8", errors="replace")
    except (OSError, UnreadableFile):
        return None
    if not first.startswith("# "):
        return None
    try:
        words = shlex.split(first[2:])
    except ValueError:
        return None
    configs = [word for word in words[1:] if word.endswith(".py") and not word.startswith("-")]
    return Path(configs[0]) if configs else None


def _missing_run(entry: Mapping, manifest: Path) -> MissingRun:
    temperature = entry.get("temperature")
    return MissingRun(
        manifest=manifest,
        model_abbr=str(entry["model_abbr"]),
        dataset_abbr=str(entry["dataset_abbr"]),
        display_name=entry.get("display_name") if isinstance(entry.get("display_name"), str) else None,
        benchmark=entry.get("benchmark") if isinstance(entry.get("benchmark"), str) else None,
        temperature=float(temperature)
        if isinstance(temperature, (int, float)) and not isinstance(temperature, bool)
        else None,
        greedy=entry.get("greedy") if isinstance(entry.get("greedy"), bool) else None,
    )


def read_manifest(path: Path) -> ManifestIndex:
    """The ``runs`` of a generator manifest, keyed by ``(model_abbr, dataset_abbr)``.

    Raises:
        InputError: the file is not a manifest (unreadable, or no ``runs`` list).
    """
    try:
        manifest = read_json_file(path)
    except UnreadableJSON as error:
        raise InputError(f"cannot read manifest: {error}") from None
    runs = manifest.get("runs") if isinstance(manifest, Mapping) else None
    if not isinstance(runs, list) or not all(
        isinstance(run, Mapping) and {"model_abbr", "dataset_abbr"} <= run.keys() for run in runs
    ):
        raise InputError(
            f"{str(path)!r} is not a generator manifest: expected "
            '{"runs": [{"model_abbr": ..., "dataset_abbr": ..., ...}, ...]}'
        )
    return {(run["model_abbr"], run["dataset_abbr"]): run for run in runs}


def _discover(root: Path) -> tuple[list[Path], list[Path]]:
    """Run dirs (holding ``results/``) and manifests under ``root``, in sorted order."""
    run_dirs, manifests = [], []
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        if MANIFEST_NAME in files:
            manifests.append(Path(directory) / MANIFEST_NAME)
        if "results" in subdirs:
            run_dirs.append(Path(directory))
            subdirs.clear()  # a run's own folders hold no further runs
    return run_dirs, manifests


def _index_manifests(
    paths: Iterable[Path], notices: list[Notice], strict: bool, origins: dict[tuple[str, str], Path]
) -> dict[tuple[str, str], Mapping]:
    """Manifest runs by ``(model_abbr, dataset_abbr)``; an unreadable manifest raises when
    ``strict`` (given with --manifest), else it is a notice (found by looking around).
    ``origins`` gets the manifest each entry was taken from."""
    index: dict[tuple[str, str], Mapping] = {}
    for path in paths:
        try:
            runs = read_manifest(path)
        except InputError as error:
            if strict:
                raise
            notices.append(Notice(f"ignored {error}", path))
            continue
        for key, run in runs.items():
            if key in index and index[key] != run:
                notices.append(
                    Notice(
                        f"manifests disagree about model {key[0]!r} on dataset {key[1]!r}; using the one in {path}",
                        path,
                    )
                )
            index[key] = run
            origins[key] = path
    return index


def _read_run_dir(
    run_dir: Path, manifests: ManifestIndex, notices: list[Notice], read: dict[tuple[int, int], Path]
) -> list[RunResult]:
    """The runs of ``run_dir``'s results files, less those ``read`` already holds (by identity: ``(st_dev,
    st_ino)``, :func:`~gpassk_opencompass.files.file_identity`), which are one :class:`Notice` naming both names."""
    results_files = [path for path in _results_files(run_dir) if _first_read(path, read, notices)]
    if not results_files:  # nothing to identify (a curtailed run whose rounds are not combined yet): nothing to say
        return []
    configs = _saved_configs(run_dir, notices)
    runs = []
    for results_path in results_files:
        model_abbr, dataset_abbr = results_path.parent.name, results_path.stem
        try:
            data, results = read_results_bytes(results_path)
        except UnreadableJSON as error:
            reason = str(error).removeprefix(f"{results_path}: ").removeprefix("not valid JSON ")
            reason = reason if reason.startswith("(") else f"({reason})"
            notices.append(Notice(f"skipped {results_path}: not readable JSON {reason}", results_path))
            continue
        if not isinstance(results, Mapping):
            notices.append(
                Notice(
                    f"skipped {results_path}: expected a JSON object of metrics, found {type(results).__name__}",
                    results_path,
                )
            )
            continue
        if "error" in results:
            notices.append(Notice(f"skipped {results_path}: the evaluation failed ({results['error']})", results_path))
            continue
        model_cfg, dataset_cfg = _find_in_configs(configs, model_abbr, dataset_abbr)
        manifest = manifests.get((model_abbr, dataset_abbr))
        unmatched = None
        if configs and (model_cfg is None or dataset_cfg is None):
            unmatched = (
                f"no saved config in {run_dir / 'configs'} has both model {model_abbr!r} and dataset {dataset_abbr!r}"
            )
        try:
            run, notes = identify_run(
                results,
                model_cfg,
                dataset_cfg,
                manifest,
                results_path=results_path,
                model_abbr=model_abbr,
                dataset_abbr=dataset_abbr,
                written=results_path.stat().st_mtime,
                run_id=run_id(data),
                digest=file_sha256,
            )
        except UnidentifiedRun as error:
            notices.append(
                Notice(f"skipped {results_path}: {error}" + (f" ({unmatched})" if unmatched else ""), results_path)
            )
            continue
        if unmatched and manifest is None:
            notices.append(Notice(f"{results_path}: {unmatched}", results_path))
        notices += [Notice(f"{results_path}: {note}", results_path) for note in notes]
        runs.append(run)
    return runs


def _first_read(path: Path, read: dict[tuple[int, int], Path], notices: list[Notice]) -> bool:
    """Whether ``path`` is a results file not read yet under another name (noted in ``read``); if read, a notice."""
    try:
        identity = file_identity(path)
    except UnreadableFile:  # said when it is read
        return True
    if (first := read.setdefault(identity, path)) == path:
        return True
    notices.append(Notice(f"{path} and {first} are one results file under two names (a link); read once", path))
    return False


def read_results_bytes(path: Path) -> tuple[bytes, object]:
    """A results file's bytes (read once, bounded: :data:`MAX_RESULTS_BYTES`) and its parsed JSON: the bytes give
    the run its id (:func:`~gpassk_opencompass.leaderboard.records.run_id`), the JSON its identity.

    Raises:
        UnreadableJSON: not a regular file, cannot be read, too big, or not JSON within the limits.
    """
    try:
        data = read_bytes_bounded(path, MAX_RESULTS_BYTES, "one JSON document")
    except UnreadableFile as error:
        raise UnreadableJSON(str(error)) from None
    return data, load_json_text(data, source=str(path), max_bytes=MAX_RESULTS_BYTES)


def file_sha256(path: str, max_bytes: int = MAX_DATA_DIGEST_BYTES) -> str | None:
    """The sha256 (hex) of a data file a saved config names, read through the read door in chunks; ``None`` for a
    folder, a path not readable here, or a file over ``max_bytes`` (a results folder's config may name any path:
    the claim then says it has no digest).

    >>> file_sha256("/nonexistent/data.jsonl") is None, file_sha256(__file__, max_bytes=10) is None
    (True, True)
    """
    digest, read = hashlib.sha256(), 0
    try:
        with open_regular(path) as file:
            for chunk in iter(lambda: file.read(1 << 20), b""):
                read += len(chunk)
                if read > max_bytes:
                    return None
                digest.update(chunk)
    except (OSError, UnreadableFile):
        return None
    return digest.hexdigest()


def _results_files(run_dir: Path) -> Iterator[Path]:
    """``results/<model_abbr>/<dataset_abbr>.json``; deeper files (evaluator caches) are not results."""
    yield from find_files(run_dir / "results", "*/*.json")


def _saved_configs(run_dir: Path, notices: list[Notice]) -> list[Mapping]:
    """The run's dumped configs, newest first (a ``-r`` relaunch adds one)."""
    paths = saved_config_paths(run_dir)
    if not paths:
        notices.append(
            Notice(
                f"no saved config in {run_dir / 'configs'}; runs there are identified "
                "from their results and the manifest only",
                run_dir,
            )
        )
        return []
    configs: list[Mapping] = []
    for path in paths:
        try:
            configs.append(load_saved_config(path))
        except UnreadableConfig as error:  # read as data only: nothing of it ran
            notices.append(
                Notice(f"{clause(error)}; nothing in it was run, and runs there are identified without it", path)
            )
    return configs


def _find_in_configs(
    configs: Sequence[Mapping], model_abbr: str, dataset_abbr: str
) -> tuple[Mapping | None, Mapping | None]:
    """The ``models`` and ``datasets`` entries whose abbrs name a results file.

    An entry without ``abbr`` matches when it is its config's only one (OpenCompass
    then derives the abbr from type and path).
    """
    for config in configs:
        model = find_entry(config.get("models"), model_abbr)
        dataset = find_entry(config.get("datasets"), dataset_abbr)
        if model is not None and dataset is not None:
            return model, dataset
    for config in configs:  # partial matches, newest config first
        model = find_entry(config.get("models"), model_abbr)
        dataset = find_entry(config.get("datasets"), dataset_abbr)
        if model is not None or dataset is not None:
            return model, dataset
    return None, None
