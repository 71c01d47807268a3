# zerolab::stat: statistics checked against independently computed values,
# the readers, filters/projections, tables, and golden CLI tests whose
# expected output is benchstat v2's own (tests/data/benchstat, tests/data/stat).
zerolab_add_test(stat_test
  SOURCES
    stat_math_test.cpp
    stat_stats_test.cpp
    stat_units_test.cpp
    stat_reader_test.cpp
    stat_filter_test.cpp
    stat_table_test.cpp
    stat_go_regex_test.cpp
  LIBS zerolab_stat
  LABELS stat)
target_compile_definitions(stat_test PRIVATE ZEROLAB_STAT_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")

# The Google Benchmark JSON reader parses on a stack of its own
# (src/stat/fiber.hpp): its tests run under TSan too.
zerolab_add_test(stat_json_test
  SOURCES
    stat_json_reader_test.cpp
    stat_fiber_test.cpp
  LIBS zerolab_stat
  LABELS stat concurrent)

if(TARGET zerolab)
  zerolab_add_test(stat_golden_test
    SOURCES stat_golden_test.cpp
    LIBS zerolab_stat
    LABELS stat)
  target_compile_definitions(stat_golden_test PRIVATE
    ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
    ZEROLAB_STAT_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
  add_dependencies(stat_golden_test zerolab)
endif()
