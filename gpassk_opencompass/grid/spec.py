"""The run grid: a template's plain variables -> one run per config file.

:func:`parse_template` validates a template's plain variables into a frozen :class:`GridTemplate`; :func:`expand`
gives one :class:`RunSpec` per (model, temperature, benchmark), plus one greedy run per (model, benchmark) when
``greedy = True``. Pure: writing the configs is :mod:`gpassk_opencompass.grid.writer`. The names (model abbr,
dataset abbr, file) follow one convention, :mod:`gpassk_opencompass.grid.names` (docs/generator.md).

A name never claims a setting that was not applied.  API backends send each
sampling parameter under the name the serving software reads, chosen by the
template's ``server`` (or a model's ``server=``), and a parameter the server
has no name for is refused here, never dropped:

============  ===========  =====  =====  ======================  ==============================
server        temperature  top_p  top_k  repetition_penalty      software
============  ===========  =====  =====  ======================  ==============================
``vllm``      yes          yes    top_k  repetition_penalty      vLLM ``vllm serve``
``sglang``    yes          yes    top_k  repetition_penalty      SGLang ``sglang.launch_server``
``lmdeploy``  yes          yes    top_k  repetition_penalty      ``lmdeploy serve api_server``
``llama.cpp`` yes          yes    top_k  **repeat_penalty**      ``llama-server``
``ollama``    yes          yes    --     --                      Ollama's ``/v1`` endpoint
``openai``    yes          yes    --     --                      the OpenAI API (and providers
                                                                 that take only its parameters)
``None``      yes          yes    --     --                      unknown: standard names only
============  ===========  =====  =====  ======================  ==============================

``temperature`` and ``top_p`` are standard chat-completions fields; ``top_k``
and the repetition penalty are extra body fields.  OpenCompass sends no
temperature to models whose name contains one of
:data:`OPENCOMPASS_REASONING_MODELS` (``o1``, ``o3``, ...), so for those only
``temperature 1.0`` (the server's default) without greedy runs is accepted.

"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    FiniteFloat,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpassk_opencompass import __version__, defaults
from gpassk_opencompass.catalog import get_benchmark
from gpassk_opencompass.checks import did_you_mean, question_range
from gpassk_opencompass.contracts import Contract
from gpassk_opencompass.curtailed import DEFAULT_RULE, RULES, Curtailed
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.grid.names import config_file_name, dataset_abbr, model_abbr, round_abbr, safe_name
from gpassk_opencompass.judges.kinds import AUTO, KINDS
from gpassk_opencompass.judges.prompts import DEFAULT_JUDGE_PROMPT, PROTOCOLS

BACKENDS = {
    "turbomind": "lmdeploy TurboMind inside the OpenCompass task (GPUs)",
    "openai-api": "a hosted OpenAI-compatible API (OpenCompass's OpenAISDK)",
    "openai-local": "a model you serve behind an OpenAI-compatible URL (OfflineOpenAISDK, no downloads)",
}
#: The judges a template may name: ``auto`` and the built-in kinds, from the one registry of judge names.
JUDGES = (AUTO, *KINDS)
#: Config files one grid may produce at most.
MAX_RUNS = 10_000
#: Substrings of a model name for which OpenCompass's ``OpenAISDK`` sends no temperature
#: (``opencompass.models.openai_api.OAI_REASONING_MODEL_LIST``; a test keeps them equal).
OPENCOMPASS_REASONING_MODELS = ("o1", "o3", "o4", "gpt-5")


@dataclass(frozen=True)
class ServerParameters:
    """How one OpenAI-compatible server takes the sampling parameters beyond the standard ones.

    Attributes:
        software: what the server is (for messages and docs).
        top_k: request-body name of top-k sampling, ``None`` if the server has none.
        repetition_penalty: request-body name of the repetition penalty, ``None`` if none.
    """

    software: str
    top_k: str | None
    repetition_penalty: str | None

    def body_name(self, parameter: str) -> str | None:
        """The request-body name of ``parameter`` (``'top_k'`` or ``'repetition_penalty'``).

        >>> SERVERS["llama.cpp"].body_name("repetition_penalty")
        'repeat_penalty'
        """
        return getattr(self, parameter)


#: The known servers (see the module docstring's table); ``None`` = unknown, standard names only.
SERVERS = {
    "vllm": ServerParameters("vLLM", top_k="top_k", repetition_penalty="repetition_penalty"),
    "sglang": ServerParameters("SGLang", top_k="top_k", repetition_penalty="repetition_penalty"),
    "lmdeploy": ServerParameters("lmdeploy api_server", top_k="top_k", repetition_penalty="repetition_penalty"),
    "llama.cpp": ServerParameters("llama.cpp llama-server", top_k="top_k", repetition_penalty="repeat_penalty"),
    "ollama": ServerParameters("Ollama's OpenAI-compatible endpoint", top_k=None, repetition_penalty=None),
    "openai": ServerParameters("the OpenAI API", top_k=None, repetition_penalty=None),
}
_UNKNOWN_SERVER = ServerParameters("an unknown server", top_k=None, repetition_penalty=None)
#: Unicode categories refused in a value written into a config: control (C0, DEL, C1), format
#: (bidi overrides, zero-width), surrogates, and the line and paragraph separators U+2028/U+2029.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


@dataclass(frozen=True)
class RunSpec:
    """One generated config file: one model at one setting on one benchmark."""

    model: ModelEntry
    benchmark: str
    greedy: bool
    temperature: float
    top_p: float | None
    top_k: int | None
    repetition_penalty: float | None
    seed: int | None
    max_out_len: int
    k: tuple[int, ...]
    n: int
    model_abbr: str
    dataset_abbr: str
    file: str
    test_range: str | None = None
    curtail: Curtailed | None = None

    @property
    def launched(self) -> tuple[str, int]:
        """The dataset abbr and n of what its config file draws: round 1 of a curtailed run, else the whole run."""
        if self.curtail is None:
            return self.dataset_abbr, self.n
        return round_abbr(self.dataset_abbr, 1), self.curtail.n1

    def describe(self) -> str:
        """Human-readable identity, for error messages."""
        setting = "greedy" if self.greedy else f"temperature {self.temperature!r}"
        return f"{self.model.path} ({setting}) on {self.benchmark}"

    def manifest_entry(self) -> dict[str, Any]:
        """The run's record in ``manifest.json``."""
        return (
            {
                "file": self.file,
                "model_abbr": self.model_abbr,
                "dataset_abbr": self.dataset_abbr,
                "model_path": self.model.path,
                "display_name": self.model.display_name,
                "temperature": self.temperature,
                "top_p": self.top_p,
                "top_k": self.top_k,
                "repetition_penalty": self.repetition_penalty,
                "seed": self.seed,
                "max_out_len": self.max_out_len,
                "benchmark": self.benchmark,
                "k": list(self.k),
                "n": self.n,
                "greedy": self.greedy,
                "server": self.model.server,
            }
            | ({"test_range": self.test_range} if self.test_range is not None else {})
            | ({"curtail": self.curtail.as_dict()} if self.curtail is not None else {})
        )


