"""The read door (``gpassk_opencompass.files``): every command refuses what is not a regular file, and every read,
line, document and unpacked byte is bounded before it happens.

Each case runs the real program with a deadline (a hang fails the test): where memory is the point, ``gpassk``
in a subprocess under ``RLIMIT_AS`` of :data:`MEMORY_CAP`, else ``cli.main`` in this process
(``in_process.run_main``, the same code path without a second interpreter's imports). The answer must be one
line and exit 2, never a ``MemoryError`` traceback or a "not readable" that is really an allocation failure. The bombs are built here,
honestly: their metadata tells the truth about what they unpack to.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from gpassk_opencompass import files
from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import archives
from gpassk_opencompass.scoring.readers import inspect as inspect_reader
from in_process import run_main
from leaderboard_workdirs import standard_grid, write_run

#: The address space a capped command gets: enough to read and refuse, far less than the bombs would cost.
MEMORY_CAP = 1536 * 1024**2
INSPECT_LOG = Path(__file__).parent / "data" / "inspect" / "gpassk-math-0.3.200.eval"
REFUSED = "not a regular file; give the file itself"


def gpassk(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real ``gpassk`` command in a subprocess under :data:`MEMORY_CAP`; a hang past ``timeout`` fails."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    return subprocess.run(
        [sys.executable, "-m", "gpassk_opencompass.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
    )


def refused(completed: subprocess.CompletedProcess, *fragments: str) -> str:
    """The one-line refusal (exit 2) of a command; every fragment in it."""
    assert completed.returncode == 2, completed.stderr[-2000:]
    assert "Traceback" not in completed.stderr and "MemoryError" not in completed.stderr, completed.stderr[-2000:]
    last = completed.stderr.strip().splitlines()[-1]
    assert ": error: " in last, completed.stderr[-2000:]
    for fragment in fragments:
        assert fragment in last, last
    return last


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


# ------------------------------------------------------------------ devices, FIFOs, sockets: one line, exit 2


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "/dev/zero", "--k", "1"],
        ["score", "/dev/zero", "--k", "1", "--format", "gpassk"],
        ["score", "/dev/zero", "--k", "1", "--format", "inspect"],
        ["plan", "/dev/zero", "--n", "4"],
        ["agree", "/dev/zero", "absent.json"],
        ["compare", "/dev/zero", "absent.json"],
    ],
)
def test_every_command_refuses_a_device_in_one_line(argv, capsys):
    refused(run_main(capsys, *argv), "/dev/zero is a character device, " + REFUSED)


def test_leaderboard_refuses_a_device_as_its_manifest(tmp_path, capsys):
    write_run(tmp_path / "outputs" / "m@d", "20250101_000000", standard_grid()[:1])
    refused(run_main(capsys, "leaderboard", "--manifest", "/dev/zero", str(tmp_path / "outputs")), "character device")


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "{fifo}", "--k", "1"],
        ["score", "{jsonl}", "--k", "1"],
        ["score", "{fifo}", "--k", "1", "--format", "opencompass"],
        ["agree", "{fifo}", "absent.json"],
        ["compare", "{fifo}", "absent.json"],
        ["plan", "{fifo}", "--n", "4"],
    ],
)
def test_a_fifo_is_refused_not_waited_on(tmp_path, fifo, argv, capsys):
    jsonl = tmp_path / "pipe.jsonl"
    os.mkfifo(jsonl)
    completed = run_main(capsys, *(arg.format(fifo=fifo, jsonl=jsonl) for arg in argv))
    refused(completed, "is a FIFO (named pipe), " + REFUSED)


def test_a_socket_and_a_symlink_to_a_device_are_refused(tmp_path, capsys):
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "s.jsonl"))
    try:
        refused(run_main(capsys, "score", str(tmp_path / "s.jsonl"), "--k", "1"), "s.jsonl is a socket, " + REFUSED)
    finally:
        server.close()
    (tmp_path / "gens.jsonl").symlink_to("/dev/zero")
    refused(run_main(capsys, "score", str(tmp_path / "gens.jsonl"), "--k", "1"), "gens.jsonl is a character device")


def test_a_fifo_named_manifest_json_in_an_outputs_folder_is_skipped_with_a_notice(tmp_path, capsys):
    outputs = tmp_path / "outputs"
    write_run(outputs / "m@d", "20250101_000000", standard_grid()[:1])
    os.mkfifo(outputs / "manifest.json")
    completed = run_main(capsys, "leaderboard", str(outputs))
    assert completed.returncode == 0, completed.stderr
    assert "manifest.json is a FIFO (named pipe), not a regular file" in completed.stderr
    assert "strong-math-7b" in completed.stdout


# ------------------------------------------------------------------ lines and documents bounded before reading


def test_a_2_gb_line_is_refused_after_reading_the_line_limit(tmp_path):
    path = tmp_path / "gens.jsonl"
    with open(path, "wb") as file:  # sparse: 2 GB of zeros, no newline
        file.truncate(2 * 1024**3)
    refused(
        gpassk("score", str(path), "--k", "1", "--format", "gpassk"),
        f"{path} line 1: over the limit of {files.MAX_LINE_BYTES:,} bytes for one line",
    )


def test_a_document_of_millions_of_empty_objects_is_refused_before_parsing(tmp_path):
    path = tmp_path / "results.json"
    path.write_bytes(b"[" + b"{}," * (50 * 1024**2 // 3) + b"{}]")  # 50 MB: 16.7 M dicts, ~2.7 GB parsed
    for command in ("agree", "plan"):
        argv = [command, str(path), *(["absent.json"] if command == "agree" else ["--n", "4"])]
        refused(gpassk(*argv), f"over {files.MAX_JSON_CONTAINERS:,} arrays and objects in one JSON document")


def test_brackets_inside_strings_are_not_containers():
    text = json.dumps({"answers": ["\\frac{1}{2}" * 100, "[[[{{{" * 100, 'he said "{[" \\']})
    files.check_containers(text, "r.json", max_containers=3)  # two real ones; 1,200 in strings
    assert files.load_json_text(text, source="r.json", max_containers=3)["answers"][1].startswith("[[[")
    with pytest.raises(files.UnreadableJSON, match="over 1 arrays and objects"):
        files.load_json_text(text, source="r.json", max_containers=1)


def test_a_gpassk_file_whose_first_line_is_over_a_megabyte_is_recognised(tmp_path, capsys):
    generation = "Let me think. " * 2500 + "The answer is \\boxed{2}."  # ~35 kB: a reasoning model's
    line = {"id": "q1", "question": "1+1?", "answer": "2", "predictions": [generation] * 48}
    path = tmp_path / "gens.jsonl"
    path.write_text(json.dumps(line) + "\n" + json.dumps({**line, "id": "q2"}) + "\n")
    assert path.stat().st_size > 2 * 1024**2
    assert main(["score", str(path), "--k", "4", "--judge", "rule", "--quiet"]) == 0
    assert "mG-Pass@4" in capsys.readouterr().out


# ------------------------------------------------------------------ archives and columnar files: total unpacked size


def _zip(path: Path, members: list[tuple[str, int, bytes, int, int]]) -> Path:
    """A zip written by hand (zipfile cannot write zstd before Python 3.14): ``(name, method, data, crc, size)``."""
    local, central = bytearray(), bytearray()
    for name, method, data, crc, size in members:
        offset, encoded = len(local), name.encode()
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 33, crc, len(data), size, len(encoded), 0)
        local += encoded + data
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 33, crc, len(data), size, len(encoded), 0, 0, 0, 0,
            0, offset,
        )  # fmt: skip
        central += encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(local), 0)
    path.write_bytes(bytes(local + central + end))
    return path


def _inspect_bomb(tmp_path: Path, method: int) -> Path:
    """An inspect ``.eval`` of the real log's header and 35 samples of 63 MB each (each under the 64 MB member
    limit; 2.2 GB in all), a few MB on disk."""
    with zipfile.ZipFile(INSPECT_LOG) as archive:
        header = archive.read("header.json")
        sample = json.loads(archive.read(next(name for name in archive.namelist() if name.startswith("samples/"))))
    filler = b"a" * (63 * 1024**2)
    if method == zipfile.ZIP_DEFLATED:
        compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
        packed = compressor.compress(filler) + compressor.flush(zlib.Z_SYNC_FLUSH)  # a non-final block run

        def pack(head: bytes, tail: bytes) -> bytes:  # raw deflate streams joined: head, the filler, tail
            first, last = zlib.compressobj(1, zlib.DEFLATED, -15), zlib.compressobj(1, zlib.DEFLATED, -15)
            return first.compress(head) + first.flush(zlib.Z_SYNC_FLUSH) + packed + last.compress(tail) + last.flush()
    else:
        import zstandard

        compressor = zstandard.ZstdCompressor(level=1)
        packed = compressor.compress(filler)

        def pack(head: bytes, tail: bytes) -> bytes:  # zstd frames joined
            return compressor.compress(head) + packed + compressor.compress(tail)

    members = [("header.json", zipfile.ZIP_STORED, header, zlib.crc32(header), len(header))]
    for index in range(35):
        text = json.dumps({**sample, "id": f"q{index}", "epoch": 1, "output": {**sample["output"], "completion": "@"}})
        head, tail = (part.encode() for part in text.split("@", 1))
        crc = zlib.crc32(tail, zlib.crc32(filler, zlib.crc32(head)))
        members.append(
            (f"samples/q{index}_epoch_1.json", method, pack(head, tail), crc, len(head) + len(filler) + len(tail))
        )
    return _zip(tmp_path / "bomb.eval", members)


@pytest.mark.e2e
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, 93], ids=["deflate", "zstd"])
def test_an_inspect_log_is_bounded_by_its_total_unpacked_size(tmp_path, method):
    if method == 93:
        pytest.importorskip("zstandard")
    path = _inspect_bomb(tmp_path, method)
    assert path.stat().st_size < 16 * 1024**2
    refused(
        gpassk("score", str(path), "--k", "1"),
        f"{path}: unpacks to 2,",
        f"over the limit of {archives.MAX_UNPACKED_BYTES:,} bytes for one input file",
    )


def test_a_zstd_member_unpacking_past_its_declared_size_is_corrupt_unread(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    with zipfile.ZipFile(INSPECT_LOG) as archive:
        log = json.loads(archive.read("header.json"))
    # A header that states exactly the one member below (1 sample, 1 epoch), so the log is complete on its face.
    log["eval"]["config"]["epochs"], log["results"]["total_samples"] = 1, 1
    log["eval"]["dataset"]["sample_ids"] = ["q1"]
    header = json.dumps(log).encode()
    stream = zstandard.ZstdCompressor(write_content_size=False).compress(b"a" * (32 * 1024**2))
    path = _zip(
        tmp_path / "liar.eval",
        [
            ("header.json", zipfile.ZIP_STORED, header, zlib.crc32(header), len(header)),
            ("samples/q1_epoch_1.json", 93, stream, 0, 1000),  # the header says 1,000 bytes
        ],
    )
    with pytest.raises(InputError, match=r"member samples/q1_epoch_1\.json: corrupt zip member \(unpacks to more "):
        list(inspect_reader.read(path))


def _lighteval_bomb(path: Path) -> Path:
    """A lighteval details file whose generations unpack to 2.25 GB: 36 row groups of 64 rows of 1 MB text,
    zstd-compressed without a dictionary (so the footer's uncompressed sizes count every byte)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = "a" * 1024**2
    rows = [
        {
            "doc": {"query": "1+1?", "choices": ["2"], "gold_index": 0, "id": f"q{index}"},
            "model_response": {"text": [text]},
            "metric": {"avg@n:n=1": 0.0},
        }
        for index in range(64)
    ]
    table = pa.Table.from_pylist(rows)
    with pq.ParquetWriter(path, table.schema, compression="zstd", use_dictionary=False) as writer:
        for _ in range(36):
            writer.write_table(table)
    return path


@pytest.mark.e2e
def test_a_lighteval_parquet_is_bounded_by_its_footers_unpacked_size(tmp_path):
    path = _lighteval_bomb(tmp_path / "details_t|0_2026.parquet")
    assert path.stat().st_size < 16 * 1024**2
    last = refused(gpassk("score", str(path), "--k", "1"), f"{path}: unpacks to 2,", "over the limit")
    assert "not a readable" not in last


def test_an_allocation_failure_is_never_not_readable():
    pyarrow = pytest.importorskip("pyarrow")
    message = str(archives.parquet_unreadable("d.parquet", pyarrow.lib.ArrowMemoryError("malloc of 6 GB failed")))
    assert message.startswith("d.parquet: ran out of memory unpacking it (malloc of 6 GB failed)")
    assert "not a readable" not in message


# ------------------------------------------------------------------ folder scans


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_the_competition_loader_does_not_follow_a_link_to_a_parent_folder(compass_cache, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = compass_cache / "data" / "BeyondAIME"
    (folder / "sub").mkdir(parents=True)
    rows = [{"problem": f"What is {i} + {i}?", "answer": str(2 * i)} for i in range(3)]
    pq.write_table(pa.Table.from_pylist(rows), folder / "test-00000.parquet")
    (folder / "sub" / "up").symlink_to(folder)
    (folder / "sub" / "again").symlink_to(folder)
    completed = run_main(capsys, "data", "check", "--no-progress", "BeyondAIME")  # two links hung it
    row = next(line.split() for line in completed.stdout.splitlines() if line.startswith("BeyondAIME"))
    assert "3" in row and "123" not in row, completed.stdout


def test_a_fifo_found_in_an_output_folder_is_refused_unopened(tmp_path, capsys):
    folder = tmp_path / "lm-eval-out" / "model"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "samples_math_2026.jsonl")
    refused(
        run_main(capsys, "score", str(tmp_path / "lm-eval-out"), "--k", "1", "--format", "lm-eval"),
        "samples_math_2026.jsonl is a FIFO (named pipe), " + REFUSED,
    )
