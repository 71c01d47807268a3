// Private extractors shared by the filter and projection parsers
// (stat/extractors.cpp); the public ones are in zerolab/stat_filter.hpp.
//
// Example:
//   auto ext = zerolab::stat::make_full_name_extractor({"/size"});
//   ext(rec);  // "BenchmarkCopy/kind=a-8" for "BenchmarkCopy/size=4k/kind=a-8"
#ifndef ZEROLAB_SRC_STAT_EXTRACTORS_HPP_
#define ZEROLAB_SRC_STAT_EXTRACTORS_HPP_

#include <string>
#include <vector>

#include "zerolab/stat_filter.hpp"

namespace zerolab::stat {

// The full name without the excluded sub-name keys (and "*" for an excluded
// .name), as benchproc's newExtractorFullName builds it.
Extractor make_full_name_extractor(const std::vector<std::string>& exclude);

}  // namespace zerolab::stat

#endif  // ZEROLAB_SRC_STAT_EXTRACTORS_HPP_
