// Go's sort.Slice (pattern-defeating quicksort) and sort.Float64s order,
// reproduced step for step: benchstat's text tables lay out cells in the
// order an unstable sort leaves them, so std::sort would reorder equal keys.
//
// Thread-safety: the functions touch only what their callbacks touch.
//
// Example:
//   std::vector<double> v{3, NAN, 1};
//   zerolab::internal::go_sort_floats(v);  // {NaN, 1, 3}
#ifndef ZEROLAB_SRC_STAT_GO_SORT_HPP_
#define ZEROLAB_SRC_STAT_GO_SORT_HPP_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace zerolab::internal {

// Go's sort.Slice (pdqsort) over indices [0, n): less(i, j) and swap(i, j).
template <typename Less, typename Swap>
void go_sort_slice(std::size_t n, Less&& less, Swap&& swap);

// sort.Float64s order: NaNs first, then ascending.
inline bool go_float_less(double a, double b) {
  return a < b || (a != a && b == b);
}

namespace go_sort_impl {

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
    const std::uint64_t modulus = std::uint64_t{1}
                                  << std::bit_width(static_cast<std::uint64_t>(length));
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

}  // namespace go_sort_impl

template <typename Less, typename Swap>
void go_sort_slice(std::size_t n, Less&& less, Swap&& swap) {
  auto less_l = [&less](long i, long j) {
    return less(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
  };
  auto swap_l = [&swap](long i, long j) {
    swap(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
  };
  go_sort_impl::Sorter<decltype(less_l), decltype(swap_l)> sorter{less_l, swap_l};
  sorter.pdqsort(0, static_cast<long>(n), static_cast<int>(std::bit_width(n)));
}

// sort.Float64s.
template <typename Vec>
void go_sort_floats(Vec& v) {
  go_sort_slice(
      v.size(), [&v](std::size_t i, std::size_t j) { return go_float_less(v[i], v[j]); },
      [&v](std::size_t i, std::size_t j) { std::swap(v[i], v[j]); });
}

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_STAT_GO_SORT_HPP_
