"""Function signatures -> JSON Schema (2020-12) via pydantic, and argument conversion.

pydantic is imported here only, and only when a decorator needs it: a signature of plain scalar
parameters (str, int, float, bool, Any, X | None, list[scalar], dict) gets the very schema
pydantic would generate, written directly, so a small server starts without importing pydantic
(about 60% of a Python server's cold start otherwise).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpcxx._protocol.content import CONTENT_TYPES, ToolResult
from mcpcxx._protocol.errors import ConvertedArgumentsError
from mcpcxx._schema.docstrings import parse_docstring

_PLAIN_SCALARS: tuple[Any, ...] = (str, int, float, bool, type(None), Any)


@dataclass
class ToolSignature:
    """Everything the tool wrapper needs, computed once at decoration time."""

    name: str
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    wrap_output: bool
    structured: bool
    context_param: str | None
    convert_args: Callable[[dict[str, Any]], dict[str, Any]]
    param_names: tuple[str, ...] = field(default_factory=tuple)


def is_context(annotation: Any) -> bool:
    """True for mcpcxx.Context (any Protocol deriving from BaseContext) and EngineContext."""
    from mcpcxx._runtime.context import BaseContext, EngineContext

    if isinstance(annotation, type) and (
        BaseContext in annotation.__mro__ or issubclass(annotation, EngineContext)
    ):
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return len(args) == 1 and is_context(args[0])
    return False


_ANNOTATED_TEXT = re.compile(r"^\s*(?:[\w.]+\.)?Annotated\[")


def _declared_annotated(declared: object) -> bool:
    """True when a parameter's annotation as written is Annotated[...] (also as a string)."""
    if isinstance(declared, str):
        return _ANNOTATED_TEXT.match(declared) is not None
    return typing.get_origin(declared) is typing.Annotated


def _without_implicit_optional(fn: Callable[..., Any], hints: dict[str, Any]) -> dict[str, Any]:
    """The hints as Python 3.11+ resolves them, on every interpreter.

    Python 3.10's get_type_hints wraps the hint of a parameter that defaults to None in
    Optional[...]; 3.11 stopped. Wrapped, an Annotated[...] hint moves into the first branch of a
    union, and its metadata (x-mcp-header, Field) with it, so the tool's schema and its refusals
    would depend on the interpreter.
    """
    if sys.version_info >= (3, 11):
        return hints
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return hints
    declared = getattr(fn, "__annotations__", {})
    for name, p in parameters.items():
        hint = hints.get(name)
        if p.default is not None or hint is None or not _declared_annotated(declared.get(name)):
            continue
        args = typing.get_args(hint)
        if typing.get_origin(hint) is typing.Union and len(args) == 2 and type(None) in args:
            inner = args[0] if args[1] is type(None) else args[1]
            if typing.get_origin(inner) is typing.Annotated:
                hints[name] = inner
    return hints


def type_hints(fn: Callable[..., Any], where: str) -> dict[str, Any]:
    try:
        return _without_implicit_optional(fn, typing.get_type_hints(fn, include_extras=True))
    except NameError as e:
        # A type defined inside a function (with postponed annotations) is only in the
        # decorating scope's locals: look for it in the frames that are registering fn.
        frame = sys._getframe(1)
        for _ in range(12):
            if frame.f_back is None:
                break
            frame = frame.f_back
            try:
                hints = typing.get_type_hints(fn, localns=dict(frame.f_locals), include_extras=True)
                return _without_implicit_optional(fn, hints)
            except NameError:
                continue
        error: Exception = e
    except Exception as e:
        error = e
    raise TypeError(
        f"{where}: cannot resolve the type hints ({type(error).__name__}: {error}); import every "
        "type the signature names at module level"
    ) from error


def check_parameter(p: inspect.Parameter, where: str) -> None:
    if p.kind is inspect.Parameter.VAR_POSITIONAL:
        raise TypeError(f"{where}: *{p.name} is not supported; declare each argument by name")
    if p.kind is inspect.Parameter.VAR_KEYWORD:
        raise TypeError(f"{where}: **{p.name} is not supported; declare each argument by name")
    if p.kind is inspect.Parameter.POSITIONAL_ONLY:
        raise TypeError(
            f"{where}: parameter '{p.name}' is positional-only; JSON arguments are passed by "
            "name, so remove the '/'"
        )
    if p.name.startswith("_"):
        raise TypeError(
            f"{where}: parameter '{p.name}' starts with '_'; argument names must be public"
        )


