// src/calibrate/copy_race.hpp — copy_fd's paths raced per pair kind on
// descriptors of the calibration's own, for the machine profile
// (calibrate.hpp says what is decided and by which bar).
//
// Example:
//   std::vector<std::string> lines;
//   CopyRaces r = race_copy_paths(scratch_dir, lines);
//   // r.choices: the pair kinds whose best path is not the table's
#ifndef ZEROLAB_SRC_CALIBRATE_COPY_RACE_HPP_
#define ZEROLAB_SRC_CALIBRATE_COPY_RACE_HPP_

#include <optional>
#include <string>
#include <vector>

#include "machine/machine_profile.hpp"

namespace zerolab::calibrate {

struct CopyRaces {
  std::vector<machine::CopyChoice> choices;
  std::optional<CopyPath> small_file;
  std::string error;  // "" or why the races could not run
};

// Races the paths of each pair kind in `dir` (a directory for two scratch
// files, removed after); one line per kind into `decisions`.
CopyRaces race_copy_paths(const std::string& dir, std::vector<std::string>& decisions);

}  // namespace zerolab::calibrate

#endif  // ZEROLAB_SRC_CALIBRATE_COPY_RACE_HPP_
