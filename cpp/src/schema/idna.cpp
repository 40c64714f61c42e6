// Punycode (RFC 3492) and the IDNA2008 rules the test suite exercises.
#include "schema/idna.hpp"

#include <algorithm>
#include <cstdint>

#include "schema/unicode_tables.hpp"

namespace mcpcxx::schema::detail {
namespace {

constexpr std::uint32_t kBase = 36, kTmin = 1, kTmax = 26, kSkew = 38, kDamp = 700;

std::uint32_t adapt(std::uint32_t delta, std::uint32_t points, bool first) {
  delta = first ? delta / kDamp : delta / 2;
  delta += delta / points;
  std::uint32_t k = 0;
  while (delta > ((kBase - kTmin) * kTmax) / 2) {
    delta /= kBase - kTmin;
    k += kBase;
  }
  return k + (kBase - kTmin + 1) * delta / (delta + kSkew);
}

int digit_value(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= '0' && c <= '9') return c - '0' + 26;
  return -1;
}

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }
bool greek(char32_t c) { return in(c, 0x370, 0x3FF) || in(c, 0x1F00, 0x1FFF); }
bool hebrew(char32_t c) { return in(c, 0x590, 0x5FF); }
bool kana_or_han(char32_t c) {
  return (in(c, 0x3040, 0x30FF) && c != 0x30FB) || in(c, 0x3400, 0x4DBF) || in(c, 0x4E00, 0x9FFF) ||
         in(c, 0x20000, 0x2FFFF);
}

// Scripts with cursive joining (Arabic, Syriac, N'Ko, Mandaic, Mongolian, Phags-pa, Manichaean).
bool joining(char32_t c) {
  return in(c, 0x620, 0x64A) || in(c, 0x66E, 0x6D3) || in(c, 0x710, 0x74F) || in(c, 0x750, 0x77F) ||
         in(c, 0x7CA, 0x7EA) || in(c, 0x840, 0x858) || in(c, 0x8A0, 0x8C9) ||
         in(c, 0x1820, 0x1878) || in(c, 0xA840, 0xA872) || in(c, 0x10AC0, 0x10AE4);
}

// RFC 5892 section 2.6 exceptions that are DISALLOWED, plus U+302E/U+302F (Hangul tone marks).
bool disallowed_exception(char32_t c) {
  return c == 0x640 || c == 0x7FA || c == 0x302E || c == 0x302F || in(c, 0x3031, 0x3035) ||
         c == 0x303B;
}

bool contextual_ok(const std::u32string& s, std::size_t i) {
  const char32_t c = s[i];
  const char32_t prev = i > 0 ? s[i - 1] : 0;
  const char32_t next = i + 1 < s.size() ? s[i + 1] : 0;
  switch (c) {
    case 0xB7:
      return prev == 'l' && next == 'l';
    case 0x375:
      return next != 0 && greek(next);
    case 0x5F3:
    case 0x5F4:
      return prev != 0 && hebrew(prev);
    case 0x30FB:
      return std::any_of(s.begin(), s.end(), kana_or_han);
    case 0x200D:
      return prev != 0 && in_ranges(unicode_category("Virama"), prev);
    case 0x200C:
      // Simplified CONTEXTJ: after a virama, or between two letters of a joining script.
      return prev != 0 &&
             (in_ranges(unicode_category("Virama"), prev) || (joining(prev) && joining(next)));
    default:
      return true;
  }
}

bool code_point_ok(char32_t c) {
  if (c == '-' || in(c, 'a', 'z') || in(c, '0', '9')) return true;
  if (c < 0x80 || disallowed_exception(c)) return false;
  if (c == 0xDF || c == 0x3C2 || c == 0x6FD || c == 0x6FE || c == 0xF0B || c == 0x3007) return true;
  if (c == 0xB7 || c == 0x375 || c == 0x5F3 || c == 0x5F4 || c == 0x30FB || c == 0x200C ||
      c == 0x200D)
    return true;
  return in_ranges(unicode_category("L"), c) || in_ranges(unicode_category("M"), c) ||
         in_ranges(unicode_category("Nd"), c);
}

char encode_digit(std::uint32_t d) { return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26)); }

}  // namespace

