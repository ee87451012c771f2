"""Numbers in user files are numbers: ``true`` is not 1 second (pydantic's lax mode takes a bool where a number is
expected; a YAML ``duration: true`` ran a 1-second scenario)."""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, model_validator


def _admits_number_not_bool(annotation: Any) -> bool:
    """Whether a field's type takes an int or a float and not a bool (``float``, ``int | None``,
    ``float | EventTrigger``)."""
    if annotation in (int, float):
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        args = get_args(annotation)
        return bool not in args and any(a in (int, float) for a in args)
    return False


class NoBoolNumbers(BaseModel):
    """Base of the models that read user files: a ``true``/``false`` where a number is expected is handed to the
    field as the word it was written as, so the field's own check refuses it, with its path ("Input should be a
    valid number, unable to parse string as a number")."""

    @model_validator(mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not any(isinstance(v, bool) for v in data.values()):
            return data
        out = dict(data)
        for name, field in cls.model_fields.items():
            for key in (name, field.alias):
                if key in out and isinstance(out[key], bool) and _admits_number_not_bool(field.annotation):
                    out[key] = str(out[key]).lower()
        return out
