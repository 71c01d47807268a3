# zerolab_add_browser_test(): a ctest test that loads an HTML page in headless
# Chromium with tests/browser/check_html_page.py (label "browser"). Included
# by tests/browser.cmake; any other tests/*.cmake part may include it too:
#   include(${PROJECT_SOURCE_DIR}/tests/browser/browser_test.cmake)
#
#   zerolab_add_browser_test(NAME
#     [GENERATOR_COMMAND cmd args...]  run first; must exit 0 and write PAGE
#     [PAGE path]               default ${CMAKE_BINARY_DIR}/browser/NAME.html
#     [SCREENSHOT path]         default ${CMAKE_BINARY_DIR}/browser/NAME.png
#     [MIN_PLOTS n]             default 1
#     [EXPECT_FAILURE substring...]  pass only if the check fails with these
#     [TIMEOUT seconds])        for generator + browser, default 90
# A target name first in GENERATOR_COMMAND is replaced by its file. Example:
#   zerolab_add_browser_test(browser_compare_html
#     GENERATOR_COMMAND zerolab compare -format html
#       -o ${CMAKE_BINARY_DIR}/browser/browser_compare_html.html
#       ${PROJECT_SOURCE_DIR}/tests/data/old.txt ${PROJECT_SOURCE_DIR}/tests/data/new.txt
#     MIN_PLOTS 1)
# writes build/release/browser/browser_compare_html.{html,png}.
#
# Chromium, chromedriver and python3 come from scripts/install-deps.sh. When one
# is missing at configure time every browser test fails saying so (a skipped
# test would hide a broken setup); -DZEROLAB_BROWSER_TESTS=OFF registers none
# (the asan and tsan presets do that: the browser check runs in release only).
include_guard(GLOBAL)

option(ZEROLAB_BROWSER_TESTS "Register the headless-Chromium tests of the HTML reports" ON)

set(zerolab_browser_missing "")
if(ZEROLAB_BROWSER_TESTS)
  # Debian's python3 (what install-deps.sh installs) before any other on
  # PATH, such as a pyenv shim that needs its own environment to run.
  if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter)
  find_program(ZEROLAB_CHROMIUM NAMES chromium chromium-browser)
  find_program(ZEROLAB_CHROMEDRIVER chromedriver)
  if(NOT Python3_Interpreter_FOUND)
    list(APPEND zerolab_browser_missing python3)
  endif()
  if(NOT ZEROLAB_CHROMIUM)
    list(APPEND zerolab_browser_missing chromium)
  endif()
  if(NOT ZEROLAB_CHROMEDRIVER)
    list(APPEND zerolab_browser_missing chromedriver)
  endif()
  if(zerolab_browser_missing)
    string(REPLACE ";" ", " zerolab_browser_missing "${zerolab_browser_missing}")
    set(zerolab_browser_fail_script ${CMAKE_BINARY_DIR}/browser/missing-tools.cmake)
    file(WRITE ${zerolab_browser_fail_script}
      "message(FATAL_ERROR \"browser test: ${zerolab_browser_missing} not found when "
      "CMake configured this build. Run scripts/install-deps.sh (Debian's chromium "
      "chromium-driver python3), then configure again; or configure with "
      "-DZEROLAB_BROWSER_TESTS=OFF to register no browser tests.\")\n")
    message(WARNING "${zerolab_browser_missing} not found: the browser tests will fail "
      "(scripts/install-deps.sh installs them; -DZEROLAB_BROWSER_TESTS=OFF opts out)")
  endif()
endif()

function(zerolab_add_browser_test name)
  cmake_parse_arguments(B "" "PAGE;SCREENSHOT;MIN_PLOTS;TIMEOUT"
                        "GENERATOR_COMMAND;EXPECT_FAILURE" ${ARGN})
  if(B_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "zerolab_add_browser_test(${name}): unknown arguments ${B_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ZEROLAB_BROWSER_TESTS)
    return()
  endif()
  if(NOT B_PAGE)
    set(B_PAGE ${CMAKE_BINARY_DIR}/browser/${name}.html)
  endif()
  if(NOT B_SCREENSHOT)
    set(B_SCREENSHOT ${CMAKE_BINARY_DIR}/browser/${name}.png)
  endif()
  if(NOT DEFINED B_MIN_PLOTS)
    set(B_MIN_PLOTS 1)
  endif()
  if(NOT B_TIMEOUT)
    set(B_TIMEOUT 90)
  endif()

  if(zerolab_browser_missing)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -P ${zerolab_browser_fail_script})
  else()
    set(args ${B_PAGE} --screenshot ${B_SCREENSHOT} --min-plots ${B_MIN_PLOTS}
             --timeout ${B_TIMEOUT}
             --chromium ${ZEROLAB_CHROMIUM} --chromedriver ${ZEROLAB_CHROMEDRIVER})
    foreach(s ${B_EXPECT_FAILURE})
      list(APPEND args --expect-failure ${s})
    endforeach()
    if(B_GENERATOR_COMMAND)
      list(GET B_GENERATOR_COMMAND 0 first)
      if(TARGET ${first})
        list(REMOVE_AT B_GENERATOR_COMMAND 0)
        list(PREPEND B_GENERATOR_COMMAND $<TARGET_FILE:${first}>)
      endif()
      list(APPEND args -- ${B_GENERATOR_COMMAND})
    endif()
    add_test(NAME ${name}
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/browser/check_html_page.py ${args})
  endif()
  math(EXPR ctest_timeout "${B_TIMEOUT} + 30")
  set_tests_properties(${name} PROPERTIES LABELS browser TIMEOUT ${ctest_timeout})
endfunction()
