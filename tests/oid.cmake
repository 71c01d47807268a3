# Seed 001's OID formatters and parsers (lab/experiments/oid.hpp, header
# only): round trips over 1,000,000 values and every edge, bad input.
zerolab_add_test(oid_test
  SOURCES oid_test.cpp
  LIBS zerolab_mem
  LABELS lab mem)
target_include_directories(oid_test PRIVATE ${PROJECT_SOURCE_DIR})
