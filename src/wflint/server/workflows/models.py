"""Pydantic request models generated from the declarative model (``wflint.model``).

Nothing here spells a field name: every field, type, bound, default and enumeration comes
from the model, and the service's custom rules come from ``validators.VALIDATORS``. The
generated classes reproduce the service's own validation errors:

* top-level ``blocks`` / ``parameters`` are discriminated unions whose tags are members of a
  ``str`` enum (``<BlockType.TASK: 'task'>`` in messages; one parameter tag is a bare string,
  as in the service), so the service's ``union_tag_invalid`` text comes out verbatim;
* ``loop_blocks`` is a plain ("smart") union labelled with the service's class names
  (``TaskBlockYAML``), so a loop child may omit ``block_type`` and errors are located like the
  service's;
* ``proxy_location`` is a union whose branches carry the service's location labels;
* strings are strict, integers lax unless declared strict, unknown keys are ignored.

``validate_json_path`` validates like the service's body parsing (from attributes, which gives
``model_attributes_type``); ``validate_yaml_path`` like its handler (``model_type``).
"""

from __future__ import annotations

import copy
import enum
from contextvars import ContextVar
from functools import lru_cache
from typing import Annotated, Any, Callable, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, Strict, StringConstraints, ValidationError, create_model
from pydantic import GetCoreSchemaHandler, model_validator
from pydantic_core import core_schema

from ... import model as M
from ...model import types as t
from ...model.enums import PARAMETER_TAGS_PRINTED_BARE
from . import validators as V

#: the service's class names for objects the declarative model knows by another name; they
#: appear in "Input should be a valid dictionary or instance of <Class>" on the YAML path
SERVICE_CLASS_NAMES = {
    "WorkflowRequest": "WorkflowCreateYAMLRequest",
    "WorkflowDefinition": "WorkflowDefinitionYAML",
    "BranchCriteria": "BranchCriteriaYAML",
    "BranchCondition": "BranchConditionYAML",
    "WorkflowRequestEnvelope": "WorkflowRequestBody",
    "CreateScriptRequest": "CreateScriptRequest",
    "ScriptFile": "ScriptFileCreate",
}


class LabelledUnion:
    """A plain (smart-mode) union whose branches carry fixed location labels.

    pydantic would label a branch by its core-schema name, which for a model with validators
    is ``function-after[...]``; the service's errors show the class name. ``choices`` is
    called when the schema is built, so members may be defined later (loop bodies refer to
    every block type, including the loops themselves)."""

    def __init__(self, choices: Callable[[], list[tuple[Any, str]]]) -> None:
        self.choices = choices

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return core_schema.union_schema(
            [(handler.generate_schema(tp), label) for tp, label in self.choices()]
        )


# --------------------------------------------------------------------------- loop bodies, linear
#
# A loop body is a plain union of every block model, and both loop models (``for_loop`` and
# ``while_loop``) have a ``loop_blocks`` field. pydantic validates every union member in full,
# so a loop child that is itself a loop has its body validated twice: once by the member that
# matches and once by the other loop member, which fails on its ``block_type`` but still
# checks its fields. That doubles the work at each level of nesting (18 levels: 12 s).
#
# The cure keeps pydantic's answer exactly: while one request is validated, the outcome of each
# loop body item (by object identity) is remembered. A remembered failure is reused anywhere
# (a failure is a failure, wherever it is met); a remembered success is reused only inside a
# union member that cannot succeed (its ``block_type`` names another type, or a field it
# requires is absent), where the result is thrown away and only the errors count. Elsewhere
# the item is validated again, so the union's choice between members that both succeed (which
# depends on how exactly each matched) is pydantic's own. Each item is then validated at most
# once per level that can actually hold it: linear in the nesting.

#: id(item) -> (succeeded, value or ValidationError, item); None outside a validation
_LOOP_MEMO: ContextVar[dict[int, tuple[bool, Any, Any]] | None] = ContextVar("wflint_loop_memo", default=None)
#: inside a union member that cannot succeed
_IN_DOOMED_MEMBER: ContextVar[bool] = ContextVar("wflint_doomed_member", default=False)


def _remembered_item(data: Any, handler: Callable[[Any], Any]) -> Any:
    memo = _LOOP_MEMO.get()
    if memo is None:
        return handler(data)
    hit = memo.get(id(data))
    if hit is not None and hit[2] is data:
        if not hit[0]:
            raise hit[1].with_traceback(None)
        if _IN_DOOMED_MEMBER.get():
            return hit[1]
    try:
        value = handler(data)
    except ValidationError as exc:
        memo[id(data)] = (False, exc, data)
        raise
    memo[id(data)] = (True, value, data)
    return value


