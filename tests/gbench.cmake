# zerolab::gbench (Google Benchmark interop): builds Google Benchmark
# binaries with the adapter (tests/gbench_fixture.cpp, once with
# ZEROLAB_GBENCH_MAIN and once with BENCHMARK_MAIN) and checks their JSON,
# console rows and `zerolab compare` output exactly. Only when Google
# Benchmark was found (src/CMakeLists.txt). Included by tests/CMakeLists.txt.
#
# Example: cmake --build build --target gbench_test && build/tests/gbench_test
if(TARGET zerolab_gbench)
  add_executable(gbench_fixture gbench_fixture.cpp)
  target_link_libraries(gbench_fixture PRIVATE zerolab::gbench zerolab_warnings)
  add_executable(gbench_fixture_plain gbench_fixture.cpp)
  target_compile_definitions(gbench_fixture_plain PRIVATE ZEROLAB_FIXTURE_PLAIN_MAIN=1)
  target_link_libraries(gbench_fixture_plain PRIVATE zerolab::gbench zerolab_warnings)

  zerolab_add_test(gbench_test SOURCES gbench_test.cpp LIBS zerolab_stat zerolab_gbench LABELS gbench)
  target_compile_definitions(gbench_test PRIVATE
    ZEROLAB_GBENCH_FIXTURE="$<TARGET_FILE:gbench_fixture>"
    ZEROLAB_GBENCH_FIXTURE_PLAIN="$<TARGET_FILE:gbench_fixture_plain>")
  add_dependencies(gbench_test gbench_fixture gbench_fixture_plain)

  # The counting mode through the adapter (--benchmark_measure=instructions).
  add_executable(gbench_counting_fixture gbench_counting_fixture.cpp)
  target_link_libraries(gbench_counting_fixture PRIVATE zerolab::gbench zerolab_warnings)
  zerolab_add_test(gbench_counting_test SOURCES gbench_counting_test.cpp LIBS zerolab_bench
    LABELS gbench)
  target_compile_definitions(gbench_counting_test PRIVATE
    ZEROLAB_GBENCH_COUNTING_FIXTURE="$<TARGET_FILE:gbench_counting_fixture>")
  add_dependencies(gbench_counting_test gbench_counting_fixture)
  if(TARGET zerolab)
    target_compile_definitions(gbench_test PRIVATE ZEROLAB_CLI="$<TARGET_FILE:zerolab>")
    add_dependencies(gbench_test zerolab)
  endif()
endif()
