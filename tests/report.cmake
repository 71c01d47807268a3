# The HTML reports: plots and page shell (report_plot_test), report.html on
# synthetic lab results and `zerolab compare -format html`
# (lab_report_html_test), and both pages loaded in headless Chromium.
zerolab_add_test(report_plot_test
  SOURCES report_plot_test.cpp
  LIBS zerolab_report
  LABELS report)

if(TARGET zerolab AND TARGET zerolab_lab)
  zerolab_add_test(lab_report_html_test
    SOURCES lab_report_html_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS report,lab)
  target_compile_definitions(lab_report_html_test PRIVATE ZEROLAB_CLI="$<TARGET_FILE:zerolab>")
  add_dependencies(lab_report_html_test zerolab)

  # The synthetic report as a page, for the browser.
  add_executable(lab_report_sample lab_report_sample.cpp)
  target_include_directories(lab_report_sample PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(lab_report_sample PRIVATE zerolab_lab zerolab_alloc_hooks zerolab_warnings)

  include(${PROJECT_SOURCE_DIR}/tests/browser/browser_test.cmake)
  # report.html with every plot type: 7 plots (3 more are "plot-empty").
  zerolab_add_browser_test(browser_lab_report
    GENERATOR_COMMAND lab_report_sample ${CMAKE_BINARY_DIR}/browser/browser_lab_report.html
    MIN_PLOTS 7)
  # A real report: the lab's plotted experiments, one short run each.
  zerolab_add_browser_test(browser_lab_quick
    GENERATOR_COMMAND zerolab lab --quick memclr-threshold chunked-zero zero-cost needzero udp-buffers
      -o ${CMAKE_BINARY_DIR}/browser/lab_quick
    PAGE ${CMAKE_BINARY_DIR}/browser/lab_quick/report.html
    MIN_PLOTS 20
    TIMEOUT 600)
  # `zerolab compare -format html` on two real runs of memclr-threshold:
  # 5 tables; sec/op and B/s each get a sweep and 80 rows (60 plotted).
  zerolab_add_browser_test(browser_compare_html
    GENERATOR_COMMAND zerolab compare -format html -o ${CMAKE_BINARY_DIR}/browser/browser_compare_html.html
      old=${PROJECT_SOURCE_DIR}/tests/data/report/memclr_old.txt
      new=${PROJECT_SOURCE_DIR}/tests/data/report/memclr_new.txt
    MIN_PLOTS 122)
  # A run compared with a saved baseline: report.html's baseline section
  # with compare's tables and plots.
  set(baseline_dir ${CMAKE_BINARY_DIR}/browser/lab_baseline)
  zerolab_add_browser_test(browser_lab_baseline
    GENERATOR_COMMAND /bin/sh -c
      "rm -rf ${baseline_dir} && $<TARGET_FILE:zerolab> lab --quick chunked-zero --store sqlite:${baseline_dir}/store.db --save base -o ${baseline_dir}/first >/dev/null && $<TARGET_FILE:zerolab> lab --quick chunked-zero --store sqlite:${baseline_dir}/store.db --baseline base -o ${baseline_dir}/second >/dev/null"
    PAGE ${baseline_dir}/second/report.html
    MIN_PLOTS 10
    TIMEOUT 300)
  if(ZEROLAB_BROWSER_TESTS AND NOT zerolab_browser_missing)
    set_tests_properties(browser_lab_report PROPERTIES
      PASS_REGULAR_EXPRESSION "html: 7 plots, 48 points, 0 console messages")
    set_tests_properties(browser_compare_html PROPERTIES
      PASS_REGULAR_EXPRESSION "html: 122 plots, [0-9]+ points, 0 console messages")
  endif()
endif()