def _has_description(annotation: Any) -> bool:
    from pydantic.fields import FieldInfo

    if typing.get_origin(annotation) is not typing.Annotated:
        return False
    return any(isinstance(m, FieldInfo) and m.description for m in annotation.__metadata__)


def _is_plain(tp: Any) -> bool:
    """True when the engine's schema validation fully covers `tp` (no pydantic pass needed)."""
    if tp in _PLAIN_SCALARS:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        from annotated_types import BaseMetadata
        from pydantic.fields import FieldInfo

        for m in tp.__metadata__:
            if isinstance(m, FieldInfo):
                if m.metadata and not all(isinstance(x, BaseMetadata) for x in m.metadata):
                    return False
            elif not isinstance(m, BaseMetadata):
                return False
        return _is_plain(typing.get_args(tp)[0])
    if origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return all(_is_plain(a) for a in typing.get_args(tp))
    args = typing.get_args(tp)
    if origin is list:
        return not args or _is_plain(args[0])
    if origin is dict:
        return not args or (args[0] is str and _is_plain(args[1]))
    return tp in (list, dict)


def _is_int(tp: Any) -> bool:
    if tp is int:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _is_int(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return len(args) == 1 and _is_int(args[0])
    return False


def _violations(error: Any) -> list[dict[str, str]]:
    """A pydantic ValidationError as the engine's T1 violations, values never included."""
    out = []
    for item in error.errors(include_input=False, include_url=False, include_context=False):
        pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in item["loc"])
        out.append({"instanceLocation": pointer, "keyword": item["type"], "message": item["msg"]})
    return out


def _make_converter(
    tool: str, fields: dict[str, Any], names: tuple[str, ...], plain: bool
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    if plain:
        int_names = tuple(n for n in names if _is_int(fields[n][0]))

        def fast(args: dict[str, Any]) -> dict[str, Any]:
            kwargs = {n: args[n] for n in names if n in args}
            for n in int_names:
                v = kwargs.get(n)
                if type(v) is float and v.is_integer():
                    kwargs[n] = int(v)
            return kwargs

        return fast

    import pydantic

    model = pydantic.create_model(f"{tool}Arguments", **fields)

    def validated(args: dict[str, Any]) -> dict[str, Any]:
        try:
            parsed = model.model_validate(args)
        except pydantic.ValidationError as e:
            raise ConvertedArgumentsError(_violations(e)) from None
        return {n: getattr(parsed, n) for n in names}

    return validated


def _find_bad_parameter(fields: dict[str, Any], where: str, error: Exception) -> TypeError:
    import pydantic

    for name, (annotation, _) in fields.items():
        try:
            pydantic.TypeAdapter(annotation).json_schema()
        except Exception as e:
            return TypeError(
                f"{where}: parameter '{name}' has type {annotation!r}, which has no JSON Schema "
                f"({type(e).__name__}: {e}); use JSON-compatible types or pydantic models"
            )
    return TypeError(f"{where}: cannot build an input schema ({type(error).__name__}: {error})")


def input_fields(
    fn: Callable[..., Any], where: str, param_docs: Mapping[str, str]
) -> tuple[dict[str, Any], str | None]:
    """Pydantic field definitions for `fn`'s parameters, and the name of its Context parameter."""
    import pydantic

    fields, context_param = _raw_fields(fn, where)
    for name, (annotation, default) in fields.items():
        doc = param_docs.get(name)
        if doc and not _has_description(annotation):
            annotation = typing.Annotated[annotation, pydantic.Field(description=doc)]
            fields[name] = (annotation, default)
    return fields, context_param


def _raw_fields(fn: Callable[..., Any], where: str) -> tuple[dict[str, Any], str | None]:
    """{name: (annotation, default or ...)} for `fn`'s parameters, and its Context parameter."""
    hints = type_hints(fn, where)
    fields: dict[str, Any] = {}
    context_param: str | None = None
    for p in inspect.signature(fn).parameters.values():
        annotation = hints.get(p.name, Any)
        if is_context(annotation):
            if context_param is not None:
                raise TypeError(f"{where}: only one Context parameter is allowed")
            context_param = p.name
            continue
        check_parameter(p, where)
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (annotation, default)
    return fields, context_param


_SCALAR_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _direct_type_schema(tp: Any) -> dict[str, Any] | None:
    """The JSON Schema pydantic gives a plain type, or None when only pydantic knows it."""
    if tp is Any:
        return {}
    if tp in _SCALAR_TYPES:
        return {"type": _SCALAR_TYPES[tp]}
    if tp is list:
        return {"items": {}, "type": "array"}
    if tp is dict:
        return {"additionalProperties": True, "type": "object"}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _direct_annotated_schema(tp)
    if origin is list and len(args) == 1 and args[0] in _SCALAR_TYPES:
        return {"items": {"type": _SCALAR_TYPES[args[0]]}, "type": "array"}
    if origin is dict and args == (str, Any):
        return {"additionalProperties": True, "type": "object"}
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        other = args[0] if args[1] is type(None) else args[1]
        if other in _SCALAR_TYPES:
            return {"anyOf": [{"type": _SCALAR_TYPES[other]}, {"type": "null"}]}
    return None


_LENGTH_KEYS = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}
_BOUND_KEYS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}
# What pydantic itself writes for a covered field; a json_schema_extra naming one of these is left
# to pydantic (which one wins is pydantic's business).
_GENERATED_KEYS = frozenset(
    ("type", "title", "description", "default", "items", "anyOf", "pattern", "multipleOf")
    + tuple(_BOUND_KEYS.values())
    + _LENGTH_KEYS["string"]
    + _LENGTH_KEYS["array"]
)