# ----------------------------------------------------------------------------------- validation
#
# The template is declared once, as the two contracts below: each field's type and constraints
# say what it may be (contracts.input_error words a broken one), the validators add the rules a
# type cannot say, each with its fix, and ``_consistent`` the rules across fields.  A message is
# one line: ``<template>: <value>, <rule>, <fix>``.

#: A template's list (or tuple) of values, as the tuple the field declares; anything else is refused by the type.
Listed = BeforeValidator(lambda value: tuple(value) if isinstance(value, list) else value)
#: One value or a list of them (``k = 16``, ``eval_urls = 'http://judge:8000/v1'``).
OneOrListed = BeforeValidator(lambda value: tuple(value) if isinstance(value, (list, tuple)) else (value,))
PositiveInt = Annotated[int, Field(ge=1)]
PositiveNumber = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Text = Annotated[str, Field(min_length=1)]
if TYPE_CHECKING:
    Backend = str
    Server = str
    JudgeName = str
    JudgePrompt = str
else:  # pydantic sees each as the Literal of the names it may be, so a wrong one is refused listing them
    Backend, Server, JudgeName, JudgePrompt = (
        Literal[tuple(names)] for names in (BACKENDS, SERVERS, JUDGES, PROTOCOLS)
    )
#: What a list field is when empty: its fix.
_EMPTY = {
    "models": "list at least one dict(path=...)",
    "benchmarks": "list at least one benchmark",
    "temperatures": "list at least one temperature (for a greedy-only grid set greedy = True and temperatures = None)",
    "k": "list at least one k, e.g. k = [4, 8, 16]",
}


def _first_duplicate(values: Sequence[Any]) -> Any:
    """The first value that occurs twice in ``values`` (``==`` equality), else ``None``.

    >>> _first_duplicate([4, 8, 4.0]), _first_duplicate(["a", "b"])
    (4.0, None)
    """
    seen: list[Any] = []
    for value in values:
        if value in seen:
            return value
        seen.append(value)
    return None


