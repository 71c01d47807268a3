# The harness: end-to-end tests that run bench_fixture as a subprocess, and
# unit tests of its flag parser and name matcher.
add_executable(bench_fixture bench_fixture.cpp)
target_link_libraries(bench_fixture PRIVATE zerolab::bench_main zerolab_warnings)

zerolab_add_test(bench_test SOURCES bench_test.cpp LIBS zerolab_bench LABELS concurrent)
target_compile_definitions(bench_test PRIVATE ZEROLAB_BENCH_FIXTURE="$<TARGET_FILE:bench_fixture>")
add_dependencies(bench_test bench_fixture)

zerolab_add_test(bench_unit_test SOURCES bench_unit_test.cpp LIBS zerolab_bench)

zerolab_add_test(bench_report_test SOURCES bench_report_test.cpp LIBS zerolab_bench)
# The one byte-size grammar (src/text/byte_size.hpp, header-only).
zerolab_add_test(byte_size_test SOURCES byte_size_test.cpp)

# The counting mode (-benchmeasure=instructions): counting_fixture's
# hand-written loops and example_bench run under callgrind.
add_executable(counting_fixture counting_fixture.cpp)
target_link_libraries(counting_fixture PRIVATE zerolab::bench_main zerolab_warnings)
zerolab_add_test(counting_test SOURCES counting_test.cpp LIBS zerolab_bench)
target_compile_definitions(counting_test PRIVATE
  ZEROLAB_COUNTING_FIXTURE="$<TARGET_FILE:counting_fixture>")
add_dependencies(counting_test counting_fixture)
# run_benchmark's counting mode, in a child it starts under callgrind.
add_executable(counting_run_benchmark_fixture counting_run_benchmark_fixture.cpp)
target_link_libraries(counting_run_benchmark_fixture PRIVATE zerolab_bench zerolab_warnings)
target_include_directories(counting_run_benchmark_fixture PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(counting_test PRIVATE
  ZEROLAB_COUNTING_RUN_BENCHMARK_FIXTURE="$<TARGET_FILE:counting_run_benchmark_fixture>")
add_dependencies(counting_test counting_run_benchmark_fixture)
if(TARGET example_bench)
  target_compile_definitions(counting_test PRIVATE
    ZEROLAB_EXAMPLE_BENCH="$<TARGET_FILE:example_bench>")
  add_dependencies(counting_test example_bench)
endif()