def _constraint(meta: Any, kind: str) -> tuple[str, Any] | None:
    """The schema member pydantic writes for one constraint on a `kind` value, or None."""
    import annotated_types as at

    name = type(meta).__name__
    if type(meta) in (at.MinLen, at.MaxLen) and kind in _LENGTH_KEYS:
        value = meta.min_length if type(meta) is at.MinLen else meta.max_length
        key = _LENGTH_KEYS[kind][type(meta) is at.MaxLen]
        return (key, value) if type(value) is int else None
    if kind in ("integer", "number") and type(meta) in (at.Ge, at.Gt, at.Le, at.Lt, at.MultipleOf):
        attr = "multiple_of" if type(meta) is at.MultipleOf else name.lower()
        value = getattr(meta, attr)
        if type(value) not in (int, float) or not math.isfinite(value):
            return None
        return (_BOUND_KEYS.get(attr, "multipleOf"), value)
    if name == "_PydanticGeneralMetadata" and kind == "string" and vars(meta).keys() == {"pattern"}:
        pattern = vars(meta)["pattern"]
        return ("pattern", pattern) if type(pattern) is str else None
    return None


def _plain_field_info(info: Any) -> bool:
    """True when a Field() sets nothing but description, json_schema_extra and constraints."""
    from pydantic.fields import FieldInfo

    bare = FieldInfo()
    ignored = ("annotation", "metadata", "description", "json_schema_extra")
    return all(
        getattr(info, slot) == getattr(bare, slot)
        for slot in FieldInfo.__slots__
        if not slot.startswith("_") and slot not in ignored
    )


def _direct_annotated_schema(tp: Any) -> dict[str, Any] | None:
    """The schema pydantic gives Annotated[scalar or list, Field(...) or constraints], or None.

    Covered: length, bound and pattern constraints, a description, and a json_schema_extra dict
    that names none of the members pydantic writes itself.
    """
    base, *metadata = typing.get_args(tp)
    schema = _direct_type_schema(base)
    kind = schema.get("type") if schema is not None else None
    if schema is None or not isinstance(kind, str):
        return None
    fields_module = sys.modules.get("pydantic.fields")
    field_info = fields_module.FieldInfo if fields_module is not None else ()
    constraints: list[Any] = []
    infos = [m for m in metadata if isinstance(m, field_info)]
    if len(infos) > 1 or (infos and not _plain_field_info(infos[0])):
        return None
    for m in metadata:
        constraints.extend(m.metadata if isinstance(m, field_info) else [m])
    for meta in constraints:
        member = _constraint(meta, kind)
        if member is None or member[0] in schema:
            return None
        schema[member[0]] = member[1]
    if infos and infos[0].description is not None:
        if not infos[0].description:
            return None  # pydantic lets a docstring's description replace an empty one
        schema["description"] = infos[0].description
    extra = infos[0].json_schema_extra if infos else None
    if extra is not None:
        if not isinstance(extra, dict) or _GENERATED_KEYS.intersection(extra):
            return None
        schema.update(copy.deepcopy(extra))
    return schema


