# The results store (src/store/): every test runs against SQLite and against
# a real PostgreSQL server, started for them by scripts/pg-test-server.sh as
# a ctest fixture (initdb in /tmp as an unprivileged user, a Unix socket
# only) and stopped after them even when they fail. Label "store".
#   ctest --preset release -L store
string(MD5 zerolab_pg_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${zerolab_pg_hash}" 0 12 zerolab_pg_hash)
set(ZEROLAB_PG_TEST_DIR /tmp/zerolab-pg-${zerolab_pg_hash})
add_test(NAME store_pg_server_start
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/pg-test-server.sh start ${ZEROLAB_PG_TEST_DIR})
add_test(NAME store_pg_server_stop
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/pg-test-server.sh stop ${ZEROLAB_PG_TEST_DIR})
set_tests_properties(store_pg_server_start PROPERTIES FIXTURES_SETUP store_pg LABELS store)
set_tests_properties(store_pg_server_stop PROPERTIES FIXTURES_CLEANUP store_pg LABELS store)

add_executable(store_test store_test.cpp)
target_include_directories(store_test PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
# zerolab_lab: the lab test counts an experiment's claims from the catalog.
target_link_libraries(store_test PRIVATE zerolab_store zerolab_lab zerolab_alloc_hooks PkgConfig::LIBPQ GTest::gtest
                      GTest::gtest_main zerolab_warnings)
target_compile_definitions(store_test PRIVATE
  ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
  ZEROLAB_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data"
  ZEROLAB_PG_TEST_DIR="${ZEROLAB_PG_TEST_DIR}")
add_dependencies(store_test zerolab)
gtest_discover_tests(store_test PROPERTIES LABELS store FIXTURES_REQUIRED store_pg DISCOVERY_TIMEOUT 60
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")

# The store under concurrency and damage (tests/store_concurrency_test.cpp):
# a reader beside a writer, one add's files in order, eight processes on a
# new store, damaged rows, FIFOs. Label "concurrent": run under TSan too.
add_executable(store_concurrency_test store_concurrency_test.cpp)
target_include_directories(store_concurrency_test PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(store_concurrency_test PRIVATE zerolab_store PkgConfig::LIBPQ Threads::Threads GTest::gtest
                      GTest::gtest_main zerolab_warnings)
target_compile_definitions(store_concurrency_test PRIVATE
  ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
  ZEROLAB_PG_TEST_DIR="${ZEROLAB_PG_TEST_DIR}")
add_dependencies(store_concurrency_test zerolab)
gtest_discover_tests(store_concurrency_test PROPERTIES LABELS "store,concurrent" FIXTURES_REQUIRED store_pg
  DISCOVERY_TIMEOUT 60 SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")

# zerolab lab --save / --baseline on the store (tests/store_baseline_test.cpp).
add_executable(store_baseline_test store_baseline_test.cpp)
target_include_directories(store_baseline_test PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(store_baseline_test PRIVATE zerolab_store zerolab_lab zerolab_alloc_hooks PkgConfig::LIBPQ
                      GTest::gtest GTest::gtest_main zerolab_warnings)
target_compile_definitions(store_baseline_test PRIVATE
  ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
  ZEROLAB_PG_TEST_DIR="${ZEROLAB_PG_TEST_DIR}")
add_dependencies(store_baseline_test zerolab)
gtest_discover_tests(store_baseline_test PROPERTIES LABELS store FIXTURES_REQUIRED store_pg DISCOVERY_TIMEOUT 60
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")

# Many writers at once (tests/store_load_test.cpp): 8 processes x 200 runs x
# 2,000 results into each engine, about a minute on 2 cores. Release build
# only (labels "store" and "load"; run alone so it does not starve others).
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  add_executable(store_load_test store_load_test.cpp)
  target_include_directories(store_load_test PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(store_load_test PRIVATE zerolab_store PkgConfig::LIBPQ GTest::gtest GTest::gtest_main
    zerolab_warnings)
  target_compile_definitions(store_load_test PRIVATE
    ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
    ZEROLAB_PG_TEST_DIR="${ZEROLAB_PG_TEST_DIR}")
  gtest_discover_tests(store_load_test PROPERTIES LABELS "store,load" FIXTURES_REQUIRED store_pg
    RUN_SERIAL TRUE TIMEOUT 900 DISCOVERY_TIMEOUT 60 SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endif()

# `zerolab history -format html` in headless Chromium: four runs of the
# memclr-threshold experiment stored, one plot per benchmark (80 in sec/op).
include(${PROJECT_SOURCE_DIR}/tests/browser/browser_test.cmake)
set(zerolab_history_db ${CMAKE_BINARY_DIR}/browser/history.db)
set(zerolab_report_data ${PROJECT_SOURCE_DIR}/tests/data/report)
set(zerolab_history_add $<TARGET_FILE:zerolab> store add --store sqlite:${zerolab_history_db})
string(REPLACE ";" " " zerolab_history_add "${zerolab_history_add}")
zerolab_add_browser_test(browser_history_html
  GENERATOR_COMMAND /bin/sh -c
    "rm -f ${zerolab_history_db} ${zerolab_history_db}-wal ${zerolab_history_db}-shm && ${zerolab_history_add} --label commit=a ${zerolab_report_data}/memclr_old.txt >/dev/null && ${zerolab_history_add} --label commit=b ${zerolab_report_data}/memclr_new.txt >/dev/null && ${zerolab_history_add} --label commit=c ${zerolab_report_data}/memclr_old.txt >/dev/null && ${zerolab_history_add} --label commit=d ${zerolab_report_data}/memclr_new.txt >/dev/null && $<TARGET_FILE:zerolab> history --store sqlite:${zerolab_history_db} -filter .unit:sec/op -format html -o ${CMAKE_BINARY_DIR}/browser/browser_history_html.html"
  MIN_PLOTS 80)

# `zerolab store matrix -format html` in headless Chromium: a grid, no plots.
set(zerolab_matrix_db ${CMAKE_BINARY_DIR}/browser/matrix.db)
zerolab_add_browser_test(browser_store_matrix_html
  GENERATOR_COMMAND /bin/sh -c
    "rm -f ${zerolab_matrix_db} ${zerolab_matrix_db}-wal ${zerolab_matrix_db}-shm && $<TARGET_FILE:zerolab> lab --quick merge -o ${CMAKE_BINARY_DIR}/browser/matrix_lab --store sqlite:${zerolab_matrix_db} >/dev/null || true && $<TARGET_FILE:zerolab> store matrix --store sqlite:${zerolab_matrix_db} -format html -o ${CMAKE_BINARY_DIR}/browser/browser_store_matrix_html.html"
  MIN_PLOTS 0
  TIMEOUT 300)
