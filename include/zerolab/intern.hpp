// zerolab/intern.hpp — one string per key, made once, shared by all threads.
//
// Interner<Key> maps a key (an int64 OID, say) to a string made the first
// time the key is seen, and hands out a std::string_view that stays valid
// for the Interner's life (Go's sync.Map + unique.Handle memoization).
// Lookups of known keys take no lock and
// allocate nothing: the table is an open-addressing array of atomic
// pointers read with acquire loads. A miss takes a mutex, checks again,
// makes the string and publishes it; when the table passes half full a
// doubled copy is published and the old array is kept (not freed) until the
// Interner dies, so a reader still on it is never left dangling. Entries are
// never removed.
//
// Thread-safety: intern() and find() are safe from any number of threads.
// make_string runs under the Interner's mutex (keep it short; it must not
// call back into the same Interner).
//
// Example:
//   zerolab::Interner<std::int64_t> oids;
//   std::string_view s = oids.intern(n, [](std::int64_t k) { return format_oid(k); });
#ifndef ZEROLAB_INTERN_HPP_
#define ZEROLAB_INTERN_HPP_

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zerolab {

template <typename Key, typename Hash = std::hash<Key>>
class Interner {
 public:
  // REQUIRES: initial_capacity is a power of two.
  explicit Interner(std::size_t initial_capacity = 1024) {
    tables_.push_back(std::make_unique<Table>(initial_capacity < 8 ? 8 : initial_capacity));
    table_.store(tables_.back().get(), std::memory_order_release);
  }
  Interner(const Interner&) = delete;
  Interner& operator=(const Interner&) = delete;

  // The string for key, made with make_string(key) the first time.
  template <typename MakeString>
  std::string_view intern(const Key& key, MakeString&& make_string) {
    if (const Node* n = lookup(table_.load(std::memory_order_acquire), key)) return n->value;
    return intern_slow(key, std::forward<MakeString>(make_string));
  }

  // The string for key if it was interned, else an empty view and false.
  std::pair<std::string_view, bool> find(const Key& key) const {
    if (const Node* n = lookup(table_.load(std::memory_order_acquire), key)) {
      return {n->value, true};
    }
    std::lock_guard<std::mutex> g(mu_);  // the key may sit in a newer table
    if (const Node* n = lookup(table_.load(std::memory_order_acquire), key)) {
      return {n->value, true};
    }
    return {std::string_view(), false};
  }

  // Keys interned so far.
  std::size_t size() const {
    std::lock_guard<std::mutex> g(mu_);
    return nodes_.size();
  }

 private:
  struct Node {
    Key key;
    std::string value;
  };
  struct Table {
    explicit Table(std::size_t cap)
        : mask(cap - 1), slots(std::make_unique<std::atomic<const Node*>[]>(cap)) {}
    std::size_t mask;
    std::unique_ptr<std::atomic<const Node*>[]> slots;
  };

  static const Node* lookup(const Table* t, const Key& key) {
    for (std::size_t i = Hash{}(key)&t->mask;; i = (i + 1) & t->mask) {
      const Node* n = t->slots[i].load(std::memory_order_acquire);
      if (n == nullptr) return nullptr;
      if (n->key == key) return n;
    }
  }

  static void place(Table* t, const Node* n) {
    std::size_t i = Hash{}(n->key) & t->mask;
    while (t->slots[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & t->mask;
    t->slots[i].store(n, std::memory_order_release);
  }

  template <typename MakeString>
  std::string_view intern_slow(const Key& key, MakeString&& make_string) {
    std::lock_guard<std::mutex> g(mu_);
    Table* t = table_.load(std::memory_order_relaxed);
    if (const Node* n = lookup(t, key)) return n->value;
    auto node = std::make_unique<Node>(Node{key, std::string(make_string(key))});
    if ((nodes_.size() + 1) * 2 > t->mask + 1) {
      auto bigger = std::make_unique<Table>((t->mask + 1) * 2);
      for (const auto& old : nodes_) place(bigger.get(), old.get());
      t = bigger.get();
      tables_.push_back(std::move(bigger));
      table_.store(t, std::memory_order_release);
    }
    const Node* n = node.get();
    nodes_.push_back(std::move(node));
    place(t, n);
    return n->value;
  }

  std::atomic<Table*> table_{nullptr};
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Table>> tables_;  // every table ever published
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace zerolab

#endif  // ZEROLAB_INTERN_HPP_