def _field_title(name: str) -> str:
    """The title pydantic gives a field of this name."""
    return name.title().replace("_", " ").strip()


def _is_typeddict(tp: Any) -> bool:
    # A typing_extensions TypedDict exists only once its module is loaded.
    te = sys.modules.get("typing_extensions")
    return typing.is_typeddict(tp) or (te is not None and te.is_typeddict(tp))


def _direct_typeddict_schema(tp: Any) -> dict[str, Any] | None:
    """The (serialization) schema pydantic gives a TypedDict of directly covered fields, or None."""
    if not _is_typeddict(tp) or "__pydantic_config__" in vars(tp):
        return None
    if getattr(tp, "__parameters__", None):
        return None  # generic
    try:
        hints = typing.get_type_hints(tp, include_extras=True)
    except Exception:
        return None
    required_keys = getattr(tp, "__required_keys__", frozenset(hints))
    properties: dict[str, Any] = {}
    for name, hint in hints.items():
        prop = _direct_type_schema(hint)
        if prop is None:
            return None  # Required/NotRequired wrappers, nested types: pydantic's
        prop["title"] = _field_title(name)
        properties[name] = prop
    schema: dict[str, Any] = {}
    if tp.__doc__:
        schema["description"] = inspect.cleandoc(tp.__doc__)
    schema["properties"] = properties
    required = [n for n in hints if n in required_keys]
    if required:
        schema["required"] = required
    schema["title"] = tp.__name__
    schema["type"] = "object"
    return schema


def _plain_default(v: Any) -> bool:
    if v is None or type(v) in (str, bool, int):
        return True
    return type(v) is float and math.isfinite(v)


