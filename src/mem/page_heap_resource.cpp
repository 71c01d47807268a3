// PageHeapResource, the std::pmr adapter over PageHeap (zerolab/page_heap.hpp).
#include <new>
#include <system_error>

#include "zerolab/page_heap.hpp"

namespace zerolab {

PageHeapResource::PageHeapResource(PageHeap& heap, Zero zero, std::pmr::memory_resource* upstream)
    : heap_(heap), zero_(zero), upstream_(upstream) {}

void* PageHeapResource::do_allocate(std::size_t bytes, std::size_t alignment) {
  if (bytes < PageHeap::kMinBytes) return upstream_->allocate(bytes, alignment);
  if (alignment > PageHeap::kPageBytes) {
    throw std::system_error(PageHeapErrc::kBadAlignment,
                            "PageHeapResource: alignment " + std::to_string(alignment));
  }
  std::error_code error;
  void* p = heap_.try_allocate(bytes, zero_, error);
  if (p != nullptr) return p;
  if (error == PageHeapErrc::kOutOfMemory) throw std::bad_alloc();
  throw std::system_error(error, "PageHeapResource: " + std::to_string(bytes) + " bytes");
}

void PageHeapResource::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  if (bytes < PageHeap::kMinBytes) {
    upstream_->deallocate(p, bytes, alignment);
    return;
  }
  heap_.deallocate(p, bytes);
}

bool PageHeapResource::do_is_equal(const std::pmr::memory_resource& other) const noexcept {
  const auto* o = dynamic_cast<const PageHeapResource*>(&other);
  return o != nullptr && &o->heap_ == &heap_ && o->upstream_->is_equal(*upstream_);
}

}  // namespace zerolab
