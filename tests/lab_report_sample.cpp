// lab_report_sample: writes the synthetic lab report (tests/lab_report_fixture.hpp)
// as report.html to the path given, for the browser test to load.
//
// Example:
//   lab_report_sample build/release/browser/browser_lab_report.html
#include <cstdio>
#include <string>

#include "files/atomic_file.hpp"
#include "lab/framework/report_html.hpp"
#include "lab_report_fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lab_report_sample OUT.html\n");
    return 2;
  }
  zerolab::lab::testing::ReportFixture f;
  std::string error;
  if (!zerolab::internal::write_file_atomically(
          argv[1], zerolab::lab::report_html(f.outcomes, f.machine, f.context), error)) {
    std::fprintf(stderr, "lab_report_sample: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
