# The zerolab CLI's dispatch: known commands run, unknown ones exit 2 with one
# line on stderr.
add_test(NAME cli_version COMMAND zerolab version)
set_tests_properties(cli_version PROPERTIES PASS_REGULAR_EXPRESSION "^zerolab ${PROJECT_VERSION}\n$")
add_test(NAME cli_help COMMAND zerolab help)
set_tests_properties(cli_help PROPERTIES PASS_REGULAR_EXPRESSION "commands:")
add_test(NAME cli_unknown_command_exits_2
  COMMAND sh -c "out=$($<TARGET_FILE:zerolab> frobnicate 2>&1 >/dev/null); rc=$?; [ $rc -eq 2 ] && [ \"$out\" = 'zerolab: unknown command \"frobnicate\" (run '\\''zerolab help'\\'' for the list)' ]")
add_test(NAME cli_no_command_exits_2 COMMAND sh -c "$<TARGET_FILE:zerolab> 2>/dev/null; [ $? -eq 2 ]")

# The one flag parser and the one quoting helper.
zerolab_add_test(flags_test SOURCES flags_test.cpp LIBS zerolab_format LABELS cli)

# The one Markdown escaper.
zerolab_add_test(markdown_test SOURCES markdown_test.cpp LIBS zerolab_format LABELS cli)

# The real CLI and a real benchmark binary, run by tests built on
# tests/cli_test_fixture.hpp:
#   output_test: outputs and standard streams: -o onto inputs,
#     devices, symlinks, read-only files; full and closed stdout.
#   cli_flags_test: every command line through the flag parser, as a user
#     types it (and the usage convention).
if(TARGET bench_fixture)
  foreach(t output_test cli_flags_test)
    zerolab_add_test(${t} SOURCES ${t}.cpp LABELS cli)
    target_compile_definitions(${t} PRIVATE
      ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
      ZEROLAB_BENCH_FIXTURE="$<TARGET_FILE:bench_fixture>"
      ZEROLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
    add_dependencies(${t} zerolab bench_fixture)
  endforeach()
endif()