def _cannot_succeed(cls: type[BaseModel], data: Any) -> bool:
    """Whether validating ``data`` as ``cls`` must fail: another ``block_type``, or a
    required field missing."""
    if not isinstance(data, dict):
        return False
    if "block_type" in data and data["block_type"] != cls.model_fields["block_type"].default:
        return True
    return any(name not in data for name, f in cls.model_fields.items() if f.is_required())


def _loop_member(cls: Any, data: Any, handler: Callable[[Any], Any]) -> Any:
    if _IN_DOOMED_MEMBER.get() or not _cannot_succeed(cls, data):
        return handler(data)
    token = _IN_DOOMED_MEMBER.set(True)
    try:
        return handler(data)
    finally:
        _IN_DOOMED_MEMBER.reset(token)


class _RememberedLoopUnion(LabelledUnion):
    """The loop-body union, each item's outcome remembered for the request (see above)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        inner = super().__get_pydantic_core_schema__(source, handler)
        return core_schema.no_info_wrap_validator_function(_remembered_item, inner)


def _validating(run: Callable[[], BaseModel]) -> BaseModel:
    token = _LOOP_MEMO.set({})
    try:
        return run()
    finally:
        _LOOP_MEMO.reset(token)


class _Base(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)


@lru_cache(maxsize=None)
def python_enum(spec: t.Enum) -> type[enum.Enum]:
    """A ``str`` enum whose members print like the service's (``<BlockType.TASK: 'task'>``)."""
    members = spec.members or tuple(v.upper().replace("-", "_") for v in spec.values)
    return enum.Enum(spec.name, list(zip(members, spec.values)), type=str)  # type: ignore[return-value]


