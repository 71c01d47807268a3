# The harness: end-to-end tests that run bench_fixture as a subprocess, and
# unit tests of its flag parser and name matcher.
add_executable(bench_fixture bench_fixture.cpp)
target_link_libraries(bench_fixture PRIVATE zerolab::bench_main zerolab_warnings)

zerolab_add_test(bench_test SOURCES bench_test.cpp LIBS zerolab_bench LABELS concurrent)
target_compile_definitions(bench_test PRIVATE ZEROLAB_BENCH_FIXTURE="$<TARGET_FILE:bench_fixture>")
add_dependencies(bench_test bench_fixture)

zerolab_add_test(bench_unit_test SOURCES bench_unit_test.cpp LIBS zerolab_bench)

zerolab_add_test(bench_report_test SOURCES bench_report_test.cpp LIBS zerolab_bench)
# The one byte-size grammar (src/format/byte_size.hpp, header-only).
zerolab_add_test(byte_size_test SOURCES byte_size_test.cpp)