def _direct_schema(fields: dict[str, Any], param_docs: Mapping[str, str]) -> dict[str, Any] | None:
    """The input schema pydantic's model_json_schema() gives these fields, or None.

    None when a field needs pydantic; "title" is left out as build_input drops it
    (tests/python/test_schema_direct.py compares both).
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, (annotation, default) in fields.items():
        prop = _direct_type_schema(annotation)
        if prop is None or (default is not ... and not _plain_default(default)):
            return None
        if default is ...:
            required.append(name)
        else:
            prop["default"] = default
        if param_docs.get(name) and "description" not in prop:  # a Field's description wins
            prop["description"] = param_docs[name]
        prop["title"] = _field_title(name)
        properties[name] = prop
    schema: dict[str, Any] = {"properties": properties}
    if required:
        schema["required"] = required
    schema["type"] = "object"
    return schema


def build_input(
    fn: Callable[..., Any], tool: str, where: str, param_docs: Mapping[str, str]
) -> tuple[dict[str, Any], Callable[[dict[str, Any]], dict[str, Any]], str | None]:
    """(inputSchema, argument converter, Context parameter name) for `fn`."""
    raw, context_param = _raw_fields(fn, where)
    direct = _direct_schema(raw, param_docs)
    if direct is not None:
        return direct, _make_converter(tool, raw, tuple(raw), True), context_param
    import pydantic

    fields, context_param = input_fields(fn, where, param_docs)
    try:
        model = pydantic.create_model(f"{tool}Arguments", **fields)
        schema = model.model_json_schema(by_alias=True)
    except Exception as e:
        raise _find_bad_parameter(fields, where, e) from e
    schema.pop("title", None)
    schema.setdefault("properties", {})
    names = tuple(fields)
    plain = all(_is_plain(a) for a, _ in fields.values())
    return schema, _make_converter(tool, fields, names, plain), context_param


def _is_content_type(tp: Any) -> bool:
    return isinstance(tp, type) and (issubclass(tp, CONTENT_TYPES) or issubclass(tp, ToolResult))


def _unstructured(tp: Any) -> bool:
    """Return types that are content, not data (no outputSchema)."""
    if tp in (str, bytes, bytearray, type(None)) or tp is Any or _is_content_type(tp):
        return True
    if tp in (list, tuple, typing.Sequence, Sequence):
        # A bare sequence may hold content helpers: its value decides (no outputSchema).
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _unstructured(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return any(_unstructured(a) for a in typing.get_args(tp) if a is not type(None))
    if origin in (list, tuple, typing.Sequence):
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        return bool(args) and all(
            a is Any
            or _is_content_type(a)
            or (
                typing.get_origin(a) in (typing.Union, types.UnionType)
                and any(_is_content_type(x) for x in typing.get_args(a))
            )
            for a in args
        )
    return False


def _object_like(tp: Any) -> bool:
    # A pydantic model exists only once pydantic.main is loaded (reading pydantic.BaseModel would
    # import it, and with it pydantic's schema machinery: megabytes).
    models = sys.modules.get("pydantic.main")
    if isinstance(tp, type) and models is not None and issubclass(tp, models.BaseModel):
        return True
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return True
    if _is_typeddict(tp):
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _object_like(typing.get_args(tp)[0])
    if origin in (dict, Mapping) or tp is dict:
        args = typing.get_args(tp)
        return not args or args[0] is str
    return False


def build_output(
    fn: Callable[..., Any], where: str, structured_output: bool | None
) -> tuple[dict[str, Any] | None, bool]:
    """(outputSchema or None, wrap results as {"result": value}) from the return annotation."""
    if structured_output is False:
        return None, False
    hints = type_hints(fn, where)
    if "return" not in hints or hints["return"] is Any:
        if structured_output:
            raise TypeError(f"{where}: structured_output=True needs a return annotation")
        return None, False
    tp = hints["return"]
    if _unstructured(tp) and not (structured_output and tp is str):
        if structured_output:
            raise TypeError(f"{where}: return type {tp!r} is content, not structured data")
        return None, False
    inner = _direct_type_schema(tp)
    if inner is None:
        inner = _direct_typeddict_schema(tp)
    if inner is None:
        inner = _pydantic_output_schema(tp, where)
    if _object_like(tp) and inner.get("type") == "object":
        return inner, False
    defs = inner.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped, True


def _pydantic_output_schema(tp: Any, where: str) -> dict[str, Any]:
    import pydantic

    try:
        schema: dict[str, Any] = pydantic.TypeAdapter(tp).json_schema(
            mode="serialization", by_alias=True
        )
    except Exception as e:
        raise TypeError(
            f"{where}: return type {tp!r} has no JSON Schema ({type(e).__name__}: {e}); "
            "use structured_output=False or a JSON-compatible return type"
        ) from e
    return schema


def describe_tool(
    fn: Callable[..., Any],
    *,
    name: str | None,
    description: str | None,
    structured_output: bool | None,
    input_schema: Mapping[str, Any] | None = None,
) -> ToolSignature:
    """Analyse `fn` for @server.tool; raises TypeError for anything unsupported."""
    if not callable(fn):
        raise TypeError(f"@tool needs a function, got {type(fn).__name__}")
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(f"tool {getattr(fn, '__name__', fn)!r}: generators are not supported")
    tool_name = name or getattr(fn, "__name__", None)
    if not tool_name or tool_name == "<lambda>":
        raise TypeError("a lambda or nameless callable needs @tool(name=...)")
    where = f"tool {tool_name!r}"
    doc = parse_docstring(inspect.getdoc(fn))
    if input_schema is not None:
        from mcpcxx._schema.given import given_input

        schema, convert, context_param = given_input(fn, input_schema, where, is_context)
    else:
        schema, convert, context_param = build_input(fn, tool_name, where, doc.params)
    output_schema, wrap = build_output(fn, where, structured_output)
    return ToolSignature(
        name=tool_name,
        description=description if description is not None else (doc.description or None),
        input_schema=schema,
        output_schema=output_schema,
        wrap_output=wrap,
        structured=structured_output is not False,
        context_param=context_param,
        convert_args=convert,
        param_names=tuple(schema.get("properties", {})),
    )
