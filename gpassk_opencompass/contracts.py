"""The base of every declared document and setting: a pydantic model whose mistakes are one line.

A document (the results file) or a setting (``JudgeSettings``, ``ScoringRequest``,
a grid template) is declared once as a :class:`Contract`: the fields, their
types and rules, and the JSON Schema come from that one declaration. Reading
goes through :meth:`Contract.parse`, which turns pydantic's multi-line
``ValidationError`` into the project's one :class:`~gpassk_opencompass.errors.InputError`
line: where, which field, the offending value, the rule, and a "did you mean"
for an unknown key.

>>> from pydantic import Field
>>> class Sampling(Contract):
...     n: int = Field(ge=1)
...     temperature: float = 1.0
>>> Sampling.parse({"n": 8}).n
8
>>> Sampling.parse({"n": 0}, "grid.json")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: grid.json: n = 0: input should be greater than or equal to 1
>>> Sampling.parse({"n": 8, "temprature": 0.7}, "grid.json")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: grid.json: unknown field 'temprature'; did you mean 'temperature'? known: n, temperature

A validator raises :class:`~gpassk_opencompass.errors.InputError` with the project's own wording,
which is kept as it is (after the item's place when it is an item of a list: it cannot name that
place itself); every contract reports one raised by its validators as pydantic's sign of a broken
rule, a plain ``ValueError`` of the same words (:func:`_as_constraint`). A value too long to show is shortened, a container
to a few items; where a union lets a value take several shapes, the error of the shape it came
closest to is said:

>>> class Draws(Contract):
...     k: PositiveInt | list[PositiveInt]
...     share: Annotated[Finite, Field(ge=0, le=1)] = 0.0
>>> Draws.parse({"k": [4, 0]}, "r.json")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: r.json: k[1] = 0: input should be greater than or equal to 1
>>> Draws.parse({"k": 4, "share": list(range(1000))}, "r.json")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: r.json: share = [0, 1, 2, 3, 4, 5, ...]: input should be a valid number

The shared declarations :data:`Count`, :data:`PositiveInt`, :data:`Finite` and :data:`Absent` live here.
"""

from __future__ import annotations

import functools
import reprlib
import sys
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, ValidationError
from pydantic_core import CoreSchema

from gpassk_opencompass.checks import did_you_mean
from gpassk_opencompass.errors import InputError

if sys.version_info >= (3, 11):
    from typing import Self
else:  # Python 3.10
    from typing_extensions import Self

#: A count: an int >= 0.
Count = Annotated[int, Field(ge=0)]
#: An int >= 1.
PositiveInt = Annotated[int, Field(ge=1)]
#: A finite number (NaN and infinities refused).
Finite = Annotated[float, Field(allow_inf_nan=False)]

if typing.TYPE_CHECKING:
    _T = typing.TypeVar("_T")
    #: A field that may be absent from a document (``None`` then) but is never ``null`` in one: type checkers
    #: see ``_T | None``, pydantic validates (and the schema shows) ``_T`` alone.
    Absent: typing.TypeAlias = _T | None
else:

    class Absent:
        """``Absent[T]`` is ``T`` to pydantic (see the type checkers' definition above)."""

        def __class_getitem__(cls, item):
            return item


def _as_constraint(validator: Callable[..., Any]) -> Callable[..., Any]:
    """``validator`` raising an :class:`InputError` as pydantic's ``ValueError`` for a broken rule, so that
    pydantic locates it (``details[1]``) and :func:`input_error` words it like the others."""

    @functools.wraps(validator)
    def validate(*args: Any) -> Any:
        try:
            return validator(*args)
        except InputError as error:
            raise ValueError(str(error)) from None

    validate.as_constraint = True  # type: ignore[attr-defined]
    return validate


def _report_input_errors(schema: object) -> None:
    """Every validator function in a core ``schema`` (walked in place) through :func:`_as_constraint`."""
    if isinstance(schema, dict):
        function = schema.get("function")  # a validator's: {"type": "no-info" or "with-info", "function": ...}
        if isinstance(function, dict) and not hasattr(function.get("function"), "as_constraint"):
            function["function"] = _as_constraint(function["function"])
        for value in schema.values():
            _report_input_errors(value)
    elif isinstance(schema, list):
        for item in schema:
            _report_input_errors(item)


