// page_heap_category and the PageHeapErrc messages (zerolab/page_heap.hpp).
#include <string>
#include <system_error>

#include "zerolab/page_heap.hpp"

namespace zerolab {
namespace {

class PageHeapCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "zerolab.page_heap"; }
  std::string message(int value) const override {
    switch (static_cast<PageHeapErrc>(value)) {
      case PageHeapErrc::kTooSmall:
        return "request below PageHeap's 64 KiB minimum";
      case PageHeapErrc::kTooLarge:
        return "request too large (overflows when rounded to pages)";
      case PageHeapErrc::kOutOfMemory:
        return "mapping a new arena failed";
      case PageHeapErrc::kNullPointer:
        return "null pointer";
      case PageHeapErrc::kUnknownPointer:
        return "pointer not handed out by this PageHeap";
      case PageHeapErrc::kInteriorPointer:
        return "pointer into the middle of a span";
      case PageHeapErrc::kDoubleFree:
        return "span already free (double free)";
      case PageHeapErrc::kSizeMismatch:
        return "size does not match the span's";
      case PageHeapErrc::kBadAlignment:
        return "alignment above the page size";
      case PageHeapErrc::kReleaseFailed:
        return "madvise(MADV_DONTNEED) failed";
    }
    return "unknown PageHeap error";
  }
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<PageHeapErrc>(value)) {
      case PageHeapErrc::kOutOfMemory:
        return std::errc::not_enough_memory;
      case PageHeapErrc::kTooLarge:
        return std::errc::value_too_large;
      default:
        return std::errc::invalid_argument;
    }
  }
};

}  // namespace

const std::error_category& page_heap_category() noexcept {
  static const PageHeapCategory category;
  return category;
}

std::error_code make_error_code(PageHeapErrc e) noexcept {
  return {static_cast<int>(e), page_heap_category()};
}

}  // namespace zerolab
