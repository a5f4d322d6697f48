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

A validator raises :class:`~gpassk_opencompass.errors.InputError` with the
project's own wording, which is kept as it is. ``InputError`` is not a
``ValueError`` (pydantic's way to report a broken rule), so every contract turns
one raised by its validators into that (:func:`_as_constraint`): the line keeps
where it is (``details[1]: ...``) and its source, as pydantic's own do.

>>> from pydantic import field_validator
>>> class Draws(Contract):
...     k: int
...     @field_validator("k")
...     @classmethod
...     def _even(cls, k: int) -> int:
...         if k % 2:
...             raise InputError(f"k must be even; got k={k}")
...         return k
>>> Draws.parse({"k": 3}, "grid.json")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: grid.json: k must be even; got k=3
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, ValidationError
from pydantic_core import CoreSchema

from gpassk_opencompass.checks import did_you_mean
from gpassk_opencompass.errors import InputError

if sys.version_info >= (3, 11):
    from typing import Self
else:  # Python 3.10
    from typing_extensions import Self


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
            raise input_error(error, source, cls) from None


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
            raise input_error(error, "", type(self)) from None

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes``, validated again (what ``dataclasses.replace`` is for a dataclass)."""
        return type(self)(**{**dict(self), **changes})


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "the document"


def input_error(error: ValidationError, source: str, model: type[BaseModel] | None = None) -> InputError:
    """The first problem of a pydantic ``ValidationError`` as one :class:`InputError` line."""
    first = error.errors(include_url=False)[0]
    loc, kind, where = first["loc"], first["type"], _where(first["loc"])
    prefix = f"{source}: " if source else ""
    if kind == "value_error":
        cause = first.get("ctx", {}).get("error")
        return InputError(f"{prefix}{cause if cause is not None else first['msg']}")
    if kind == "missing":
        return InputError(f"{prefix}{where} is missing; add it")
    if kind == "extra_forbidden":
        known = _fields_at(model, loc[:-1]) if model is not None else []
        hint = f"; {did_you_mean(loc[-1], known)}" if known else ""
        return InputError(f"{prefix}unknown field {loc[-1]!r}{hint}")
    message = first["msg"][:1].lower() + first["msg"][1:]
    return InputError(f"{prefix}{where} = {first.get('input')!r}: {message}")


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
