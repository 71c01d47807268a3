// Private to zerolab::stat: the few pieces of Go's runtime behaviour that
// benchstat's output depends on bit for bit, reimplemented in C++.
//
//  - math: Go's amd64 Exp (Shibata's method, FMA or not as the CPU allows),
//    Log (fdlibm reduction), Lgamma at integers, Erfc, and moremath's
//    Choose built on them. glibc's functions round differently in the last
//    place, which shows in CSV/JSON output and can flip order-statistic
//    choices in the quantile confidence interval.
//  - text: strconv's shortest 'g' formatting (fmt's %v), 'f' formatting with
//    Go's spelling of NaN and infinities, ParseFloat/Atoi with Go's grammar
//    and errors, UTF-8 decoding and unicode.IsSpace as Go defines them.
//  - sort: Go's pattern-defeating quicksort (sort.Slice), because texttab
//    lays out cells in the order an unstable sort leaves them.
//
// Thread-safety: all functions are pure.
//
// Example:
//   double g = zerolab::stat::internal::go_exp(1.0);   // Go's math.Exp(1)
//   std::string s = zerolab::stat::internal::format_g(1234567.0);  // "1.234567e+06"
#ifndef ZEROLAB_SRC_STAT_GO_COMPAT_HPP_
#define ZEROLAB_SRC_STAT_GO_COMPAT_HPP_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace zerolab::stat::internal {

// ---- math -----------------------------------------------------------------

// Go's math.Exp as the amd64 build computes it (with FMA when the CPU has
// AVX and FMA, as Go decides at run time).
double go_exp(double x);
// go_exp with the FMA path forced on or off, and whether go_exp uses it.
double go_exp_with(double x, bool fma);
bool go_exp_uses_fma();
// Go's math.Log as the amd64 build computes it.
double go_log(double x);
// Go's math.Lgamma(n) for an integer n >= 1.
double go_lgamma_int(int n);
// Go's math.Erfc.
double go_erfc(double x);
// moremath's mathx.Choose(n, k): exact below 21, exp(lchoose) above.
double go_choose(int n, int k);

// ---- numbers as text --------------------------------------------------------

// strconv.FormatFloat(v, 'g', -1, 64), which is also fmt's %v.
std::string format_g(double v);
// Appends fmt's %.{prec}f (with '+' when plus): "+Inf", "-Inf", "NaN".
void append_format_f(std::string& out, double v, int prec, bool plus = false);
std::string format_f(double v, int prec, bool plus = false);

enum class NumError { kNone, kSyntax, kRange };

// ParseFloat(s, 64) of benchfmt's bytesconv copy (with its integer fast path).
NumError parse_go_float(std::string_view s, double& out);
// Atoi of benchfmt's bytesconv copy (int is 64 bits).
NumError parse_go_int(std::string_view s, std::int64_t& out);
const char* num_error_text(NumError e);  // "invalid syntax", "value out of range"

// ---- UTF-8 and unicode -------------------------------------------------------

constexpr char32_t kRuneError = 0xFFFD;

// utf8.DecodeRune: the rune at s[0] and its width (RuneError, 1 when invalid).
std::pair<char32_t, std::size_t> decode_rune(std::string_view s);
// utf8.RuneCountInString.
std::size_t rune_count(std::string_view s);
// unicode.IsSpace.
bool is_space(char32_t r);
// unicode.IsUpper / IsLower for Latin, Greek and Cyrillic (others: false).
bool is_upper(char32_t r);
bool is_lower(char32_t r);
// unicode.IsGraphic, approximately (controls, separators Zl/Zp and format
// characters are not graphic).
bool is_graphic(char32_t r);
// Appends r encoded as UTF-8.
void append_rune(std::string& out, char32_t r);
// strings.TrimSpace(s) == "".
bool is_blank(std::string_view s);

// Concatenates parts (GCC 12 warns falsely about `"x" + std::string`).
inline std::string str_cat(std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts) out.append(p);
  return out;
}

// ---- sort --------------------------------------------------------------------

// Go's sort.Slice (pdqsort) over indices [0, n): less(i, j) and swap(i, j).
template <typename Less, typename Swap>
void go_sort_slice(std::size_t n, Less&& less, Swap&& swap);

// sort.Float64s order: NaNs first, then ascending.
inline bool go_float_less(double a, double b) { return a < b || (a != a && b == b); }

namespace go_sort_detail {

enum class Hint { kUnknown, kIncreasing, kDecreasing };

template <typename Less, typename Swap>
struct Sorter {
  Less& less;
  Swap& swap;

  void insertion_sort(long a, long b) {
    for (long i = a + 1; i < b; ++i) {
      for (long j = i; j > a && less(j, j - 1); --j) swap(j, j - 1);
    }
  }

  void sift_down(long lo, long hi, long first) {
    long root = lo;
    for (;;) {
      long child = 2 * root + 1;
      if (child >= hi) break;
      if (child + 1 < hi && less(first + child, first + child + 1)) ++child;
      if (!less(first + root, first + child)) return;
      swap(first + root, first + child);
      root = child;
    }
  }

  void heap_sort(long a, long b) {
    const long first = a;
    const long hi = b - a;
    for (long i = (hi - 1) / 2; i >= 0; --i) sift_down(i, hi, first);
    for (long i = hi - 1; i >= 0; --i) {
      swap(first, first + i);
      sift_down(0, i, first);
    }
  }

