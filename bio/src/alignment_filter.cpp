#include "attend/bio/alignment_filter.hpp"

#include <algorithm>

#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"

namespace attend::bio {

const OptionList<AlignmentFilterOptions>& AlignmentFilterOptions::option_list() {
  using O = AlignmentFilterOptions;
  static const OptionList<O> list =
      OptionList<O>("alignment filter")
          .add("max_sequence_gap_fraction", &O::max_sequence_gap_fraction,
               "drop a sequence (never the query) with more gaps than this fraction of L", OptionRange{0.0, 1.0})
          .add("max_depth", &O::max_depth, "keep the query and the next sequences in file order up to this many; 0: all",
               OptionRange::at_least(0))
          .add("max_column_gap_fraction", &O::max_column_gap_fraction,
               "drop a column with more gaps than this fraction of the sequences kept", OptionRange{0.0, 1.0});
  return list;
}

FilteredAlignment filter_alignment(const Alignment& a, const AlignmentFilterOptions& options) {
  ATTEND_CHECK(a.num_sequences() > 0 && a.query == 0, "expected a non-empty alignment, query at row 0");
  const int64_t L = a.length;
  FilteredAlignment out;

  for (int64_t n = 0; n < a.num_sequences(); ++n) {
    const uint8_t* row = a.row(n);
    const int64_t gaps = std::count(row, row + L, kGapCode);
    if (n == 0 || static_cast<double>(gaps) <= options.max_sequence_gap_fraction * static_cast<double>(L)) {
      out.rows.push_back(n);
    }
  }
  if (options.max_depth > 0 && static_cast<int64_t>(out.rows.size()) > options.max_depth) {
    out.rows.resize(static_cast<std::size_t>(options.max_depth));
  }

  const double kept_rows = static_cast<double>(out.rows.size());
  for (int64_t c = 0; c < L; ++c) {
    int64_t gaps = 0;
    for (int64_t n : out.rows) gaps += a.row(n)[c] == kGapCode;
    if (static_cast<double>(gaps) <= options.max_column_gap_fraction * kept_rows) out.columns.push_back(c);
  }
  if (out.columns.empty()) {
    throw InputError("the column gap filter (max fraction " + std::to_string(options.max_column_gap_fraction) +
                     ") removed every column of the alignment");
  }

  Alignment& f = out.alignment;
  f.length = static_cast<int64_t>(out.columns.size());
  f.codes.reserve(out.rows.size() * out.columns.size());
  for (int64_t n : out.rows) {
    f.names.push_back(a.names[static_cast<std::size_t>(n)]);
    const uint8_t* row = a.row(n);
    for (int64_t c : out.columns) f.codes.push_back(row[c]);
  }
  f.query = 0;
  return out;
}

}  // namespace attend::bio
