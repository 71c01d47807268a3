# zerolab::PageHeap: exact behaviour and accounting, a randomized property
# test, mmap-failure injection, bad input, the pmr adapter; and a
# multi-threaded stress test, labelled concurrent so it also runs under TSan.
zerolab_add_test(page_heap_test
  SOURCES page_heap_test.cpp
  LIBS zerolab_mem
  LABELS mem)
zerolab_add_test(page_heap_concurrent_test
  SOURCES page_heap_concurrent_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)  # one joined label, "mem,concurrent": also runs under TSan
zerolab_add_test(plain_unlock_mutex_test
  SOURCES plain_unlock_mutex_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)  # PageHeap's lock: also runs under TSan
