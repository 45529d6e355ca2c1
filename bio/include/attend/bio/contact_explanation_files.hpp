#pragma once
/// The files of `attend explain contacts` (each written atomically, AtomicOutput):
/// - PREFIX.h5: schema `attend.contact_explanation` (docs/hdf5-schema.md): every head's
///   attention and contact scores, their precision, the predictor's own scores, and the
///   attribution of one contact when there is one;
/// - PREFIX.heads.tsv: one row per head (its top long-range pair and, with a truth, its
///   precision);
/// - PREFIX.columns.tsv, PREFIX.sequences.tsv and PREFIX.columns.svg (with an attribution):
///   per-column and per-sequence attributions, and a bar chart of the per-column ones;
/// - PREFIX.pairs.tsv and PREFIX.pairs.png (with an attribution): the attribution through the
///   pair (potts score) input per residue pair, and its heat map.
/// Columns and rows are 1-based in the tables and the picture (as in .rr files and --pair),
/// 0-based in the HDF5 file (as numpy indexes them).

#include <string>

#include "attend/bio/contact_explanation.hpp"

namespace attend::bio {

/// PREFIX.h5.
void save_contact_explanation(const std::string& path, const ContactExplanation& x);

/// PREFIX.heads.tsv: header `head	name	top_i	top_j	top_score` and, with a truth,
/// `long_P@L/5	long_P@L/2	long_P@L	medium_P@L/5	short_P@L/5`; then one row for
/// the predictor's own scores, head `all`.
void save_head_table(const std::string& path, const ContactExplanation& x);

/// PREFIX.columns.tsv (`column	residue	score`) and PREFIX.sequences.tsv
/// (`sequence	name	score`, sequence = the 1-based alignment row, 1 the query). Needs
/// x.attribution.
void save_column_table(const std::string& path, const ContactExplanation& x);
void save_sequence_table(const std::string& path, const ContactExplanation& x);

/// PREFIX.pairs.tsv: header `i	j	score`, one row per residue pair i <= j (1-based, i < j
/// rows first by i then j) with its residue_pair_attributions score; the scores sum to the
/// pair input's total attribution. Needs x.attribution.
void save_pair_table(const std::string& path, const ContactExplanation& x);

/// The pair attribution map as an RGB heat map (PNG): cell (i, j) and (j, i) both show the
/// residue pair's score (residue_pair_attributions), red for positive, blue for negative,
/// white for 0, linear in score / max |score|; the explained pair outlined in black at both
/// of its cells; a caption with the pair, the split of f(x) - f(0) between the pair and the
/// MSA input and the largest |score|. Needs x.attribution.
void save_pair_attribution_png(const std::string& path, const ContactExplanation& x);

/// The per-column attribution as an SVG bar chart: one bar per column (red up: the column
/// raises the contact's logit, blue down: lowers it), the two columns of the pair marked, the
/// completeness gap in the caption. Needs x.attribution.
std::string column_attribution_svg(const ContactExplanation& x);
void save_column_attribution_svg(const std::string& path, const ContactExplanation& x);

}  // namespace attend::bio