def _question_range(value: str) -> str:
    """A pilot's ``test_range`` in its one spelling (``'[ :5]'`` -> ``'[:5]'``)."""
    questions = question_range(value, "test_range")
    return f"[{'' if questions.start is None else questions.start}:{'' if questions.stop is None else questions.stop}]"


def _known_benchmark(name: str) -> str:
    """The benchmark's canonical name (what manifests and results record), however the template spelled it."""
    return get_benchmark(name).name


def refuse_unsafe_text(what: str, value: str) -> None:
    """Refuse a value that could be more than data in a config file (one-line :class:`InputError`).

    Every value goes into a config as a ``repr`` literal, but a line break would end a header
    comment, and mmengine rewrites ``{{$VAR:default}}`` and ``{{ fileDirname }}`` in the file's
    text before running it, so a value must be one line of printable text without ``{{``.

    >>> refuse_unsafe_text("models[0].path", "org/model")
    >>> refuse_unsafe_text("models[0].path", "org/m\\nimport os")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: models[0].path = 'org/m\\nimport os' contains the control character U+000A; a value written into a config must be one line of printable text: remove it
    """
    bad = next((char for char in value if unicodedata.category(char) in _UNSAFE_CATEGORIES), None)
    if bad is not None:
        raise InputError(
            f"{what} = {value!r} contains the control character U+{ord(bad):04X}; a value written "
            "into a config must be one line of printable text: remove it"
        )
    if "{{" in value:
        raise InputError(
            f"{what} = {value!r} contains '{{{{', which mmengine replaces when it loads a config "
            "({{$VAR:default}}, {{ fileDirname }}): remove it"
        )


def _text_values(value: Any, name: str) -> Iterator[tuple[str, str]]:
    """``(field, text)`` for every string inside ``value`` (dict keys and values, lists, tuples)."""
    if isinstance(value, str):
        yield name, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):  # checked before it is part of a field name
                yield f"a key of {name or 'the template'}", key
            yield from _text_values(item, f"{name}.{key}" if name else str(key))
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from _text_values(item, f"{name}[{index}]")


class ModelEntry(Contract):
    """One model of the grid: ``'org/model'`` or ``dict(path=..., name=..., tp=..., ...)`` in a template.

    Attributes:
        path: Hugging Face id, local path or API model name.
        name: name in abbrs, file names and the leaderboard (the last part of ``path`` by default).
        tp: GPUs per model (tensor parallelism; TurboMind).
        batch_size: prompts per generation call.
        url: OpenAI-compatible base URL (API backends; the template's ``model_url`` by default).
        tokenizer_path: tokenizer for ``openai-api`` token counting.
        server: the software behind ``url`` (a key of :data:`SERVERS`; the template's ``server``
            by default), which decides the request-body names of the sampling parameters.
    """

    path: Text
    name: str | None = None
    tp: PositiveInt = 1
    batch_size: PositiveInt = 16
    url: Text | None = None
    tokenizer_path: Text | None = None
    server: Server | None = None

    @property
    def display_name(self) -> str:
        """The name made safe for file names: ``name``, else the last part of ``path``."""
        return safe_name(self.name or posixpath.basename(self.path.rstrip("/")))

    @model_validator(mode="after")
    def _named(self) -> ModelEntry:
        self.display_name  # noqa: B018 -- a name without a usable character is refused here, not in expand()
        return self


class CurtailSetting(Contract):
    """``curtail = dict(first=16, rule='all-wrong')``: round 1 draws ``first`` generations per question; round 2
    draws the other ``n - first`` only for the questions whose first ones miss ``rule`` (:data:`~gpassk_opencompass.
    curtailed.RULES`); every metric is the design's unbiased estimate (docs/generator.md, "Curtailed grids")."""

    first: PositiveInt
    rule: Literal[tuple(RULES)] = DEFAULT_RULE  # type: ignore[valid-type]  # the rules' names, from their home


