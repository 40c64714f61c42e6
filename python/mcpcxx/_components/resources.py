"""Resources and resource templates as component objects.

Resource.from_function(fn, uri) checks the function against the URI (template) once;
to_mcp_resource() is its listing entry, convert_result() turns a return value into
ResourceContents, and handler() is what the engine calls.
"""

from __future__ import annotations

import base64
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from mcpcxx._components.results import dumps, to_jsonable
from mcpcxx._protocol.icons import check_icons
from mcpcxx._runtime.invoke import caller
from mcpcxx._schema.docstrings import parse_docstring
from mcpcxx._schema.params import plain_params

if TYPE_CHECKING:
    from mcpcxx._core import RequestContext
    from mcpcxx._runtime.runtime import Runtime

ResourceHandler = Callable[..., list[dict[str, Any]]]
"""(uri, ctx) -> contents for a resource; (uri, variables, ctx) -> contents for a template."""


class ResourceOptions(TypedDict, total=False):
    """The keyword options of Resource.from_function, which Server.resource passes on."""

    name: str | None
    title: str | None
    description: str | None
    mime_type: str | None
    annotations: dict[str, Any] | None
    size: int | None
    icons: Sequence[Mapping[str, Any]] | None


def template_variables(uri: str, where: str) -> tuple[list[str], list[str]]:
    """(every variable, the variables every match defines) of `uri`; ([], []) for a plain URI.

    ValueError when `uri` is a malformed RFC 6570 template (the engine's own parser says why).
    """
    if "{" not in uri and "}" not in uri:
        return [], []
    from mcpcxx import _core

    try:
        parsed = _core.UriTemplate(uri)
    except ValueError as e:
        raise ValueError(f"{where} is not a valid URI template: {e}") from None
    return parsed.variables, parsed.required_variables


def _check_variables(
    params: list[inspect.Parameter], variables: tuple[list[str], list[str]], where: str
) -> list[str]:
    names, required = variables
    wanted = {p.name for p in params}
    if set(names) != wanted:
        raise TypeError(
            f"{where}: the function's parameters {sorted(wanted)} must be exactly the URI "
            f"template's variables {sorted(set(names))}"
        )
    for p in params:
        if p.name not in required and p.default is inspect.Parameter.empty:
            raise TypeError(
                f"{where}: variable '{p.name}' may be absent from a matching URI; give the "
                f"parameter a default ({p.name}: str | None = None)"
            )
    return names


class Resource:
    """A function that reads one URI, or every URI matching a template.

    A template's variables ("issues://{key}") are the function's str parameters.
    """

    __slots__ = (
        "annotations",
        "context_param",
        "description",
        "fn",
        "icons",
        "mime_type",
        "name",
        "size",
        "title",
        "uri",
        "variables",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: str,
        variables: list[str],
        context_param: str | None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: dict[str, Any] | None = None,
        size: int | None = None,
        icons: list[dict[str, Any]] | None = None,
    ) -> None:
        self.fn, self.uri, self.name, self.variables = fn, uri, name, variables
        self.context_param = context_param
        self.title, self.description, self.mime_type = title, description, mime_type
        self.annotations, self.size, self.icons = annotations, size, icons

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: dict[str, Any] | None = None,
        size: int | None = None,
        icons: Sequence[Mapping[str, Any]] | None = None,
    ) -> Resource:
        """Check `fn` against `uri`.

        Raises TypeError when its parameters are not exactly the template's variables, and
        TypeError/ValueError for icons not of the spec's Icon shape.

        Args:
            fn: The reader.
            uri: The URI or URI template.
            name: The resource's name in resources/list; default: the function's.
            title: A display name.
            description: Default: the docstring's text before its first section.
            mime_type: The mimeType of the listing and of every content read.
            annotations: Resource annotations: {"audience", "priority", "lastModified"}.
            size: The size in bytes, when known (resources/list).
            icons: Icon dicts ({"src", "mimeType"?, "sizes"?, "theme"?}).
        """
        if not isinstance(uri, str) or not uri:
            raise TypeError("@server.resource needs the resource URI or URI template as a str")
        where = f"resource {uri!r}"
        checked_icons = check_icons(icons, where)
        params, context_param = plain_params(fn, where)
        variables = _check_variables(params, template_variables(uri, where), where)
        doc = parse_docstring(inspect.getdoc(fn))
        return cls(
            fn,
            uri,
            name=name or str(getattr(fn, "__name__", uri)),
            variables=variables,
            context_param=context_param,
            title=title,
            description=description if description is not None else (doc.description or None),
            mime_type=mime_type,
            annotations=annotations,
            size=size,
            icons=checked_icons,
        )

    @property
    def is_template(self) -> bool:
        """True for a URI template (listed by resources/templates/list)."""
        return bool(self.variables)

    def to_mcp_resource(self) -> dict[str, Any]:
        """The Resource (or, for a template, ResourceTemplate) object the listings show."""
        entry: dict[str, Any] = {"uriTemplate" if self.is_template else "uri": self.uri}
        optional = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
            "icons": self.icons,
            "annotations": self.annotations,
            "size": None if self.is_template else self.size,
        }
        entry.update((k, v) for k, v in optional.items() if v is not None)
        return entry

    def convert_result(self, uri: str, value: Any) -> list[dict[str, Any]]:
        """The ResourceContents for a return value.

        A str is text, bytes a blob, anything else JSON text.
        """
        if isinstance(value, str):
            return [{"uri": uri, "mimeType": self.mime_type or "text/plain", "text": value}]
        if isinstance(value, (bytes, bytearray)):
            blob = base64.b64encode(bytes(value)).decode("ascii")
            mime = self.mime_type or "application/octet-stream"
            return [{"uri": uri, "mimeType": mime, "blob": blob}]
        text = dumps(to_jsonable(value))
        return [{"uri": uri, "mimeType": self.mime_type or "application/json", "text": text}]

    def handler(self, runtime: Runtime) -> ResourceHandler:
        """The engine's reader, returning the contents.

        It takes (uri, request) for a concrete resource, (uri, template variables, request) for
        a template.
        """
        call = caller(self.fn, self.context_param, runtime)
        if not self.is_template:

            def read(uri: str, core: RequestContext) -> list[dict[str, Any]]:
                return self.convert_result(uri, call({}, core))

            return read

        def read_template(
            uri: str, variables: dict[str, str], core: RequestContext
        ) -> list[dict[str, Any]]:
            return self.convert_result(uri, call(dict(variables), core))

        return read_template