std::string punycode_encode(const std::u32string& in) {
  std::string out;
  for (char32_t c : in) {
    if (c < 0x80) out.push_back(static_cast<char>(c));
  }
  const std::size_t basic = out.size();
  std::size_t h = basic;
  if (basic > 0) out.push_back('-');
  std::uint64_t n = 128, delta = 0;
  std::uint32_t bias = 72;
  while (h < in.size()) {
    std::uint64_t m = 0x110000;
    for (char32_t c : in) {
      if (c >= n && c < m) m = c;
    }
    delta += (m - n) * (h + 1);
    n = m;
    for (char32_t c : in) {
      if (c < n) ++delta;
      if (c != n) continue;
      std::uint64_t q = delta;
      for (std::uint32_t k = kBase;; k += kBase) {
        const std::uint32_t t = k <= bias ? kTmin : (k >= bias + kTmax ? kTmax : k - bias);
        if (q < t) break;
        out.push_back(encode_digit(static_cast<std::uint32_t>(t + (q - t) % (kBase - t))));
        q = (q - t) / (kBase - t);
      }
      out.push_back(encode_digit(static_cast<std::uint32_t>(q)));
      bias =
          adapt(static_cast<std::uint32_t>(delta), static_cast<std::uint32_t>(h + 1), h == basic);
      delta = 0;
      ++h;
    }
    ++delta;
    ++n;
  }
  return out;
}

bool bidi_label_ok(const std::u32string& s) {
  if (s.empty()) return true;
  const bidi first = bidi_class(s.front());
  const bool rtl = first == bidi::R || first == bidi::AL;
  if (!rtl && first != bidi::L) return false;
  bool en = false, an = false;
  bidi last = first;
  for (char32_t c : s) {
    const bidi b = bidi_class(c);
    const bool common = b == bidi::EN || b == bidi::ES || b == bidi::CS || b == bidi::ET ||
                        b == bidi::ON || b == bidi::BN || b == bidi::NSM;
    const bool ok =
        rtl ? (common || b == bidi::R || b == bidi::AL || b == bidi::AN) : (common || b == bidi::L);
    if (!ok) return false;
    en = en || b == bidi::EN;
    an = an || b == bidi::AN;
    if (b != bidi::NSM) last = b;
  }
  if (rtl)
    return !(en && an) &&
           (last == bidi::R || last == bidi::AL || last == bidi::EN || last == bidi::AN);
  return last == bidi::L || last == bidi::EN;
}

bool is_rtl_label(const std::u32string& s) {
  return std::any_of(s.begin(), s.end(), [](char32_t c) {
    const bidi b = bidi_class(c);
    return b == bidi::R || b == bidi::AL || b == bidi::AN;
  });
}

bool punycode_decode(std::string_view in, std::u32string& out) {
  out.clear();
  const auto dash = in.rfind('-');
  std::size_t pos = 0;
  if (dash != std::string_view::npos) {
    for (std::size_t k = 0; k < dash; ++k) {
      if (static_cast<unsigned char>(in[k]) >= 0x80) return false;
      out.push_back(static_cast<char32_t>(in[k]));
    }
    pos = dash + 1;
  }
  std::uint64_t i = 0, n = 128;
  std::uint32_t bias = 72;
  while (pos < in.size()) {
    const std::uint64_t old_i = i;
    std::uint64_t w = 1;
    for (std::uint32_t k = kBase;; k += kBase) {
      if (pos >= in.size()) return false;
      const int d = digit_value(in[pos++]);
      if (d < 0) return false;
      i += static_cast<std::uint64_t>(d) * w;
      if (i > 0x7FFFFFFF) return false;
      const std::uint32_t t = k <= bias ? kTmin : (k >= bias + kTmax ? kTmax : k - bias);
      if (static_cast<std::uint32_t>(d) < t) break;
      w *= kBase - t;
      if (w > 0x7FFFFFFF) return false;
    }
    const auto points = static_cast<std::uint32_t>(out.size() + 1);
    bias = adapt(static_cast<std::uint32_t>(i - old_i), points, old_i == 0);
    n += i / points;
    i %= points;
    if (n > 0x10FFFF) return false;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(i), static_cast<char32_t>(n));
    ++i;
  }
  return true;
}

bool valid_u_label(const std::u32string& s) {
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  if (s.size() >= 4 && s[2] == '-' && s[3] == '-') return false;
  if (in_ranges(unicode_category("M"), s.front())) return false;
  bool arabic_indic = false, extended = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!code_point_ok(s[i]) || !contextual_ok(s, i)) return false;
    arabic_indic = arabic_indic || in(s[i], 0x660, 0x669);
    extended = extended || in(s[i], 0x6F0, 0x6F9);
  }
  return !(arabic_indic && extended) && punycode_encode(s).size() + 4 <= 63;
}

}  // namespace mcpcxx::schema::detail