class GridTemplate(Contract):
    """A validated template: its plain variables, declared (see the templates' comments for each).

    The fields are in the order they are checked; a field without a default is required.
    """

    backend: Backend
    model_url: Text | None = None
    server: Server | None = None
    models: Annotated[tuple[ModelEntry, ...], Listed]
    benchmarks: Annotated[tuple[Annotated[str, AfterValidator(_known_benchmark)], ...], Listed]
    greedy: bool = False
    temperatures: Annotated[tuple[FiniteFloat, ...], Listed] | None
    k: Annotated[tuple[PositiveInt, ...], OneOrListed]
    n: Annotated[int, Field(ge=1, le=defaults.MAX_N)]
    max_out_len: PositiveInt
    seed: int | None = None
    max_seq_len: int | None = None
    query_per_second: PositiveNumber = 1.0
    retry: PositiveInt = 5
    eval_urls: Annotated[tuple[Text, ...], OneOrListed] = ()
    eval_model_name: str = ""
    judge: JudgeName = AUTO
    judge_prompt: JudgePrompt = DEFAULT_JUDGE_PROMPT
    top_p: Annotated[float, Field(gt=0, le=1)] | None = None
    top_k: PositiveInt | None = None
    repetition_penalty: PositiveNumber | None = None
    test_range: Annotated[str, AfterValidator(_question_range)] | None = None
    max_questions: PositiveInt | None = None
    data_paths: dict[str, str] = Field(default_factory=dict)
    curtail: CurtailSetting | None = None

    @model_validator(mode="before")
    @classmethod
    def _variables(cls, variables: Any) -> dict[str, Any]:
        """The template's public variables (``_`` names are its own helpers), each one line of plain text;
        each model takes the template's ``model_url`` and ``server`` unless it sets its own."""
        public = {name: value for name, value in variables.items() if not name.startswith("_")}
        for name, text in _text_values(public, ""):
            refuse_unsafe_text(name, text)
        shared = {"url": public.get("model_url"), "server": public.get("server")}
        if isinstance(public.get("models"), (list, tuple)):
            public["models"] = [
                {**shared, **({"path": entry} if isinstance(entry, str) else entry)}
                if isinstance(entry, (str, Mapping))
                else entry
                for entry in public["models"]
            ]
        return public

    @field_validator(*_EMPTY)
    @classmethod
    def _not_empty(cls, values: tuple | None, info: ValidationInfo) -> tuple | None:
        if values == ():
            raise InputError(f"{info.field_name} is empty; {_EMPTY[str(info.field_name)]}")
        return values

    @field_validator("benchmarks", "temperatures", "k", "eval_urls")
    @classmethod
    def _listed_once(cls, values: tuple | None, info: ValidationInfo) -> tuple | None:
        duplicate = _first_duplicate(values or ())
        if duplicate is not None:
            raise InputError(
                f"{info.field_name} lists {duplicate!r} twice: {list(values or ())!r}; list each value once"
            )
        return values

    @field_validator("temperatures")
    @classmethod
    def _sampled(cls, temperatures: tuple[float, ...] | None) -> tuple[float, ...] | None:
        greedy = next((temperature for temperature in temperatures or () if temperature <= 0), None)
        if greedy is not None:
            raise InputError(f"temperatures must be > 0, got {greedy!r} (greedy decoding: set greedy = True)")
        return temperatures

    @field_validator("k")
    @classmethod
    def _ascending(cls, ks: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted(ks))

    @field_validator("models")
    @classmethod
    def _named_once(cls, models: tuple[ModelEntry, ...]) -> tuple[ModelEntry, ...]:
        names = [model.display_name for model in models]
        duplicate = _first_duplicate(names)
        if duplicate is not None:
            first, second = [i for i, name in enumerate(names) if name == duplicate][:2]
            raise InputError(
                f"models[{first}] and models[{second}] are both named {duplicate!r}; give one of them a distinct name="
            )
        return models

    @field_validator("data_paths")
    @classmethod
    def _absolute(cls, paths: dict[str, str]) -> dict[str, str]:
        """Absolute paths, each under its benchmark's canonical name (a name no benchmark has is kept as given:
        ``_consistent`` reports it against the grid's benchmarks)."""
        canonical: dict[str, str] = {}
        for benchmark, path in paths.items():
            if not posixpath.isabs(path):
                raise InputError(
                    f"data_paths[{benchmark!r}] must be an absolute path (the file or folder the benchmark's "
                    f"loader reads, as its path=), got {path!r}"
                )
            try:
                name = _known_benchmark(benchmark)
            except InputError:
                name = benchmark
            if name in canonical:
                raise InputError(f"data_paths names {name} twice ({list(paths)!r}); give each benchmark one path")
            canonical[name] = path
        return canonical

    @model_validator(mode="after")
    def _consistent(self) -> GridTemplate:
        """The rules across variables: the backend's models, greedy-only grids, n and k, limits."""
        _check_backend(self)
        if self.temperatures is None and not self.greedy:
            raise InputError("temperatures = None means a greedy-only grid, but greedy is False: the grid has no runs")
        if self.n < max(self.k):
            raise InputError(f"n = {self.n} is less than max(k) = {max(self.k)}; every k needs at least k generations")
        if self.seed is not None and self.backend != "turbomind":
            raise InputError(
                f"seed = {self.seed} is not supported with backend {self.backend!r}: one seed sent with "
                "all n requests of a question makes the replicas identical; leave seed = None "
                "(servers draw a fresh seed per request)"
            )
        if self.max_seq_len is not None and self.max_seq_len <= self.max_out_len:
            raise InputError(
                f"max_seq_len = {self.max_seq_len} leaves no room for the prompt (max_out_len = {self.max_out_len})"
            )
        if self.backend != "turbomind":
            sent = {"top_k": self.top_k if self.temperatures else None, "repetition_penalty": self.repetition_penalty}
            for index, model in enumerate(self.models):
                _check_api_sampling(model, index, sent, self.temperatures, self.greedy)
        if self.test_range is not None and self.max_questions is not None:
            raise InputError(
                f"test_range = {self.test_range!r} and max_questions = {self.max_questions} both choose the "
                "questions; set one of them"
            )
        for benchmark in self.data_paths:
            if benchmark not in self.benchmarks:
                raise InputError(
                    f"data_paths names {benchmark!r}, not a benchmark of this grid; "
                    f"{did_you_mean(benchmark, self.benchmarks)}"
                )
        if self.curtail is not None:
            self._curtailable()
        settings = len(self.temperatures or ()) + self.greedy
        runs = len(self.models) * settings * len(self.benchmarks)
        if runs > MAX_RUNS:
            raise InputError(
                f"the grid has {runs} runs ({len(self.models)} models x {settings} settings x "
                f"{len(self.benchmarks)} benchmarks), above the limit of {MAX_RUNS} config files"
            )
        return self

    def _curtailable(self) -> None:
        """The rules of ``curtail``: a sampled run to curtail, k within the first round, something left to draw."""
        first = self.curtail.first if self.curtail is not None else 0
        if not self.temperatures:
            raise InputError("curtail is set, but the grid has no sampled run (temperatures = None): remove curtail")
        if max(self.k) > first:
            raise InputError(
                f"k = {max(self.k)} is above curtail first = {first}: every k must be at most the generations "
                "round 1 draws for every question; raise first or lower k"
            )
        if first >= self.n:
            raise InputError(
                f"curtail first = {first} is not below n = {self.n}: round 1 would draw every generation and "
                "nothing would be saved; set first below n, or curtail = None"
            )
        self.design  # noqa: B018 -- the design's own bounds (MAX_CURTAILED_N), one line

    @property
    def design(self) -> Curtailed | None:
        """The curtailed design of the grid's sampled runs (``None``: a fixed n)."""
        return None if self.curtail is None else Curtailed(self.curtail.first, self.n, self.curtail.rule)

    @property
    def questions(self) -> str | None:
        """The pilot's question range (``test_range``, or ``'[:max_questions]'``); ``None``: every question."""
        return self.test_range if self.max_questions is None else f"[:{self.max_questions}]"


