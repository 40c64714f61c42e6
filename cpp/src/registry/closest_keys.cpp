// Suggestions for an unknown name (`didYouMean`): the registered keys closest by edit distance.
#include <algorithm>
#include <array>
#include <cstdint>

#include "registry/registry.hpp"

namespace mcpcxx::detail {

namespace {

// One bit per pattern position for every byte value: the pattern's match vectors.
using match_vectors = std::array<std::uint64_t, 256>;

constexpr std::size_t word_bits = 64;

void set_pattern(match_vectors& peq, std::string_view pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    peq[static_cast<unsigned char>(pattern[i])] |= std::uint64_t{1} << i;
  }
}

void clear_pattern(match_vectors& peq, std::string_view pattern) {
  for (char c : pattern) peq[static_cast<unsigned char>(c)] = 0;
}

// Levenshtein distance of a pattern of 1-64 characters (given by its match vectors) and `text`,
// by Myers' bit-vector algorithm in Hyyrö's edit-distance form: one column of the distance
// matrix is a machine word, so the comparison is a single pass over `text`. An unknown name is
// compared with every registered one, and the matrix form made that pass dominate the reply.
std::size_t bit_parallel_distance(const match_vectors& peq, std::size_t m, std::string_view text) {
  std::uint64_t vp = m == word_bits ? ~std::uint64_t{0} : (std::uint64_t{1} << m) - 1;
  std::uint64_t vn = 0;
  const std::uint64_t last = std::uint64_t{1} << (m - 1);
  std::size_t d = m;
  for (char c : text) {
    const std::uint64_t eq = peq[static_cast<unsigned char>(c)];
    const std::uint64_t d0 = (((eq & vp) + vp) ^ vp) | eq | vn;
    std::uint64_t hp = vn | ~(d0 | vp);
    std::uint64_t hn = vp & d0;
    if ((hp & last) != 0) ++d;
    if ((hn & last) != 0) --d;
    hp = (hp << 1) | 1;  // the matrix's first row rises by one per text character
    hn <<= 1;
    vp = hn | ~(d0 | hp);
    vn = hp & d0;
  }
  return d;
}

// The matrix form, for the rare pair where both strings exceed a word (only prompt names can).
std::size_t matrix_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Levenshtein distance of the probe and a key. `probe_peq` holds the probe's match vectors when
// the probe fits a word; `scratch` is all zeros on entry and on return.
std::size_t distance(std::string_view probe, const match_vectors* probe_peq, std::string_view key,
                     match_vectors& scratch) {
  if (probe.empty()) return key.size();
  if (key.empty()) return probe.size();
  if (probe_peq != nullptr) return bit_parallel_distance(*probe_peq, probe.size(), key);
  if (key.size() > word_bits) return matrix_distance(probe, key);
  set_pattern(scratch, key);
  const std::size_t d = bit_parallel_distance(scratch, key.size(), probe);
  clear_pattern(scratch, key);
  return d;
}

}  // namespace

std::vector<std::string> closest_keys(std::string_view name, const std::vector<std::string>& keys,
                                      std::size_t max) {
  const std::string_view probe = name.substr(0, 128);  // bound the work on hostile input
  match_vectors probe_peq{};
  match_vectors scratch{};
  const bool probe_fits = probe.size() <= word_bits;
  if (probe_fits) set_pattern(probe_peq, probe);
  std::vector<std::pair<std::size_t, std::string_view>> scored;
  for (const auto& k : keys) {
    const bool related = k.find(probe) != std::string::npos || probe.find(k) != std::string::npos;
    const std::size_t limit = std::max<std::size_t>(2, k.size() / 2);
    const std::size_t longer = std::max(probe.size(), k.size());
    if (!related && longer - std::min(probe.size(), k.size()) > limit) continue;  // too far apart
    // A substring relation counts as distance 1 (0 only for the name itself).
    const std::size_t d = related ? (k == probe ? 0 : 1)
                                  : distance(probe, probe_fits ? &probe_peq : nullptr, k, scratch);
    if (d <= limit) scored.emplace_back(d, k);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.emplace_back(scored[i].second);
  return out;
}

}  // namespace mcpcxx::detail
