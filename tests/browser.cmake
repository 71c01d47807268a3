# The browser check itself (tests/browser/check_html_page.py) on fixture pages:
# it passes a good page and fails each bad one with the exact problem. The
# report pages' own browser tests call zerolab_add_browser_test() (defined in
# tests/browser/browser_test.cmake, which says how). Label "browser"; release
# preset only. Screenshots go to build/<preset>/browser/<test>.png.
#   ctest --preset release -L browser
include(${CMAKE_CURRENT_LIST_DIR}/browser/browser_test.cmake)

set(zerolab_browser_fixtures ${CMAKE_CURRENT_LIST_DIR}/browser/fixtures)
set(zerolab_browser_pages ${CMAKE_BINARY_DIR}/browser/fixtures)

# A bad page is fixtures/NAME.body.html (what is wrong with it) inside the
# one skeleton fixtures/page.html.in (doctype, charset, the report pages'
# Content-Security-Policy, title), written to ${zerolab_browser_pages}/NAME.html.
function(zerolab_browser_fixture_page name title)
  set(body ${zerolab_browser_fixtures}/${name}.body.html)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${body})
  file(READ ${body} FIXTURE_BODY)
  set(FIXTURE_TITLE ${title})
  configure_file(${zerolab_browser_fixtures}/page.html.in ${zerolab_browser_pages}/${name}.html @ONLY)
endfunction()
zerolab_browser_fixture_page(zero_points "zero points")
zerolab_browser_fixture_page(count_mismatch "count mismatch")
zerolab_browser_fixture_page(unrendered_points "unrendered points")
zerolab_browser_fixture_page(external_image "external image")
zerolab_browser_fixture_page(inline_script "inline script")

# A good page: both plots and all 9 points found, nothing logged.
zerolab_add_browser_test(browser_fixture_good
  PAGE ${zerolab_browser_fixtures}/good.html MIN_PLOTS 2)
# The same page through a generator command (as the report tests run).
zerolab_add_browser_test(browser_fixture_generated
  GENERATOR_COMMAND ${CMAKE_COMMAND} -E copy ${zerolab_browser_fixtures}/good.html
    ${CMAKE_BINARY_DIR}/browser/browser_fixture_generated.html
  MIN_PLOTS 2)
if(ZEROLAB_BROWSER_TESTS AND NOT zerolab_browser_missing)
  foreach(t browser_fixture_good browser_fixture_generated)
    set_tests_properties(${t} PROPERTIES
      PASS_REGULAR_EXPRESSION "html: 2 plots, 9 points, 0 console messages \\(0 warning/severe\\), screenshot .*/browser/${t}.png \\(1280x[0-9]+\\)"
      FAIL_REGULAR_EXPRESSION "FAIL:|ERROR:")
  endforeach()
endif()

# Each bad page fails with its own problem.
zerolab_add_browser_test(browser_fixture_too_few_plots
  PAGE ${zerolab_browser_fixtures}/good.html MIN_PLOTS 3
  EXPECT_FAILURE "FAIL: 2 plots, expected at least 3")
zerolab_add_browser_test(browser_fixture_zero_points
  PAGE ${zerolab_browser_pages}/zero_points.html
  EXPECT_FAILURE "FAIL: plot 1 (#empty): has no data points")
zerolab_add_browser_test(browser_fixture_count_mismatch
  PAGE ${zerolab_browser_pages}/count_mismatch.html
  EXPECT_FAILURE "FAIL: plot 1 (Four points, five declared): data-points=\"5\" but 4 .pt elements")
zerolab_add_browser_test(browser_fixture_unrendered_points
  PAGE ${zerolab_browser_pages}/unrendered_points.html
  EXPECT_FAILURE "1 data points are not rendered (empty box)"
                 "1 data points are drawn outside the svg")
zerolab_add_browser_test(browser_fixture_external_image
  PAGE ${zerolab_browser_pages}/external_image.html
  EXPECT_FAILURE "FAIL: console SEVERE" "https://example.com/logo.png" "Content Security Policy")
zerolab_add_browser_test(browser_fixture_inline_script
  PAGE ${zerolab_browser_pages}/inline_script.html
  EXPECT_FAILURE "FAIL: console SEVERE" "inline script" "Content Security Policy")
# A generator that fails is a failure (no browser is started).
zerolab_add_browser_test(browser_fixture_generator_fails
  GENERATOR_COMMAND ${CMAKE_COMMAND} -E false
  EXPECT_FAILURE "FAIL: generator exited with 1")
# --expect-failure is not vacuous: a good page does not satisfy it.
zerolab_add_browser_test(browser_fixture_unmet_expectation
  PAGE ${zerolab_browser_fixtures}/good.html MIN_PLOTS 2
  EXPECT_FAILURE "has no data points")
if(ZEROLAB_BROWSER_TESTS AND NOT zerolab_browser_missing)
  set_tests_properties(browser_fixture_unmet_expectation PROPERTIES
    PASS_REGULAR_EXPRESSION "expected a FAIL line containing \"has no data points\"; there is none")
endif()