TEMPLATE_VARIABLES = tuple(GridTemplate.model_fields)
MODEL_KEYS = tuple(ModelEntry.model_fields)


def parse_template(variables: Mapping[str, Any], source: str = "template") -> GridTemplate:
    """Validate a template's variables into a :class:`GridTemplate`; every problem is one :class:`InputError` line.

    Args:
        variables: the template's module-level names (names starting with
            ``_`` are ignored, for the template's own helpers).
        source: what to call the template in messages (its path).

    >>> parse_template({"backend": "turbomind", "models": ["org/m"], "benchmarks": ["AIME2025"],
    ...                 "temperatures": [1.0], "k": [4, 16], "n": 8, "max_out_len": 512})
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: template: n = 8 is less than max(k) = 16; every k needs at least k generations
    """
    return GridTemplate.parse(variables, source)


def _check_backend(template: GridTemplate) -> None:
    """Refuse a model setting the backend would not use: a URL or server for in-process models, no URL for served."""
    if template.backend == "turbomind" and template.model_url is not None:
        raise InputError(
            "model_url is set, but backend 'turbomind' runs the model in-process; "
            "use backend 'openai-local' for a served model"
        )
    for index, model in enumerate(template.models):
        where = f"models[{index}] ({model.path})"
        if template.backend == "turbomind" and model.server is not None:
            raise InputError(
                f"{where}: server = {model.server!r} is for the API backends "
                "(openai-api, openai-local); backend 'turbomind' samples in-process"
            )
        if template.backend == "turbomind" and model.url is not None:
            raise InputError(
                f"{where} sets url={model.url!r}, but backend 'turbomind' runs the model in-process; "
                "use backend 'openai-local' for a served model"
            )
        if template.backend == "openai-local" and model.url is None:
            raise InputError(f"{where} has no url; set model_url = 'http://host:port/v1' or the model's url=")


