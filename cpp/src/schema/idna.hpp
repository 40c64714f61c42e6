// IDNA2008 label checks (RFC 5890-5893 subset) used by the hostname and idn-hostname formats.
#pragma once

#include <string>
#include <string_view>

namespace mcpcxx::schema::detail {

/// Decodes the Punycode part of an A-label (text after "xn--"); false when malformed.
bool punycode_decode(std::string_view in, std::u32string& out);

/// Encodes code points as Punycode (without the "xn--" prefix).
std::string punycode_encode(const std::u32string& in);

/// RFC 5893 Bidi rule for one label of a Bidi domain name.
bool bidi_label_ok(const std::u32string& label);

/// True when `label` has a right-to-left character (Bidi class R, AL or AN).
bool is_rtl_label(const std::u32string& label);

/// True when the U-label `cps` is valid: PVALID-like code points, contextual rules for joiners
/// and special punctuation, no leading combining mark, no "--" in positions 3-4.
bool valid_u_label(const std::u32string& cps);

}  // namespace mcpcxx::schema::detail
