"""inspect_ai logs: one question per sample id, its epochs' completions as the n predictions.

A ``.eval`` log (a zip, one ``samples/<id>_epoch_<n>.json`` per sample and epoch) or a ``.json`` log of
``inspect eval TASK --epochs N``: ``id``, ``input`` -> question, ``target`` -> answer, ``output.completion`` per
epoch -> predictions, the first scorer's ``answer`` -> source_extracted and ``value`` -> source_verdicts (``C``,
``True``, 1 right; ``I``, ``N``, ``False``, 0 wrong; else None; a model-graded score's grader reply, kept in its
``explanation``, is read by the one reader of judge replies instead:
:func:`~gpassk_opencompass.judges.source_replies.read_source_reply`, so a reply without a grade is unresolved where
inspect scores it ``I``), ``stop_reason`` -> finish_reasons. Members are
read one question at a time, each within :data:`MAX_MEMBER_BYTES` and all within
:data:`~gpassk_opencompass.files.archives.MAX_UNPACKED_BYTES`; zstd members need Python 3.14+ or ``zstandard``.
The mapping: docs/scoring.md, "inspect".

>>> verdict("C"), verdict("I"), verdict(1.0), verdict(False), verdict("P"), verdict(0.5)
(True, False, True, False, None, None)
"""

from __future__ import annotations

import importlib
import pathlib
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator

from gpassk_opencompass.errors import InputError, clause
from gpassk_opencompass.files import load_json_text, open_regular, read_head, read_json_file
from gpassk_opencompass.files.archives import open_zip
from gpassk_opencompass.judges.source_replies import read_source_reply
from gpassk_opencompass.scoring.readers._complete import check_complete
from gpassk_opencompass.scoring.readers._folder import gold_answer

NAME = "inspect"
DESCRIPTION = "inspect_ai eval logs (.eval or .json; inspect eval --epochs N gives n samples per question)"