def _check_api_sampling(
    model: ModelEntry, index: int, sent: Mapping[str, Any], temperatures: Sequence | None, greedy: bool
) -> None:
    """Refuse a sampling setting an API model would not receive (its run name would claim it)."""
    where = f"models[{index}] ({model.path})"
    server = _UNKNOWN_SERVER if model.server is None else SERVERS[model.server]
    for parameter, value in sent.items():
        if value is None or server.body_name(parameter) is not None:
            continue
        if model.server is None:
            takers = ", ".join(name for name, known in SERVERS.items() if known.body_name(parameter))
            raise InputError(
                f"{where}: {parameter} = {value!r} is not a standard OpenAI parameter and no server "
                f"is set to say what to call it; set server = one of {takers}, or {parameter} = None"
            )
        raise InputError(
            f"{where}: server {model.server!r} ({server.software}) has no {parameter} parameter, "
            f"so {parameter} = {value!r} would not be applied; set {parameter} = None"
        )
    marker = next((name for name in OPENCOMPASS_REASONING_MODELS if name in model.path), None)
    if marker is not None and (greedy or any(value != 1.0 for value in temperatures or ())):
        raise InputError(
            f"{where}: OpenCompass sends no temperature to models named like {marker!r} (they "
            "sample at the server's default, 1.0), so a greedy or other-temperature run would be "
            "named for a setting never applied; use temperatures = [1.0] and greedy = False for it"
        )


# ---------------------------------------------------------------------------------- expansion


class _Sampling(TypedDict):
    """The sampling settings of a run: in its model abbreviation and in its :class:`RunSpec`."""

    temperature: float
    top_p: float | None
    top_k: int | None
    repetition_penalty: float | None
    seed: int | None
    max_out_len: int


def _run(template: GridTemplate, model: ModelEntry, benchmark: str, temperature: float | None) -> RunSpec:
    greedy = temperature is None
    settings = _Sampling(
        temperature=0.0 if temperature is None else temperature,
        top_p=None if greedy else template.top_p,
        top_k=None if greedy else template.top_k,
        repetition_penalty=template.repetition_penalty,
        seed=None if greedy else template.seed,
        max_out_len=template.max_out_len,
    )
    k, n = ((1,), 1) if greedy else (template.k, template.n)
    curtail = None if greedy else template.design  # a greedy run draws one generation: nothing to curtail
    model_name = model_abbr(model.display_name, **settings)
    data_name = dataset_abbr(benchmark, k, n, template.questions, curtail)
    return RunSpec(
        model=model,
        benchmark=benchmark,
        greedy=greedy,
        k=k,
        n=n,
        model_abbr=model_name,
        dataset_abbr=data_name,
        file=config_file_name(model_name, data_name),
        test_range=template.questions,
        curtail=curtail,
        **settings,
    )


def expand(template: GridTemplate) -> list[RunSpec]:
    """Every run of the grid: model x (greedy, temperatures...) x benchmark, in that order.

    Raises:
        InputError: two runs would share a config file; the message names both.
    """
    runs = [
        _run(template, model, benchmark, temperature)
        for model in template.models
        for temperature in ((None,) if template.greedy else ()) + (template.temperatures or ())
        for benchmark in template.benchmarks
    ]
    seen: dict[str, RunSpec] = {}
    for run in runs:
        other = seen.setdefault(run.file, run)
        if other is not run:
            raise InputError(
                f"two runs would both be written to {run.file!r}: {other.describe()} and "
                f"{run.describe()}; give one of the models a distinct name="
            )
    return runs


def manifest(runs: Sequence[RunSpec], template_path: str) -> dict[str, Any]:
    """The ``manifest.json`` document: generator, template and every run's parameters."""
    return {
        "generator": f"gpassk-opencompass {__version__}",
        "template": str(template_path),
        "runs": [run.manifest_entry() for run in runs],
    }
