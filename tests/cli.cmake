# The zerolab CLI's dispatch: known commands run, unknown ones exit 2 with one
# line on stderr.
add_test(NAME cli_version COMMAND zerolab version)
set_tests_properties(cli_version PROPERTIES PASS_REGULAR_EXPRESSION "^zerolab ${PROJECT_VERSION}\n$")
add_test(NAME cli_help COMMAND zerolab help)
set_tests_properties(cli_help PROPERTIES PASS_REGULAR_EXPRESSION "commands:")
add_test(NAME cli_unknown_command_exits_2
  COMMAND sh -c "out=$($<TARGET_FILE:zerolab> frobnicate 2>&1 >/dev/null); rc=$?; [ $rc -eq 2 ] && [ \"$out\" = 'zerolab: unknown command \"frobnicate\" (run '\\''zerolab help'\\'' for the list)' ]")
add_test(NAME cli_no_command_exits_2 COMMAND sh -c "$<TARGET_FILE:zerolab> 2>/dev/null; [ $? -eq 2 ]")
