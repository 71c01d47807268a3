# zerolab waste's views: call stacks and allocation wrappers, the
# per-process table, `zerolab waste diff` (golden files in
# tests/data/waste_diff/), and the HTML page in headless Chromium.
add_executable(waste_views_fixture waste/waste_views_fixture.c)
target_compile_options(waste_views_fixture PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(waste_views_fixture PRIVATE -fno-sanitize=all)
target_link_libraries(waste_views_fixture PRIVATE Threads::Threads)
# The same program stripped (no .symtab, no debug info), with its global
# functions exported (-rdynamic): wrappers are named from .dynsym alone.
add_executable(waste_views_fixture_stripped waste/waste_views_fixture.c)
target_compile_options(waste_views_fixture_stripped PRIVATE -O0 -g0 -fno-omit-frame-pointer
  -fno-sanitize=all)
target_link_options(waste_views_fixture_stripped PRIVATE -fno-sanitize=all -rdynamic -s)
target_link_libraries(waste_views_fixture_stripped PRIVATE Threads::Threads)

find_package(nlohmann_json 3 REQUIRED)
zerolab_add_test(waste_views_test SOURCES waste_views_test.cpp
  LIBS zerolab_waste_analysis nlohmann_json::nlohmann_json LABELS waste)
add_dependencies(waste_views_test zerolab zerolab_waste waste_views_fixture waste_views_fixture_stripped)
target_compile_definitions(waste_views_test PRIVATE
  ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
  WASTE_VIEWS_FIXTURE="$<TARGET_FILE:waste_views_fixture>"
  WASTE_VIEWS_FIXTURE_STRIPPED="$<TARGET_FILE:waste_views_fixture_stripped>"
  WASTE_VIEWS_FIXTURE_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/waste/waste_views_fixture.c"
  WASTE_DIFF_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/waste_diff")

# The HTML report of a run with every view (wrappers, a fresh-page fill,
# a child that execs): an icicle graph of bytes and one of estimated time
# per kind, the per-process table, no console message.
include(${CMAKE_CURRENT_LIST_DIR}/browser/browser_test.cmake)
zerolab_add_browser_test(browser_waste_html
  GENERATOR_COMMAND zerolab waste --format html -o ${CMAKE_BINARY_DIR}/browser/browser_waste_html.html
    --sample-rate 1 --check-rate 1 -- $<TARGET_FILE:waste_views_fixture> all
  MIN_PLOTS 6)
if(ZEROLAB_BROWSER_TESTS AND NOT zerolab_browser_missing)
  set_tests_properties(browser_waste_html PROPERTIES
    PASS_REGULAR_EXPRESSION "html: [0-9]+ plots, [0-9]+ points, 0 console messages \\(0 warning/severe\\)"
    FAIL_REGULAR_EXPRESSION "FAIL:|ERROR:")
endif()