class Contract(BaseModel):
    """A declared document or setting: unknown keys refused, values immutable, JSON types strict."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[BaseModel], handler: GetCoreSchemaHandler) -> CoreSchema:
        """The model's schema, its validators' :class:`InputError` reported as pydantic's (:func:`_as_constraint`)."""
        schema = handler(source)
        _report_input_errors(schema)
        return schema

    @classmethod
    def parse(cls, data: Any, source: str = "<input>") -> Self:
        """Validate ``data`` (a mapping) into the model; a mistake is one :class:`InputError` line."""
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            raise input_error(error, source, cls, data) from None


class Setting(Contract):
    """A setting built by keyword in code (``JudgeSettings(kind="llm", ...)``): a mistake in the
    constructor is the same one :class:`InputError` line as in :meth:`Contract.parse`.

    Not for documents built from computed values (a mistake there is a bug, not the user's).

    >>> class Draws(Setting):
    ...     k: int = 1
    >>> Draws(k=4).replace(k=8).k
    8
    >>> Draws(k="8")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: k = '8': input should be a valid integer
    """

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise input_error(error, "", type(self), data) from None

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes``, validated again (what ``dataclasses.replace`` is for a dataclass)."""
        return type(self)(**{**dict(self), **changes})


def input_error(
    error: ValidationError, source: str, model: type[BaseModel] | None = None, data: Any = None
) -> InputError:
    """The first problem of a pydantic ``ValidationError`` as one :class:`InputError` line.

    ``data``, the input validated, locates the problem: a step of pydantic's location that is not a key or
    an index of the data names a member of a union, and is left out of the place said. Of the errors a
    union's members give for one value, the one that went deepest into it is said.
    """
    located = [(_path(problem["loc"], data), problem) for problem in error.errors(include_url=False)]
    place = located[0][0]
    path, first = max(  # ties: the first
        (pair for pair in located if pair[0][: len(place)] == place), key=lambda pair: len(pair[0])
    )
    kind, where = first["type"], _where(path)
    prefix = f"{source}: " if source else ""
    if kind == "value_error":
        cause = first.get("ctx", {}).get("error", first["msg"])
        item = f"{where}: " if any(isinstance(part, int) for part in path) else ""  # an item cannot name its place
        return InputError(f"{prefix}{item}{cause}")
    if kind == "missing":
        return InputError(f"{prefix}{where} is missing; add it")
    if kind == "extra_forbidden":
        known = _fields_at(model, tuple(path[:-1])) if model is not None else []
        hint = f"; {did_you_mean(path[-1], known)}" if known else ""
        return InputError(f"{prefix}unknown field {path[-1]!r}{hint}")
    message = first["msg"][:1].lower() + first["msg"][1:]
    return InputError(f"{prefix}{where} = {_SHORT.repr(first.get('input'))}: {message}")


#: How a message shows a value: a long string or a big container shortened.
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 2, 6, 6, 4, 60, 60


def _path(loc: tuple[int | str, ...], data: Any) -> list[int | str]:
    """The steps of ``loc`` into ``data``: a name where the data is no mapping is a union member's, not a step."""
    if data is None:
        return list(loc)
    path: list[int | str] = []
    for part in loc:
        if isinstance(part, str) and not isinstance(data, Mapping):
            continue
        path.append(part)
        if isinstance(data, Mapping):
            data = data.get(part)
        elif isinstance(data, (list, tuple)) and isinstance(part, int) and -len(data) <= part < len(data):
            data = data[part]
        else:
            data = None
    return path


def _where(path: list[int | str]) -> str:
    """``gpassk.k``, ``details[0].verdicts[2]``, ``gpassk.uncertainty['mG-Pass@2']``; the first step as it is."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif not text:
            text = part
        else:
            text += f".{part}" if part.isidentifier() else f"[{part!r}]"
    return text or "the document"


def _fields_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The field names of the (nested) model at ``loc``, or ``[]`` when it is not a model."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return []
        current = field.annotation
        args = getattr(current, "__args__", ())
        models = [arg for arg in args if isinstance(arg, type) and issubclass(arg, BaseModel)]
        if models:
            current = models[0]
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []
