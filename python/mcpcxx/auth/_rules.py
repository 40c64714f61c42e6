"""Principal rules: who may see and use a tool, resource, resource template or prompt.

A rule is `visible_to=` of @server.tool, @server.resource and @server.prompt: a callable taking
the caller's Principal and returning True when it may see and use the primitive. require_roles and
require_claims are ready-made ones the engine checks itself (no Python call per request).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcpcxx.auth._principal import Principal


class PrincipalRule:
    """A ready-made rule (require_roles, require_claims), checked by the engine without Python.

    Calling it with a Principal gives the same verdict the engine gives.
    """

    __slots__ = ("_spec", "requirement")

    def __init__(self, spec: dict[str, Any], requirement: str) -> None:
        self._spec = spec
        self.requirement = requirement
        """What it requires, in words (named in refusals)."""

    def engine_spec(self) -> dict[str, Any]:
        """The engine's form: {"roles": [...]} or {"claims": {...}}."""
        return dict(self._spec)

    def __call__(self, principal: Principal) -> bool:
        if "roles" in self._spec:
            held = _claim(principal, "roles")
            names = held.split(" ") if isinstance(held, str) else held
            if not isinstance(names, list):
                return False
            return all(r in names for r in self._spec["roles"])
        claims: dict[str, Any] = self._spec["claims"]
        missing = object()
        return all(_claim(principal, k, missing) == v for k, v in claims.items())

    def __repr__(self) -> str:
        return f"PrincipalRule({self.requirement!r})"


def _claim(principal: Principal, name: str, default: Any = None) -> Any:
    top = {"sub": principal.subject, "client_id": principal.client_id}
    if name in top and top[name] is not None:
        return top[name]
    return principal.claims.get(name, default)


def require_roles(*roles: str) -> PrincipalRule:
    """A rule holding when the principal has every one of `roles`.

    Its "roles" claim is a list of str or one space-separated str:
    `visible_to=require_roles("ops")`.
    """
    if not roles:
        raise ValueError("require_roles needs at least one role, e.g. require_roles('ops')")
    for r in roles:
        if not isinstance(r, str) or not r or " " in r:
            raise ValueError(f"require_roles: a role must be a non-empty str without spaces: {r!r}")
    noun = "the role " if len(roles) == 1 else "the roles "
    return PrincipalRule({"roles": list(roles)}, noun + " ".join(roles))


def require_claims(**claims: Any) -> PrincipalRule:
    """A rule holding when each named claim equals the given value.

    `visible_to=require_claims(tenant="acme")`; `sub` and `client_id` are the Principal's own
    fields, other names its claims. Values must be JSON-compatible.
    """
    if not claims:
        raise ValueError(
            "require_claims needs at least one claim, e.g. require_claims(tenant='acme')"
        )
    import json

    try:
        shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in claims.items())
    except TypeError as e:
        raise TypeError(f"require_claims: claim values must be JSON-compatible ({e})") from None
    return PrincipalRule({"claims": dict(claims)}, "the claim " + shown)


VisibleTo = Callable[[Principal], bool] | PrincipalRule


def engine_rule(visible_to: object, where: str) -> Any:
    """What the engine's registration takes for `visible_to`.

    None, an engine spec dict, or a callable of the engine's principal object (dict) giving a bool.
    """
    if visible_to is None:
        return None
    if isinstance(visible_to, PrincipalRule):
        return visible_to.engine_spec()
    if not callable(visible_to):
        raise TypeError(
            f"{where}: visible_to must be a callable taking a Principal and returning bool, "
            "or require_roles(...) / require_claims(...)"
        )
    rule = visible_to

    def test(data: Mapping[str, Any]) -> bool:
        principal = Principal.from_json(data)
        return principal is not None and bool(rule(principal))

    return test


def rule_requirement(visible_to: object) -> str:
    """The requirement text of a rule ("" for a plain callable)."""
    return visible_to.requirement if isinstance(visible_to, PrincipalRule) else ""
