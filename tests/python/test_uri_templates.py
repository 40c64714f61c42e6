"""RFC 6570 resource templates through the Python API: matching, expansion and refusals."""

from __future__ import annotations

from typing import Any

import pytest

import mcpcxx
from conftest import error_of, result_of
from mcpcxx import UriTemplate
from mcpcxx.testing import Client


@pytest.fixture
def templated(server: mcpcxx.Server) -> mcpcxx.Server:
    @server.resource("users://{id}{?fields,limit}")
    def user(id: str, fields: str | None = None, limit: str = "10") -> dict[str, Any]:
        return {"id": id, "fields": fields, "limit": limit}

    @server.resource("file:///{+path}")
    def file(path: str) -> str:
        return f"file {path}"

    @server.resource("docs://manual{/section,page}{#anchor}")
    def manual(section: str = "", page: str = "", anchor: str = "") -> dict[str, str]:
        return {"section": section, "page": page, "anchor": anchor}

    @server.resource("data://report{.format}")
    def report(format: str = "txt") -> str:
        return f"report as {format}"

    @server.resource("search://q?static=1{&term}")
    def search(term: str = "") -> str:
        return f"term={term}"

    return server


def read(client: Client, uri: str) -> Any:
    import json

    contents = result_of(client.read_resource(uri))["contents"][0]
    text = contents["text"]
    return json.loads(text) if contents["mimeType"] == "application/json" else text


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("users://7", {"id": "7", "fields": None, "limit": "10"}),
        ("users://7?limit=5", {"id": "7", "fields": None, "limit": "5"}),
        (
            "users://7?fields=name%2Cemail&limit=1",
            {"id": "7", "fields": "name,email", "limit": "1"},
        ),
        ("users://J%C3%BCrgen", {"id": "Jürgen", "fields": None, "limit": "10"}),
        ("file:///etc/app/config.toml", "file etc/app/config.toml"),
        ("docs://manual", {"section": "", "page": "", "anchor": ""}),
        ("docs://manual/install/2#top", {"section": "install", "page": "2", "anchor": "top"}),
        ("data://report.csv", "report as csv"),
        ("data://report", "report as txt"),
        ("search://q?static=1&term=mcp", "term=mcp"),
    ],
)
def test_operators_match(templated: mcpcxx.Server, era: str, uri: str, expected: Any) -> None:
    with Client(templated, protocol_version=era) as c:
        assert read(c, uri) == expected


@pytest.mark.parametrize(
    "uri",
    ["users://7?other=1", "users://a/b", "docs://manual/a/b/c", "search://q?static=2&term=x"],
)
def test_uris_that_do_not_match_are_not_found(templated: mcpcxx.Server, era: str, uri: str) -> None:
    with Client(templated, protocol_version=era) as c:
        error = error_of(c.read_resource(uri))
    assert error["data"]["uri"] == uri


def test_templates_are_listed_as_written(templated: mcpcxx.Server) -> None:
    with Client(templated) as c:
        listed = result_of(c.list_resource_templates())["resourceTemplates"]
    assert [t["uriTemplate"] for t in listed] == [
        "users://{id}{?fields,limit}",
        "file:///{+path}",
        "docs://manual{/section,page}{#anchor}",
        "data://report{.format}",
        "search://q?static=1{&term}",
    ]


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("x://{a", "unclosed '{' at position 4; close it with '}'"),
        ("x://{}", "empty expression '{}'"),
        ("x://a}", "'}' without '{'"),
        ("x://{a}{b}", "two adjacent expressions cannot be told apart"),
        ("x://{list*}", "explode modifier '\\*' on 'list\\*' is not supported"),
        ("x://{=a}", "operator '=' is reserved"),
        ("x://{a:0}", "prefix modifier"),
    ],
)
def test_bad_templates_are_refused_at_registration(
    server: mcpcxx.Server, template: str, says: str
) -> None:
    def reader() -> str:
        return "x"

    with pytest.raises(ValueError, match=f"resource '.*' is not a valid URI template: .*{says}"):
        server.resource(template)(reader)
    assert "resources" not in server.capabilities()  # nothing was registered


def test_optional_variables_need_a_default(server: mcpcxx.Server) -> None:
    def user(id: str, fields: str) -> str:
        return id

    with pytest.raises(TypeError, match="variable 'fields' may be absent .* give the parameter a"):
        server.resource("users://{id}{?fields}")(user)


def test_parameters_must_be_the_variables(server: mcpcxx.Server) -> None:
    def user(id: str, extra: str) -> str:
        return id

    with pytest.raises(TypeError, match=r"must be exactly the URI template's variables \['id'\]"):
        server.resource("users://{id}")(user)


def test_uri_template_match_and_expand() -> None:
    t = UriTemplate("users://{id}{?fields,limit}")
    assert t.variables == ["id", "fields", "limit"]
    assert t.required_variables == ["id"]
    assert t.expand({"id": "J rgen", "limit": "5"}) == "users://J%20rgen?limit=5"
    assert t.match("users://J%20rgen?limit=5") == {"id": "J rgen", "limit": "5"}
    assert t.match("other://x") is None
    assert UriTemplate("file:///{+path}").expand({"path": "a/b c"}) == "file:///a/b%20c"
    with pytest.raises(ValueError, match="unclosed"):
        UriTemplate("x://{a")
