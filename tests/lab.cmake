# The lab: verdict logic, judging, reports, the driver on synthetic
# experiments, and `zerolab lab --quick` end to end.
if(TARGET zerolab AND TARGET zerolab_lab)
  zerolab_add_test(lab_test
    SOURCES lab_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS lab)
  target_compile_definitions(lab_test PRIVATE ZEROLAB_CLI="$<TARGET_FILE:zerolab>")
  add_dependencies(lab_test zerolab)
  # Baselines and the regression gate: save/load, the comparison, exit codes.
  zerolab_add_test(lab_baseline_test
    SOURCES lab_baseline_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS lab)
  target_compile_definitions(lab_baseline_test PRIVATE ZEROLAB_CLI="$<TARGET_FILE:zerolab>")
  add_dependencies(lab_baseline_test zerolab)
  # The Go peers' machinery with a stand-in toolchain: build cache,
  # interleaving, parsing, both verdicts and the claims table's columns.
  zerolab_add_test(lab_go_peer_test
    SOURCES lab_go_peer_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS lab)
  # The verdict model: direction and size apart, rows, preconditions, sources.
  zerolab_add_test(lab_verdict_model_test
    SOURCES lab_verdict_model_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS lab)
  # Counts judged exact: mallocs/op beside Go's truncated allocs/op.
  zerolab_add_test(lab_exact_count_test
    SOURCES lab_exact_count_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS lab)
endif()

# Seed 004's facts and the Go-side test facts fail on stand-ins that make
# their conditions false.
if(TARGET zerolab_lab)
  zerolab_add_test(lab_facts004_test
    SOURCES lab_facts004_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS lab)
endif()

# Every seed claim quotes its seed verbatim (skipped where the seeds,
# which are not in the repository, are absent).
if(TARGET zerolab_lab)
  zerolab_add_test(lab_seed_quote_test
    SOURCES lab_seed_quote_test.cpp
    LIBS zerolab_lab zerolab_alloc_hooks
    LABELS lab)
  target_compile_definitions(lab_seed_quote_test
    PRIVATE ZEROLAB_SEEDS_DIR="${PROJECT_SOURCE_DIR}/../shared/seeds")
endif()

# `zerolab lab -o DIR`: a rerun replaces the report whole, a foreign
# directory is refused with nothing created, profiles inside -o are kept.
if(TARGET zerolab AND TARGET zerolab_lab)
  zerolab_add_test(lab_output_dir_test
    SOURCES lab_output_dir_test.cpp
    LIBS zerolab_lab
    LABELS lab)
  target_compile_definitions(lab_output_dir_test PRIVATE ZEROLAB_CLI="$<TARGET_FILE:zerolab>")
  add_dependencies(lab_output_dir_test zerolab)
endif()

# `zerolab lab --measure=instructions` on one small experiment: the counts
# beside the time verdicts (lab/framework/counts.hpp).
if(TARGET zerolab_lab)
  add_executable(lab_count_fixture lab_count_fixture.cpp)
  target_include_directories(lab_count_fixture PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(lab_count_fixture PRIVATE zerolab_lab zerolab_alloc_hooks zerolab_warnings)
  zerolab_add_test(lab_count_test SOURCES lab_count_test.cpp LIBS zerolab_bench LABELS lab)
  target_compile_definitions(lab_count_test PRIVATE
    ZEROLAB_LAB_COUNT_FIXTURE="$<TARGET_FILE:lab_count_fixture>")
  add_dependencies(lab_count_test lab_count_fixture)
endif()