#: The most bytes one member of a ``.eval`` log (one sample with its events) may unpack to.
MAX_MEMBER_BYTES = 64 * 1024 * 1024
#: How much of a ``.json`` file :func:`detect` looks at.
_DETECT_BYTES = 64 * 1024
_SAMPLE_MEMBER = re.compile(r"samples/(.+)_epoch_(\d+)\.json")
_HEADER_MEMBERS = ("header.json", "_journal/start.json")
_JSON_HEAD = re.compile(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,')
_ZIP_ZSTD = 93
_LOCAL_HEADER = 0x04034B50
_TRUE = {"C", "CORRECT", "YES", "TRUE"}
_FALSE = {"I", "INCORRECT", "N", "NO", "FALSE"}


def detect(path: pathlib.Path) -> bool:
    """Whether ``path`` is an inspect_ai log: a ``.eval`` zip with inspect's members, or a ``.json`` log."""
    try:
        if path.suffix == ".eval":
            with open_zip(path, max_bytes=None) as archive:  # the names only: read() checks the sizes
                names = set(archive.namelist())
            return any(name in names for name in _HEADER_MEMBERS)
    except InputError:  # not a regular file, not a zip
        return False
    head = read_head(path, _DETECT_BYTES) if path.suffix == ".json" else None
    return head is not None and bool(_JSON_HEAD.match(head)) and b'"eval"' in head and b'"task"' in head


def read(path: pathlib.Path) -> Iterator[dict]:
    """The questions of an inspect_ai log, one per sample id (in the log's order), with every epoch.

    Raises:
        InputError: not an inspect log, no samples, a sample without a field this needs, an errored sample,
            an epoch twice, or a ``.eval`` member too big or unreadable (one line naming the file and sample).
    """
    if path.is_dir():
        raise InputError(f"{path}: a folder; give one inspect_ai log file (.eval or .json) from it")
    if path.suffix == ".eval" or (read_head(path, 4) or b"").startswith(b"PK\x03\x04"):
        return _read_eval(path)
    return _read_json(path)


#: How inspect's model-graded scorers begin the explanation of a grader reply without a grade (scored ``I``).
_NO_GRADE = re.compile(r"Grade not found in model output(?: after \d+ attempts\. Last output)?:\s?")
#: The ``answer`` of a model-graded score: the grade line it found (``GRADE: C``), not an extracted answer.
_GRADE_ANSWER = re.compile(r"\s*GRADE\s*:", re.IGNORECASE)


def _graded_reply(score: dict) -> str | None:
    """The grader's reply of a model-graded score (``model_graded_qa``, ``model_graded_fact`` and their kind keep it
    in ``explanation``), ``None`` for a score of another kind.

    >>> _graded_reply({"value": "I", "explanation": "Grade not found in model output: They match."})
    'They match.'
    >>> _graded_reply({"value": "C", "answer": "GRADE: C", "explanation": "Same.\\nGRADE: C"}), _graded_reply({"value": "C"})
    ('Same.\\nGRADE: C', None)
    """
    explanation = score.get("explanation")
    if not isinstance(explanation, str):
        return None
    missing = _NO_GRADE.match(explanation)
    if missing:
        return explanation[missing.end() :]
    answer = score.get("answer")
    return explanation if isinstance(answer, str) and _GRADE_ANSWER.match(answer) else None


def verdict(value: object) -> bool | None:
    """inspect's score value as a verdict: True, False, or None (partial, or a value with no verdict)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().upper()
        return True if word in _TRUE else False if word in _FALSE else None
    if isinstance(value, (int, float)):
        return True if value == 1 else False if value == 0 else None
    return None


def _read_json(path: pathlib.Path) -> Iterator[dict]:
    log = read_json_file(path)
    if not isinstance(log, dict) or "eval" not in log:
        raise InputError(f"{path}: not an inspect_ai log (no top-level 'eval'); give the .json that inspect eval wrote")
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(
            f"{path}: an inspect_ai log without samples; run inspect eval without --no-log-samples and give its log"
        )
    _check_finished(path, log)
    groups: dict[str, list[tuple[str, object]]] = {}
    for index, sample in enumerate(samples):
        where = f"{path} sample {index + 1}"
        key = str(sample.get("id")) if isinstance(sample, dict) else f"#{index}"
        groups.setdefault(key, []).append((where, sample))
    questions = [_question(entries) for entries in groups.values()]  # the log is in memory already
    epochs = {key: {_object(sample)["epoch"] for _, sample in entries} for key, entries in groups.items()}
    _check_all_epochs(path, log, epochs, lambda sample, epoch: f"epoch {epoch} of sample {sample!r}")
    yield from questions


def _read_eval(path: pathlib.Path) -> Iterator[dict]:
    with open_zip(path) as archive:
        names = list(dict.fromkeys(archive.namelist()))  # a member appended again: the last copy wins
        if not any(name in names for name in _HEADER_MEMBERS):
            raise InputError(
                f"{path}: a zip without inspect_ai's header.json or _journal/start.json; give a log inspect eval wrote"
            )
        header = _member(archive, path, "header.json") if "header.json" in names else {}
        _check_finished(path, header)
        groups: dict[str, list[str]] = {}
        epochs: dict[str, set[int]] = {}
        for name in names:
            match = _SAMPLE_MEMBER.fullmatch(name)
            if match:
                groups.setdefault(match.group(1), []).append(name)
                epochs.setdefault(match.group(1), set()).add(int(match.group(2)))
        if not groups:
            raise InputError(
                f"{path}: an inspect_ai log without samples; run inspect eval without --no-log-samples and give its log"
            )
        _check_all_epochs(path, header, epochs, lambda sample, epoch: f"member samples/{sample}_epoch_{epoch}.json")
        for members in groups.values():
            yield _question([(f"{path} member {name}", _member(archive, path, name)) for name in members])


def _check_finished(path: pathlib.Path, header: object) -> None:
    """Refuse a log whose run did not finish (status ``started``, ``error``, ``cancelled``): epochs may be missing."""
    status = header.get("status", "started") if isinstance(header, dict) else None
    if status != "success":
        error = header.get("error") if isinstance(header, dict) else None
        why = f" ({_reason(error)})" if error else ""
        raise InputError(
            f"{path}: the inspect run's status is {status!r}{why}, so epochs may be missing; "
            f"finish it with `inspect eval-retry {path}` and give the new log"
        )


def _check_all_epochs(
    path: pathlib.Path, header: object, held: dict[str, set[int]], name: Callable[[str, int], str]
) -> None:
    """Every sample's epochs 1..N and the sample count, as the log's header states them (``eval.config.epochs``,
    ``results.total_samples``, ``eval.dataset.sample_ids``): a missing member or sample is refused in one line."""
    log = header if isinstance(header, dict) else {}
    config = _object(_object(log.get("eval")).get("config"))
    epochs, total = config.get("epochs"), _object(log.get("results")).get("total_samples")
    epochs = epochs if type(epochs) is int and epochs >= 1 else None
    total = total if type(total) is int else None
    sample_ids = _object(_object(log.get("eval")).get("dataset")).get("sample_ids")
    ids = None
    if isinstance(sample_ids, list) and epochs is not None and len(sample_ids) * epochs == total:
        ids = [str(sample) for sample in sample_ids]
    stated = [f"epochs: {epochs}"] * (epochs is not None) + [f"total_samples: {total}"] * (total is not None)
    check_complete(
        str(path),
        held,
        repeats=None if epochs is None else range(1, epochs + 1),
        first=1,
        ids=ids,
        total=total,
        says=f"the header says {', '.join(stated)}" if stated else "inspect runs every sample in every epoch",
        name=name,
        fix="give the log inspect eval wrote, whole",
    )


def _object(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _member(archive: zipfile.ZipFile, path: pathlib.Path, name: str) -> object:
    source = f"{path} member {name}"
    info = archive.getinfo(name)
    if info.file_size > MAX_MEMBER_BYTES or info.compress_size > MAX_MEMBER_BYTES:
        raise InputError(_too_big(source))
    try:
        if info.compress_type == _ZIP_ZSTD and not hasattr(zipfile, "ZIP_ZSTANDARD"):  # zipfile reads zstd from 3.14
            data = _read_zstd(path, info, source)
        else:
            with archive.open(info) as member:
                data = member.read(MAX_MEMBER_BYTES + 1)  # the header's size may lie: read no more than the limit
    except NotImplementedError:
        raise InputError(
            f"{source}: compressed with zip method {info.compress_type}, which this Python's zipfile cannot read; "
            f"convert the log with `inspect log convert {path} --to json --output-dir DIR` and give the .json"
        ) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, struct.error) as error:
        raise InputError(f"{source}: corrupt zip member ({clause(error)}); give an intact log") from None
    if len(data) > MAX_MEMBER_BYTES:
        raise InputError(_too_big(source))
    return load_json_text(data, source=source)


def _too_big(source: str) -> str:
    return f"{source}: over the limit of {MAX_MEMBER_BYTES:,} bytes for one sample; is this the right file?"


def _read_zstd(path: pathlib.Path, info: zipfile.ZipInfo, source: str) -> bytes:
    """A zstd member (what inspect_ai writes since about 0.3.240) before Python 3.14: with ``zstandard``, bounded."""
    try:
        zstandard = importlib.import_module("zstandard")  # installed with inspect_ai
    except ImportError:
        raise InputError(
            f"{source}: zstd-compressed (recent inspect_ai versions write .eval logs so), which Python before 3.14 "
            f"reads only with the zstandard package: `pip install zstandard`, or convert the log with "
            f"`inspect log convert {path} --to json --output-dir DIR` and give the .json"
        ) from None
    with open_regular(path) as file:
        file.seek(info.header_offset)
        signature, *_, name_length, extra_length = struct.unpack("<IHHHHHIIIHH", file.read(30))
        if signature != _LOCAL_HEADER:
            raise zipfile.BadZipFile(f"no local file header at offset {info.header_offset}")
        file.seek(name_length + extra_length, 1)
        compressed = file.read(info.compress_size)
    try:
        declared = zstandard.frame_content_size(compressed)  # -1: the frame does not say
    except zstandard.ZstdError as error:
        raise zipfile.BadZipFile(f"zstd: {error}") from None
    if declared > info.file_size:
        raise zipfile.BadZipFile(f"a zstd frame of {declared:,} bytes in a member of {info.file_size:,}")
    stream = zstandard.ZstdDecompressor().stream_reader(compressed, read_across_frames=True)
    chunks, size = [], 0
    try:  # a stream bound too: at most the member's declared size, as zipfile reads its own methods
        while size <= info.file_size and (chunk := stream.read(min(1 << 20, info.file_size + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    except zstandard.ZstdError as error:
        raise zipfile.BadZipFile(f"zstd: {error}") from None
    if size > info.file_size:
        raise zipfile.BadZipFile(f"unpacks to more than the {info.file_size:,} bytes its header says")
    data = b"".join(chunks)
    if zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile("CRC-32 mismatch")
    return data


def _question(entries: Iterable[tuple[str, object]]) -> dict:
    """One question from the samples of one id, each ``(where, sample)``; the epochs sorted."""
    epochs: dict[int, tuple[str, dict]] = {}
    for where, sample in entries:
        if not isinstance(sample, dict):
            raise InputError(f"{where}: a sample must be a JSON object, got {type(sample).__name__}")
        where = f"{where} (id {sample.get('id')!r}, epoch {sample.get('epoch')!r})"
        epoch = _field(sample, "epoch", where)
        if type(epoch) is not int or epoch < 1:
            raise InputError(f"{where}: 'epoch' must be a positive integer, got {epoch!r}")
        if epoch in epochs:
            raise InputError(f"{where}: epoch {epoch} of this sample appears twice; give the log inspect eval wrote")
        epochs[epoch] = (where, sample)
    ordered = [epochs[epoch] for epoch in sorted(epochs)]
    identity: tuple[str, str, str] | None = None
    predictions: list[str] = []
    extracted: list[str | None] = []
    verdicts: list[bool | None] = []
    stops: list[str | None] = []
    for where, sample in ordered:
        text, target = (
            _input_text(_field(sample, "input", where), where),
            gold_answer(_field(sample, "target", where), where, "'target'", "give each sample a single target"),
        )
        this = (str(_field(sample, "id", where)), text, target)
        if identity not in (None, this):
            raise InputError(
                f"{where}: its id, input or target differs from its first epoch's; give the log inspect wrote"
            )
        identity = this
        if sample.get("error"):
            raise InputError(
                f"{where}: the sample ended in an error ({_reason(sample['error'])}); "
                "re-run it (inspect eval-retry) before scoring"
            )
        predictions.append(_completion(_field(sample, "output", where), where))
        stops.append(stop_reason(sample["output"]))
        score = _first_score(sample.get("scores"), where)
        answer = score.get("answer")
        graded = _graded_reply(score)
        extracted.append(answer if isinstance(answer, str) and graded is None else None)
        if graded is not None:  # a model-graded score: its grader's reply, read as every judge reply is read
            verdicts.append(read_source_reply("inspect", graded)[0])
        else:
            verdicts.append(verdict(score.get("value")) if score else None)
    assert identity is not None  # every group holds at least one sample
    question: dict = dict(zip(("id", "question", "answer"), identity), predictions=predictions)
    if any(answer is not None for answer in extracted):
        question["source_extracted"] = extracted
    if any(sample.get("scores") for _, sample in ordered):
        question["source_verdicts"] = verdicts
    if any(stop is not None for stop in stops):
        question["finish_reasons"] = stops
    return question


def stop_reason(output: object) -> str | None:
    """Why the model stopped, as inspect recorded it: ``output.stop_reason``, else its first choice's.

    >>> stop_reason({"choices": [{"stop_reason": "max_tokens"}]}), stop_reason({"stop_reason": "stop"})
    ('max_tokens', 'stop')
    >>> stop_reason({"completion": "5"}) is None
    True
    """
    if not isinstance(output, dict):
        return None
    reason = output.get("stop_reason")
    choices = output.get("choices")
    if reason is None and isinstance(choices, list) and choices and isinstance(choices[0], dict):
        reason = choices[0].get("stop_reason")
    return reason if isinstance(reason, str) else None


def _field(sample: dict, name: str, where: str) -> object:
    if name not in sample or sample[name] is None:
        raise InputError(f"{where}: no '{name}' field; give the log inspect eval wrote (with samples)")
    return sample[name]


def _input_text(value: object, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(message, dict) for message in value):
        return "\n\n".join(content_text(message.get("content")) for message in value)
    raise InputError(f"{where}: 'input' must be a string or a list of chat messages, got {type(value).__name__}")


def content_text(content: object) -> str:
    """The text of a chat message's ``content``: the string, or its text parts joined (inspect_ai and EvalScope)."""
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    return content if isinstance(content, str) else ""


def _completion(output: object, where: str) -> str:
    completion = output.get("completion") if isinstance(output, dict) else None
    if not isinstance(completion, str):
        raise InputError(f"{where}: 'output.completion' must be the model's text, got {completion!r:.60}")
    return completion


def _first_score(scores: object, where: str) -> dict:
    if scores is None:
        return {}
    if not isinstance(scores, dict):
        raise InputError(f"{where}: 'scores' must map scorer names to scores, got {type(scores).__name__}")
    first: object = next(iter(scores.values()), {})
    if not isinstance(first, dict):
        raise InputError(f"{where}: a score must be an object with 'value' (and 'answer'), got {first!r:.60}")
    return first


def _reason(error: object) -> str:
    """inspect's error (``{"message", "traceback", ...}`` or a string) as a short clause."""
    return clause(error.get("message", error) if isinstance(error, dict) else error)[:200]
