# zerolab::mem: zero_fill on every path, size and alignment; zero_pages;
# the uninitialized-allocation tools.
zerolab_add_test(zero_test
  SOURCES zero_test.cpp
  LIBS zerolab_mem
  LABELS mem)
zerolab_add_test(uninit_test
  SOURCES uninit_test.cpp
  LIBS zerolab_mem
  LABELS mem)
# zerolab::Arena (zerolab/arena.hpp).
zerolab_add_test(arena_test
  SOURCES arena_test.cpp
  LIBS zerolab_mem
  LABELS mem)
# zerolab::Pool and SimplePool (zerolab/pool.hpp); concurrent: also TSan.
zerolab_add_test(pool_test
  SOURCES pool_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)
# Pool's lock-free chain of rings (detail::PoolChain); concurrent: also TSan.
zerolab_add_test(pool_chain_test
  SOURCES pool_chain_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)
# zerolab::Interner (zerolab/intern.hpp); concurrent: also TSan.
zerolab_add_test(intern_test
  SOURCES intern_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)
