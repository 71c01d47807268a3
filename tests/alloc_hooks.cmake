# Tests for zerolab::alloc_hooks (src/alloc_hooks/): exact allocation counts
# in the interposed, ASan and TSan builds. Labelled "concurrent" so the TSan
# build runs it too. Included by tests/CMakeLists.txt.
#
# Example: cmake --build build --target alloc_hooks_test && build/tests/alloc_hooks_test
zerolab_add_test(alloc_hooks_test SOURCES alloc_hooks_test.cpp LIBS zerolab_alloc_hooks LABELS concurrent)
