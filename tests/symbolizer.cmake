# The profiles' symbolizer (src/profile/symbolizer.hpp) and its libdw line
# resolver (src/profile/libdw/): symbolizer_test compares the resolver's
# frames with addr2line's on an -O2 -g program with inlined calls, and
# feeds it truncated and corrupted ELF files. The program is never
# sanitized: its code is only read.
add_executable(symbolizer_inline_fixture symbolizer/inline_fixture.cpp)
target_compile_options(symbolizer_inline_fixture PRIVATE -O2 -g -fno-sanitize=all)
target_link_options(symbolizer_inline_fixture PRIVATE -fno-sanitize=all)

# Without -g: named from its symbol table (C names and a mangled one).
add_executable(symbolizer_c_names_fixture symbolizer/c_names_fixture.cpp)
target_compile_options(symbolizer_c_names_fixture PRIVATE -O1 -g0 -fno-sanitize=all)
target_link_options(symbolizer_c_names_fixture PRIVATE -fno-sanitize=all)

zerolab_add_test(symbolizer_test SOURCES symbolizer_test.cpp LIBS zerolab_libdw_lines
  LABELS profile)
add_dependencies(symbolizer_test symbolizer_inline_fixture symbolizer_c_names_fixture)
target_compile_definitions(symbolizer_test PRIVATE
  SYMBOLIZER_FIXTURE="$<TARGET_FILE:symbolizer_inline_fixture>"
  SYMBOLIZER_C_NAMES_FIXTURE="$<TARGET_FILE:symbolizer_c_names_fixture>"
  SYMBOLIZER_FIXTURE_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/symbolizer/inline_fixture.cpp")
