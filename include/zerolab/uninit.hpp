// zerolab/uninit.hpp — allocation without the zeroing nobody asked for.
//
// std::vector<T>(n) and resize(n) value-initialize: for trivial T that is a
// memset of every byte, even when the next line overwrites them all. These
// tools default-initialize instead: trivial elements are left as they are, and
// every other T is constructed exactly as before.
//
//   default_init_allocator<T, A>  an allocator adaptor whose construct(p)
//                                 default-initializes (`new (p) T`);
//   uninit_vector<T>              std::vector<T, default_init_allocator<T>>;
//   make_uninit<T[]>(n)           std::make_unique_for_overwrite<T[]>(n).
//
// Reading an element that was default-initialized and never written is
// undefined behaviour (its value is indeterminate; even comparing it is
// UB, except copying it as unsigned char / std::byte). Write before you
// read. zerolab's own tests look at such bytes only after an empty asm
// statement that claims to have written them (`asm volatile("" : : "r"(p)
// : "memory")`), so the compiler treats the bytes as defined, and then copy
// them out as unsigned char.
//
// Thread-safety: as the underlying allocator (std::allocator: any thread).
//
// Example:
//   zerolab::uninit_vector<char> out;
//   out.resize(total);                       // no memset
//   std::memcpy(out.data(), a.data(), a.size());
//   auto buf = zerolab::make_uninit<std::byte[]>(1 << 20);  // no memset
#ifndef ZEROLAB_UNINIT_HPP_
#define ZEROLAB_UNINIT_HPP_

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace zerolab {

// An allocator adaptor: allocation and deallocation are A's; construct(p)
// without arguments default-initializes; construct with arguments is A's.
template <class T, class A = std::allocator<T>>
class default_init_allocator : public A {
  using traits = std::allocator_traits<A>;

 public:
  using value_type = T;
  template <class U>
  struct rebind {
    using other = default_init_allocator<U, typename traits::template rebind_alloc<U>>;
  };

  using A::A;
  default_init_allocator() = default;
  template <class U, class B>
  default_init_allocator(
      const default_init_allocator<U, B>& other) noexcept  // NOLINT(google-explicit-constructor)
      : A(static_cast<const B&>(other)) {}

  // Default-initializes *p: trivial U is left untouched.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    traits::construct(static_cast<A&>(*this), p, std::forward<Args>(args)...);
  }
};

// A vector whose resize(n) and vector(n) leave trivial elements uninitialized.
template <class T>
using uninit_vector = std::vector<T, default_init_allocator<T>>;

// A unique_ptr to n default-initialized elements (trivial ones untouched).
// REQUIRES: T is an array of unknown bound, T = U[].
template <class T>
requires std::is_unbounded_array_v<T> std::unique_ptr<T> make_uninit(std::size_t n) {
  return std::make_unique_for_overwrite<T>(n);
}

}  // namespace zerolab

#endif  // ZEROLAB_UNINIT_HPP_