class _Builder:
    def __init__(self, rel: M.Release) -> None:
        self.rel = rel
        self.classes: dict[str, type[BaseModel]] = {}
        self.block_classes: dict[str, type[BaseModel]] = {}
        self.parameter_classes: dict[str, type[BaseModel]] = {}

    # ------------------------------------------------------------------ types

    def annotation(self, typ: Any, owner: str = "", field: str = "") -> Any:
        if isinstance(typ, t.Str):
            constraints = StringConstraints(strip_whitespace=typ.strip or None,
                                            min_length=typ.min_length, max_length=typ.max_length)
            return Annotated[str, constraints]
        if isinstance(typ, t.Int):
            extra = [Strict()] if typ.strict else []
            return Annotated[int, Field(ge=typ.ge, le=typ.le), *extra]
        if isinstance(typ, t.Num):
            return float
        if isinstance(typ, t.Bool):
            return bool
        if isinstance(typ, t.FreeObject):
            return dict[str, Any]
        if isinstance(typ, t.StrMap):
            return dict[str, str]
        if isinstance(typ, t.AnyJSON) or typ is Any:
            return Any
        if isinstance(typ, t.Enum):
            if typ.literal:
                return Literal[typ.values]  # type: ignore[valid-type]
            return python_enum(typ)
        if isinstance(typ, t.Array):
            item = self.annotation(typ.items, owner, field)
            return Annotated[list[item], Field(min_length=typ.min_items)]  # type: ignore[valid-type]
        if isinstance(typ, t.Ref):
            return self.object_class(self.rel.OBJECTS[typ.target])
        if isinstance(typ, t.Union):
            labels = self.rel.OBJECTS.get(owner, self.rel.REQUEST).extra.get("union_locs", {}).get(field)
            options = [self.annotation(o, owner, field) for o in typ.options if o is not None]
            if labels:
                pairs = list(zip(options, labels))
                return Annotated[Any, LabelledUnion(lambda pairs=pairs: pairs)]
            return Union[tuple(options)]  # type: ignore[return-value]
        if isinstance(typ, t.Blocks):
            if typ.loop:
                return list[Annotated[Any, _RememberedLoopUnion(self._loop_choices)]]
            return list[Annotated[Union[tuple(self.block_classes.values())], Field(discriminator="block_type")]]  # type: ignore[misc]
        if isinstance(typ, t.Parameters):
            return list[Annotated[Union[tuple(self.parameter_classes.values())], Field(discriminator="parameter_type")]]  # type: ignore[misc]
        raise TypeError(f"no pydantic annotation for {typ!r}")

    def _loop_choices(self) -> list[tuple[Any, str]]:
        return [(cls, self._loop_label(tag, cls)) for tag, cls in self.block_classes.items()]

    def _loop_label(self, tag: str, cls: type[BaseModel]) -> str:
        """The service's label of a loop child's branch (older releases named some by their
        model validator)."""
        from ...model.releases import within

        for label, since, until in self.rel.BLOCK_TYPES[tag].extra.get("loop_labels", ()):
            if within(since, until, self.rel.version):
                return label
        return cls.__name__

    def field_definition(self, f: t.Field, owner: str) -> tuple[Any, Any]:
        ann = self.annotation(f.type, owner, f.name)
        if f.nullable:
            ann = Optional[ann]
        if f.required:
            return ann, ...
        default = f.default if f.default is not t.MISSING else None
        if isinstance(f.type, t.Enum) and not f.type.literal and isinstance(default, str):
            default = python_enum(f.type)(default)  # a member, so dumping does not warn
        if isinstance(default, (list, dict)):
            return ann, Field(default_factory=lambda d=default: copy.deepcopy(d))
        return ann, default

    # ------------------------------------------------------------------ objects

    def _create(self, name: str, fields: dict[str, Any], validators: dict[str, Any]) -> type[BaseModel]:
        return create_model(name, __base__=_Base, __validators__=validators, **fields)  # type: ignore[call-overload]

    def object_class(self, obj: t.ObjectModel) -> type[BaseModel]:
        if obj.name not in self.classes:
            fields = {f.name: self.field_definition(f, obj.name) for f in obj.fields}
            validators = V.for_release(self.rel, obj.name, {f.name for f in obj.fields})
            name = obj.class_name or SERVICE_CLASS_NAMES.get(obj.name, obj.name)
            self.classes[obj.name] = self._create(name, fields, validators)
        return self.classes[obj.name]

    def tagged_class(self, obj: t.ObjectModel, tag_field: str, tag: Any, shared: tuple[t.Field, ...],
                     validators: dict[str, Any]) -> type[BaseModel]:
        # the tag comes first, as in the service: a loop child's errors list block_type first
        fields: dict[str, Any] = {tag_field: (Literal[tag], tag)}  # type: ignore[valid-type]
        for f in (*shared, *obj.fields):
            fields[f.name] = self.field_definition(f, obj.name)
        names = {f.name for f in (*shared, *obj.fields)}
        validators = {**validators, **V.for_release(self.rel, obj.tag or "", names)}
        if any(isinstance(f.type, t.Blocks) and f.type.loop for f in obj.fields):
            validators["loop_member"] = model_validator(mode="wrap")(classmethod(_loop_member))
        return self._create(obj.class_name or obj.name, fields, validators)

    def build(self) -> None:
        rel = self.rel
        block_enum = python_enum(rel.BLOCK_TYPE)
        for tag, obj in rel.BLOCK_TYPES.items():
            self.block_classes[tag] = self.tagged_class(
                obj, "block_type", block_enum(tag), rel.COMMON_BLOCK_FIELDS, V.label_validators())
        param_enum = python_enum(rel.PARAMETER_TYPE)
        for tag, obj in rel.PARAMETER_TYPES.items():
            tag_value = tag if tag in PARAMETER_TAGS_PRINTED_BARE else param_enum(tag)
            self.parameter_classes[tag] = self.tagged_class(
                obj, "parameter_type", tag_value, (), V.key_validators())
        for obj in rel.OBJECTS.values():
            if obj.tag is None:
                self.object_class(obj)
        for cls in [*self.classes.values(), *self.block_classes.values(), *self.parameter_classes.values()]:
            cls.model_rebuild(force=True)


def builder(version: str | None = None) -> _Builder:
    """The generated models of one service release (default: the newest modelled one)."""
    return _builder(M.release(version).version)


@lru_cache(maxsize=None)
def _builder(version: str) -> _Builder:
    b = _Builder(M.release(version))
    b.build()
    return b


def model_class(name: str, version: str | None = None) -> type[BaseModel]:
    """The generated class of a declarative object, by ``ObjectModel.name``."""
    return builder(version).classes[name]


def envelope_class(version: str | None = None) -> type[BaseModel]:
    return model_class(M.ENVELOPE.name, version)


def request_class(version: str | None = None) -> type[BaseModel]:
    return model_class(M.REQUEST.name, version)


def script_request_class() -> type[BaseModel]:
    return model_class("CreateScriptRequest")


def validate_json_path(cls: type[BaseModel], data: Any) -> BaseModel:
    """Like the service's body parsing (FastAPI validates from attributes)."""
    return _validating(lambda: cls.model_validate(data, from_attributes=True))


def validate_yaml_path(data: Any, version: str | None = None) -> BaseModel:
    """Like the service's handler validating the loaded YAML document."""
    return _validating(lambda: request_class(version).model_validate(data))
