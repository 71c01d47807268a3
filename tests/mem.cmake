# zerolab::mem: zero_fill on every path, size and alignment; zero_pages;
# the uninitialized-allocation tools.
zerolab_add_test(zero_test
  SOURCES zero_test.cpp
  LIBS zerolab_mem
  LABELS mem)
# The cache sizes zero_fill's bands start from (sysfs, glibc as fallback).
zerolab_add_test(cpu_features_test
  SOURCES cpu_features_test.cpp
  LIBS zerolab_mem
  LABELS mem)
# zero_fill's environment overrides, calibration provenance and the CLI's
# warning about bad values, each in a fresh process (zero_config_probe).
add_executable(zero_config_probe zero_config_probe.cpp)
target_link_libraries(zero_config_probe PRIVATE zerolab_mem zerolab_warnings)
target_include_directories(zero_config_probe PRIVATE ${PROJECT_SOURCE_DIR}/src)
zerolab_add_test(zero_env_test
  SOURCES zero_env_test.cpp
  LIBS zerolab_mem zerolab_machine
  LABELS mem)
target_compile_definitions(zero_env_test PRIVATE
  ZERO_CONFIG_PROBE="$<TARGET_FILE:zero_config_probe>" ZEROLAB_CLI="$<TARGET_FILE:zerolab>")
add_dependencies(zero_env_test zero_config_probe zerolab)
zerolab_add_test(uninit_test
  SOURCES uninit_test.cpp
  LIBS zerolab_mem
  LABELS mem)
# zerolab::Arena (zerolab/arena.hpp).
zerolab_add_test(arena_test
  SOURCES arena_test.cpp
  LIBS zerolab_mem
  LABELS mem)
# zerolab::Pool (zerolab/pool.hpp) and the lab's SimplePool; concurrent: also TSan.
zerolab_add_test(pool_test
  SOURCES pool_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)
target_include_directories(pool_test PRIVATE ${PROJECT_SOURCE_DIR})  # lab/experiments/simple_pool.hpp
# Pool's lock-free chain of rings (detail::PoolChain); concurrent: also TSan.
zerolab_add_test(pool_chain_test
  SOURCES pool_chain_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)
# zerolab::Interner (zerolab/intern.hpp); concurrent: also TSan.
zerolab_add_test(intern_test
  SOURCES intern_test.cpp
  LIBS zerolab_mem
  LABELS mem concurrent)
# The machine profile file: format, refusals, atomic writes, no symlinks.
zerolab_add_test(machine_profile_test
  SOURCES machine_profile_test.cpp
  LIBS zerolab_machine
  LABELS mem)
