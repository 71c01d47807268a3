# Tests for zerolab::io (include/zerolab/copy.hpp, src/io/): data integrity
# for every pair of descriptor kinds, faults with exact byte counts, bad
# input, zero allocations after warm-up. The signal test is labelled
# "concurrent" so the TSan build runs it too. Included by tests/CMakeLists.txt.
#
# Example: cmake --build build --target copy_integrity_test && build/tests/copy_integrity_test
zerolab_add_test(copy_integrity_test SOURCES copy_integrity_test.cpp LIBS zerolab_io LABELS io)
# plan_copy's rule, the path each pair takes, CopyOptions::path overrides.
zerolab_add_test(copy_path_test SOURCES copy_path_test.cpp LIBS zerolab_io LABELS io)
# File → file copies of 1 MiB and more under a profile that says splice:
# splice where copy_file_range is the kernel's splice (ext2/3/4, tmpfs), on
# /tmp and /dev/shm.
zerolab_add_test(copy_splice_file_test SOURCES copy_splice_file_test.cpp
  LIBS zerolab_io zerolab_machine LABELS io)
# copy_fd's per-thread hint: the descriptor numbers of the last file → file
# copy, renumbered to name other things between copies.
zerolab_add_test(copy_hint_test SOURCES copy_hint_test.cpp LIBS zerolab_io LABELS io)
# Small file → file copies on the read/write path (ZEROLAB_COPY_SMALL_FILE).
zerolab_add_test(copy_small_file_test SOURCES copy_small_file_test.cpp LIBS zerolab_io LABELS io)
# Unknown values of ZEROLAB_COPY_* named, and the CLI's warning.
zerolab_add_test(copy_env_test SOURCES copy_env_test.cpp LIBS zerolab_io LABELS io)
target_compile_definitions(copy_env_test PRIVATE ZEROLAB_CLI="$<TARGET_FILE:zerolab>")
add_dependencies(copy_env_test zerolab)
# copy_fd's path per pair kind from a machine profile, the same in every process.
zerolab_add_test(copy_profile_test SOURCES copy_profile_test.cpp LIBS zerolab_io zerolab_machine
  LABELS io)
# copy_fd on a pair prepared once (prepare_copy).
zerolab_add_test(copy_prepared_test SOURCES copy_prepared_test.cpp LIBS zerolab_io LABELS io)
zerolab_add_test(copy_fault_test SOURCES copy_fault_test.cpp LIBS zerolab_io LABELS io)
# "concurrent" alone: a label list reaches only its first label unless
# zerolab_add_test escapes it.
zerolab_add_test(copy_signal_test SOURCES copy_signal_test.cpp LIBS zerolab_io LABELS concurrent)
zerolab_add_test(copy_alloc_test SOURCES copy_alloc_test.cpp
  LIBS zerolab_io zerolab_bench zerolab_alloc_hooks LABELS io)
