#include "attend/bio/contact_explanation_files.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/xml_escape.hpp"

namespace attend::bio {

namespace {

constexpr const char* kSchema = "attend.contact_explanation";

Tensor as_tensor(const std::vector<double>& values) {
  Tensor t({static_cast<int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t[static_cast<int64_t>(i)] = static_cast<float>(values[i]);
  return t;
}

/// Write `path` through an AtomicOutput: `write(stream)`, then commit.
void save_text(const std::string& path, const char* what, const std::function<void(std::ostream&)>& write) {
  AtomicOutput output(path);
  {
    std::ofstream out(output.temp_path());
    out.precision(9);
    write(out);
    if (!out) throw InputError(path, 0, std::string("cannot write the ") + what);
  }
  output.commit();
}

/// Precision of every head (and, last, of the predictor) in one range and top-k, [H' + 1].
Tensor precision_column(const ContactExplanation& x, const std::function<double(const ContactPrecision&)>& pick) {
  std::vector<double> values;
  for (const ContactPrecision& p : x.head_precision) values.push_back(pick(p));
  values.push_back(pick(*x.precision));
  return as_tensor(values);
}

/// Head h's map [L, L] of a [H, L, L] tensor.
Tensor head_map(const Tensor& maps, int64_t h) {
  const int64_t L = maps.dim(1);
  Tensor one({L, L});
  std::copy_n(maps.data() + h * L * L, L * L, one.data());
  return one;
}

const ContactAttribution& attribution_of(const ContactExplanation& x) {
  ATTEND_CHECK(x.attribution.has_value(), "the explanation holds no attribution");
  return *x.attribution;
}

}  // namespace

void save_contact_explanation(const std::string& path, const ContactExplanation& x) {
  const int64_t L = x.scores.dim(0), H = x.heads.scores.dim(0);
  AtomicOutput output(path);
  Hdf5File file = Hdf5File::create(output.temp_path(), kSchema, 1);
  file.set_attr("/", "method", x.method);
  file.set_attr("/", "length", L);
  file.write_string("/query", x.query);
  file.write_tensor("/scores", x.scores);
  file.create_group("/heads");
  file.write_strings("/heads/name", x.heads.names);
  file.write_tensor("/heads/attention", x.heads.attention);
  file.write_tensor("/heads/scores", x.heads.scores);
  std::vector<int64_t> top_pairs;  // [H, 2]
  for (int64_t h = 0; h < H; ++h) {
    const auto [i, j] = top_long_range_pair(head_map(x.heads.scores, h));
    top_pairs.insert(top_pairs.end(), {i, j});
  }
  file.write_int64("/heads/top_pair", top_pairs, {H, 2});
  if (x.precision) {  // heads first, the predictor's own scores last
    file.create_group("/precision");
    const std::pair<const char*, std::function<double(const ContactPrecision&)>> columns[] = {
        {"long_top_l5", [](const ContactPrecision& p) { return p.long_range.top_l5; }},
        {"long_top_l2", [](const ContactPrecision& p) { return p.long_range.top_l2; }},
        {"long_top_l", [](const ContactPrecision& p) { return p.long_range.top_l; }},
        {"medium_top_l5", [](const ContactPrecision& p) { return p.medium_range.top_l5; }},
        {"short_top_l5", [](const ContactPrecision& p) { return p.short_range.top_l5; }}};
    for (const auto& [name, pick] : columns) file.write_tensor(std::string("/precision/") + name, precision_column(x, pick));
  }
  if (x.attribution) {
    const ContactAttribution& a = *x.attribution;
    file.create_group("/attribution");
    file.write_int64("/attribution/pair", {a.i, a.j});
    file.set_attr("/attribution", "steps", a.steps);
    file.set_attr("/attribution", "rule", quadrature_name(a.rule));
    file.set_attr("/attribution", "value", a.value);
    file.set_attr("/attribution", "baseline_value", a.baseline_value);
    file.set_attr("/attribution", "completeness_gap", a.completeness_gap);
    file.set_attr("/attribution", "msa_total", a.msa_total);
    file.set_attr("/attribution", "pair_total", a.pair_total);
    file.write_tensor("/attribution/msa_features", a.msa_attribution);
    file.write_tensor("/attribution/pair_features", a.pair_attribution);
    file.write_tensor("/attribution/pair_map", a.pair_map);
    file.write_tensor("/attribution/per_sequence", as_tensor(a.per_sequence));
    file.write_tensor("/attribution/per_column", as_tensor(a.per_column));
    file.write_int64("/attribution/sequence_row", x.sequence_rows);
    file.write_strings("/attribution/sequence_name", x.sequence_names);
  }
  file.close();
  output.commit();
}

void save_head_table(const std::string& path, const ContactExplanation& x) {
  save_text(path, "head table", [&](std::ostream& out) {
    out << "head\tname\ttop_i\ttop_j\ttop_score";
    if (x.precision) out << "\tlong_P@L/5\tlong_P@L/2\tlong_P@L\tmedium_P@L/5\tshort_P@L/5";
    out << '\n';
    const auto row = [&](const std::string& head, const std::string& name, const Tensor& scores, const ContactPrecision* p) {
      const auto [i, j] = top_long_range_pair(scores);
      out << head << '\t' << name << '\t' << i + 1 << '\t' << j + 1 << '\t' << scores[i * scores.dim(0) + j];
      if (p) {
        out << '\t' << p->long_range.top_l5 << '\t' << p->long_range.top_l2 << '\t' << p->long_range.top_l << '\t'
            << p->medium_range.top_l5 << '\t' << p->short_range.top_l5;
      }
      out << '\n';
    };
    for (std::size_t h = 0; h < x.heads.names.size(); ++h) {
      row(std::to_string(h), x.heads.names[h], head_map(x.heads.scores, static_cast<int64_t>(h)),
          x.precision ? &x.head_precision[h] : nullptr);
    }
    row("all", x.method, x.scores, x.precision ? &*x.precision : nullptr);
  });
}

void save_column_table(const std::string& path, const ContactExplanation& x) {
  const ContactAttribution& a = attribution_of(x);
  save_text(path, "column table", [&](std::ostream& out) {
    out << "column\tresidue\tscore\n";
    for (std::size_t w = 0; w < a.per_column.size(); ++w) out << w + 1 << '\t' << x.query.at(w) << '\t' << a.per_column[w] << '\n';
  });
}

void save_sequence_table(const std::string& path, const ContactExplanation& x) {
  const ContactAttribution& a = attribution_of(x);
  save_text(path, "sequence table", [&](std::ostream& out) {
    out << "sequence\tname\tscore\n";
    for (std::size_t s = 0; s < a.per_sequence.size(); ++s) {
      out << x.sequence_rows.at(s) + 1 << '\t' << x.sequence_names.at(s) << '\t' << a.per_sequence[s] << '\n';
    }
  });
}

void save_pair_table(const std::string& path, const ContactExplanation& x) {
  const ContactAttribution& a = attribution_of(x);
  save_text(path, "pair table", [&](std::ostream& out) {
    out << "i\tj\tscore\n";
    for (const ResiduePairAttribution& p : residue_pair_attributions(a)) out << p.i + 1 << '\t' << p.j + 1 << '\t' << p.score << '\n';
  });
}

std::string column_attribution_svg(const ContactExplanation& x) {
  const ContactAttribution& a = attribution_of(x);
  const auto L = static_cast<int64_t>(a.per_column.size());
  const double bar = std::clamp(900.0 / static_cast<double>(L), 2.0, 12.0);
  const double left = 60.0, right = 20.0, top = 50.0, half = 150.0, bottom = 50.0;
  const double width = left + bar * static_cast<double>(L) + right, height = top + 2 * half + bottom;
  const double axis = top + half;  // y of zero
  double largest = 0.0;
  for (double v : a.per_column) largest = std::max(largest, std::abs(v));
  std::ostringstream svg;
  svg.precision(6);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << width << ' ' << height << "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<title>integrated gradients of the contact " << a.i + 1 << "-" << a.j + 1 << " per alignment column</title>\n";
  svg << "<text x=\"" << left << "\" y=\"20\" font-size=\"13\" font-family=\"sans-serif\">" << xml_escaped(x.method)
      << ": attribution of the contact " << a.i + 1 << "-" << a.j + 1 << " (logit " << a.value << ", baseline "
      << a.baseline_value << ") per column</text>\n";
  svg << "<text x=\"" << left << "\" y=\"38\" font-size=\"11\" font-family=\"sans-serif\">" << a.steps
      << " steps; completeness gap " << a.completeness_gap << "; red raises the logit, blue lowers it</text>\n";
  for (const int64_t marked : {a.i, a.j}) {  // the pair's columns, shaded behind the bars
    svg << "<rect x=\"" << left + bar * static_cast<double>(marked) << "\" y=\"" << top << "\" width=\"" << bar
        << "\" height=\"" << 2 * half << "\" fill=\"rgb(255,225,150)\"/>\n";
  }
  for (int64_t w = 0; w < L; ++w) {
    const double v = a.per_column[static_cast<std::size_t>(w)];
    const double h = largest > 0 ? half * std::abs(v) / largest : 0.0;
    svg << "<rect x=\"" << left + bar * static_cast<double>(w) << "\" y=\"" << (v >= 0 ? axis - h : axis) << "\" width=\""
        << std::max(bar - 1.0, 1.0) << "\" height=\"" << h << "\" fill=\"" << (v >= 0 ? "rgb(200,30,30)" : "rgb(30,70,200)")
        << "\"><title>column " << w + 1 << " " << xml_escaped(std::string(1, x.query.at(static_cast<std::size_t>(w))))
        << ": " << v << "</title></rect>\n";
  }
  svg << "<line x1=\"" << left << "\" y1=\"" << axis << "\" x2=\"" << width - right << "\" y2=\"" << axis
      << "\" stroke=\"black\"/>\n";
  svg << "<text x=\"" << left - 5 << "\" y=\"" << top + 10 << "\" font-size=\"10\" text-anchor=\"end\" font-family=\"sans-serif\">"
      << largest << "</text>\n";
  svg << "<text x=\"" << left - 5 << "\" y=\"" << top + 2 * half << "\" font-size=\"10\" text-anchor=\"end\" font-family=\"sans-serif\">"
      << -largest << "</text>\n";
  const int64_t tick = L <= 60 ? 10 : L <= 300 ? 25 : 100;
  for (int64_t c = tick; c <= L; c += tick) {
    svg << "<text x=\"" << left + bar * (static_cast<double>(c) - 0.5) << "\" y=\"" << top + 2 * half + 18
        << "\" font-size=\"10\" text-anchor=\"middle\" font-family=\"sans-serif\">" << c << "</text>\n";
  }
  svg << "<text x=\"" << left + bar * static_cast<double>(L) / 2 << "\" y=\"" << height - 10
      << "\" font-size=\"11\" text-anchor=\"middle\" font-family=\"sans-serif\">alignment column</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

void save_column_attribution_svg(const std::string& path, const ContactExplanation& x) {
  save_text(path, "picture", [&](std::ostream& out) { out << column_attribution_svg(x); });
}

}  // namespace attend::bio
