// Checks for the `format` keyword in assertion mode.
#pragma once

#include <string>
#include <string_view>

namespace mcpcxx::schema::detail {

/// A format predicate on a string value.
using format_check = bool (*)(std::string_view);

/// The check for format `name`, or nullptr for formats this validator does not know.
format_check find_format(std::string_view name);

/// True for an ASCII hexadecimal digit.
constexpr bool is_hex_digit(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_date(std::string_view s);                   ///< RFC 3339 full-date
bool is_time(std::string_view s);                   ///< RFC 3339 full-time
bool is_date_time(std::string_view s);              ///< RFC 3339 date-time
bool is_duration(std::string_view s);               ///< RFC 3339 appendix A duration
bool is_hostname(std::string_view s);               ///< RFC 1123 host name
bool is_idn_hostname(std::string_view s);           ///< host name that may contain U-labels
bool is_email(std::string_view s);                  ///< RFC 5321 mailbox
bool is_idn_email(std::string_view s);              ///< RFC 6531 mailbox
bool is_ipv4(std::string_view s);                   ///< dotted quad
bool is_ipv6(std::string_view s);                   ///< RFC 4291 text form
bool is_uri(std::string_view s);                    ///< RFC 3986 URI
bool is_uri_reference(std::string_view s);          ///< RFC 3986 URI-reference
bool is_iri(std::string_view s);                    ///< RFC 3987 IRI
bool is_iri_reference(std::string_view s);          ///< RFC 3987 IRI-reference
bool is_uri_template(std::string_view s);           ///< RFC 6570 template
bool is_uuid(std::string_view s);                   ///< RFC 4122 text form
bool is_json_pointer(std::string_view s);           ///< RFC 6901
bool is_relative_json_pointer(std::string_view s);  ///< draft-handrews relative pointer
bool is_regex(std::string_view s);                  ///< ECMA-262 pattern this validator accepts

/// Decodes base64 (RFC 4648, padding required); false when malformed.
bool base64_decode(std::string_view in, std::string& out);

}  // namespace mcpcxx::schema::detail
