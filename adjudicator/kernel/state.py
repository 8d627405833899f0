"""The base of every game state: deterministic serialisation, a stable hash, a fast copy.

``apply`` works on a copy of the state (a refused order leaves the original untouched), so
copying is on every order's path. States are JSON-like data (models, dicts, lists, tuples,
scalars): :func:`copy_model` copies exactly that, without pydantic's generic ``__copy__`` /
``__deepcopy__`` machinery and without validating anything again — a flat record (every
field a scalar) costs one ``dict.copy``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import types
import typing
from collections.abc import Collection
from typing import Any, Self, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.decisions import PendingDecision


def canonical_json(data: Any) -> bytes:
    """Same data -> same bytes: sorted keys, no whitespace, UTF-8.

    orjson writes it (ten times faster than the standard library, which matters: every
    action is hashed when played and again when a record is verified). For the data states
    hold — strings, integers, booleans, null, lists and objects, never floats — its bytes
    are exactly those of ``json.dumps(data, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)``, so every hash stored before stays valid (a property test pins
    this); what orjson refuses (non-string keys, integers beyond 64 bits) goes through the
    standard library.
    """
    try:
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return json.dumps(data, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False).encode()


M = TypeVar("M", bound=BaseModel)

_SCALARS = frozenset({str, int, float, bool, type(None), bytes})
_new = object.__new__
# The slots pydantic keeps a model's data in, set directly (no __setattr__ dispatch).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
#: model class -> whether every field holds a scalar (or a tuple of scalars)
_flat: dict[type, bool] = {}


def _scalar_annotation(annotation: Any) -> bool:
    if annotation in _SCALARS:
        return True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return all(type(arg) in _SCALARS for arg in args)
    if origin in (typing.Union, types.UnionType, tuple):
        return all(arg is Ellipsis or _scalar_annotation(arg) for arg in args)
    return False


def _is_flat(cls: type[BaseModel]) -> bool:
    flat = _flat.get(cls)
    if flat is None:
        flat = _flat[cls] = (cls.model_config.get("extra") != "allow" and all(
            _scalar_annotation(f.annotation) for f in cls.model_fields.values()))
    return flat


def _flat_copy(model: M, cls: type[M]) -> M:
    new = _new(cls)
    _set_dict(new, model.__dict__.copy())
    _set_fields_set(new, model.__pydantic_fields_set__.copy())
    _set_extra(new, None)
    _set_private(new, None)
    return new


def copy_data(value: Any) -> Any:
    """A deep copy of JSON-like data: models, dicts, lists, tuples and scalars (anything
    else goes through :func:`copy.deepcopy`). Scalars and tuples of scalars are shared."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            item_kind = type(item)
            if item_kind in _SCALARS:
                out[key] = item
            elif _flat.get(item_kind):
                out[key] = _flat_copy(item, item_kind)
            else:
                out[key] = copy_data(item)
        return out
    if kind is list:
        return [item if type(item) in _SCALARS else copy_data(item) for item in value]
    if kind is tuple:
        if all(type(item) in _SCALARS for item in value):
            return value
        return tuple(copy_data(item) for item in value)
    if isinstance(value, BaseModel):
        return copy_model(value)
    return copy.deepcopy(value)


def copy_model(model: M, shared: Collection[str] = ()) -> M:
    """A deep copy of a model of JSON-like data, except the fields named in ``shared``
    (never mutated in place, only replaced), which the copy shares with the original."""
    cls = type(model)
    if _is_flat(cls):
        return _flat_copy(model, cls)
    new = _new(cls)
    _set_dict(new, {key: value if type(value) in _SCALARS or key in shared
                    else copy_data(value) for key, value in model.__dict__.items()})
    _set_fields_set(new, model.__pydantic_fields_set__.copy())
    extra = model.__pydantic_extra__
    _set_extra(new, None if extra is None else copy_data(extra))
    private = model.__pydantic_private__
    _set_private(new, None if private is None else copy_data(private))
    return new


class GameState(BaseModel):
    """Fields shared by all games. Games subclass it and add their own.

    ``standing`` holds each side's standing orders (decision kind -> policy); they are
    private to their side. ``pending`` is the decision the game is waiting for, if any.
    ``result`` is set when the game is over.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    game: str
    pending: PendingDecision | None = None
    standing: dict[str, dict[str, str]] = Field(default_factory=dict)
    result: str | None = None

    def to_bytes(self) -> bytes:
        """:func:`canonical_json` of the state's JSON data. The data is dumped in pydantic's
        Python mode (a quarter faster), which orjson writes as JSON mode would be written —
        tuples as arrays — or refuses (a set, bytes, a non-string key): then JSON mode."""
        try:
            return orjson.dumps(self.model_dump(), option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return canonical_json(self.model_dump(mode="json"))

    def to_json(self) -> bytes:
        """The state as JSON in its own order: every dict's keys as inserted, which
        :meth:`from_bytes` (``load_state``) keeps. What a snapshot must keep: the rules
        iterate dicts in that order (which unit's event comes first), while the canonical
        bytes (:meth:`to_bytes`, what is hashed) sort the keys."""
        return self.__pydantic_serializer__.to_json(self)

    def encoded(self) -> tuple[bytes, str]:
        """The canonical bytes and their hash, from one serialisation."""
        data = self.to_bytes()
        return data, hashlib.sha256(data).hexdigest()

    @classmethod
    def from_bytes(cls, data: bytes) -> Self:
        return cls.model_validate_json(data)

    def state_hash(self) -> str:
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def copy_for_apply(self) -> Self:
        """A deep copy that ``apply`` mutates, so a RuleError leaves ``self`` untouched."""
        return copy_model(self, ("pending",))
