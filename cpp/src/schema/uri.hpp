// URI references (RFC 3986) and JSON pointers (RFC 6901) as JSON Schema uses them for $id/$ref.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::schema::detail {

/// Resolves `ref` against the absolute `base` (RFC 3986 section 5.2); an empty base keeps `ref`.
std::string resolve_uri(std::string_view base, std::string_view ref);

/// `uri` without its fragment (and without a trailing "#").
std::string strip_fragment(std::string_view uri);

/// The fragment of `uri` without "#", percent-decoded; empty when there is none.
std::string fragment_of(std::string_view uri);

/// True when `uri` starts with a scheme ("http:", "urn:", ...).
bool has_scheme(std::string_view uri);

/// Decodes %XX escapes; invalid escapes are kept verbatim.
std::string percent_decode(std::string_view text);

/// Escapes one reference token for a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string pointer_escape(std::string_view token);

/// Splits a JSON pointer ("/a/b~1c") into unescaped tokens; false when malformed.
bool pointer_split(std::string_view pointer, std::vector<std::string>& tokens);

/// Appends "/" + escaped token to `pointer`.
void pointer_append(std::string& pointer, std::string_view token);

}  // namespace mcpcxx::schema::detail