  std::pair<long, bool> partition(long a, long b, long pivot) {
    swap(a, pivot);
    long i = a + 1;
    long j = b - 1;
    while (i <= j && less(i, a)) ++i;
    while (i <= j && !less(j, a)) --j;
    if (i > j) {
      swap(j, a);
      return {j, true};
    }
    swap(i, j);
    ++i;
    --j;
    for (;;) {
      while (i <= j && less(i, a)) ++i;
      while (i <= j && !less(j, a)) --j;
      if (i > j) break;
      swap(i, j);
      ++i;
      --j;
    }
    swap(j, a);
    return {j, false};
  }

  long partition_equal(long a, long b, long pivot) {
    swap(a, pivot);
    long i = a + 1;
    long j = b - 1;
    for (;;) {
      while (i <= j && !less(a, i)) ++i;
      while (i <= j && less(a, j)) --j;
      if (i > j) break;
      swap(i, j);
      ++i;
      --j;
    }
    return i;
  }

  bool partial_insertion_sort(long a, long b) {
    constexpr int kMaxSteps = 5;
    constexpr long kShortestShifting = 50;
    long i = a + 1;
    for (int step = 0; step < kMaxSteps; ++step) {
      while (i < b && !less(i, i - 1)) ++i;
      if (i == b) return true;
      if (b - a < kShortestShifting) return false;
      swap(i, i - 1);
      if (i - a >= 2) {
        for (long j = i - 1; j >= 1; --j) {
          if (!less(j, j - 1)) break;
          swap(j, j - 1);
        }
      }
      if (b - i >= 2) {
        for (long j = i + 1; j < b; ++j) {
          if (!less(j, j - 1)) break;
          swap(j, j - 1);
        }
      }
    }
    return false;
  }

  void break_patterns(long a, long b) {
    const long length = b - a;
    if (length < 8) return;
    std::uint64_t random = static_cast<std::uint64_t>(length);
    const std::uint64_t modulus =
        std::uint64_t{1} << std::bit_width(static_cast<std::uint64_t>(length));
    for (long idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; ++idx) {
      random ^= random << 13;
      random ^= random >> 17;
      random ^= random << 5;
      long other = static_cast<long>(random & (modulus - 1));
      if (other >= length) other -= length;
      swap(idx, a + other);
    }
  }

  void order2(long& a, long& b, int& swaps) {
    if (less(b, a)) {
      ++swaps;
      std::swap(a, b);
    }
  }

  long median(long a, long b, long c, int& swaps) {
    order2(a, b, swaps);
    order2(b, c, swaps);
    order2(a, b, swaps);
    return b;
  }

  std::pair<long, Hint> choose_pivot(long a, long b) {
    constexpr long kShortestNinther = 50;
    constexpr int kMaxSwaps = 4 * 3;
    const long l = b - a;
    int swaps = 0;
    long i = a + l / 4 * 1;
    long j = a + l / 4 * 2;
    long k = a + l / 4 * 3;
    if (l >= 8) {
      if (l >= kShortestNinther) {
        i = median(i - 1, i, i + 1, swaps);
        j = median(j - 1, j, j + 1, swaps);
        k = median(k - 1, k, k + 1, swaps);
      }
      j = median(i, j, k, swaps);
    }
    if (swaps == 0) return {j, Hint::kIncreasing};
    if (swaps == kMaxSwaps) return {j, Hint::kDecreasing};
    return {j, Hint::kUnknown};
  }

  void reverse_range(long a, long b) {
    for (long i = a, j = b - 1; i < j; ++i, --j) swap(i, j);
  }

  void pdqsort(long a, long b, int limit) {
    constexpr long kMaxInsertion = 12;
    bool was_balanced = true;
    bool was_partitioned = true;
    for (;;) {
      const long length = b - a;
      if (length <= kMaxInsertion) {
        insertion_sort(a, b);
        return;
      }
      if (limit == 0) {
        heap_sort(a, b);
        return;
      }
      if (!was_balanced) {
        break_patterns(a, b);
        --limit;
      }
      auto [pivot, hint] = choose_pivot(a, b);
      if (hint == Hint::kDecreasing) {
        reverse_range(a, b);
        pivot = (b - 1) - (pivot - a);
        hint = Hint::kIncreasing;
      }
      if (was_balanced && was_partitioned && hint == Hint::kIncreasing) {
        if (partial_insertion_sort(a, b)) return;
      }
      if (a > 0 && !less(a - 1, pivot)) {
        a = partition_equal(a, b, pivot);
        continue;
      }
      auto [mid, already] = partition(a, b, pivot);
      was_partitioned = already;
      const long left_len = mid - a;
      const long right_len = b - mid;
      const long balance_threshold = length / 8;
      if (left_len < right_len) {
        was_balanced = left_len >= balance_threshold;
        pdqsort(a, mid, limit);
        a = mid + 1;
      } else {
        was_balanced = right_len >= balance_threshold;
        pdqsort(mid + 1, b, limit);
        b = mid;
      }
    }
  }
};

}  // namespace go_sort_detail

template <typename Less, typename Swap>
void go_sort_slice(std::size_t n, Less&& less, Swap&& swap) {
  auto less_l = [&less](long i, long j) {
    return less(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
  };
  auto swap_l = [&swap](long i, long j) {
    swap(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
  };
  go_sort_detail::Sorter<decltype(less_l), decltype(swap_l)> sorter{less_l, swap_l};
  sorter.pdqsort(0, static_cast<long>(n), static_cast<int>(std::bit_width(n)));
}

// sort.Float64s.
template <typename Vec>
void go_sort_floats(Vec& v) {
  go_sort_slice(
      v.size(), [&v](std::size_t i, std::size_t j) { return go_float_less(v[i], v[j]); },
      [&v](std::size_t i, std::size_t j) { std::swap(v[i], v[j]); });
}

}  // namespace zerolab::stat::internal

#endif  // ZEROLAB_SRC_STAT_GO_COMPAT_HPP_
