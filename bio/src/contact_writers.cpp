#include "attend/bio/contact_writers.hpp"

#include <cmath>
#include <cstdio>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/options_json.hpp"
#include "ranked_pairs.hpp"

namespace attend::bio {

namespace {

void check_scores(const Tensor& scores) {
  ATTEND_CHECK(scores.rank() == 2 && scores.dim(0) == scores.dim(1) && scores.dim(0) >= 1,
               "expected square scores [L, L], got " << shape_to_string(scores.shape()));
  for (float v : scores) ATTEND_CHECK(std::isfinite(v), "contact scores must be finite");
}

std::string format(const char* spec, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, value);
  return buffer;
}

}  // namespace

void write_scores_mat(const std::string& path, const Tensor& scores) {
  check_scores(scores);
  const int64_t L = scores.dim(0);
  std::string text;
  text.reserve(static_cast<std::size_t>(L * L * 14));
  for (int64_t i = 0; i < L; ++i) {
    for (int64_t j = 0; j < L; ++j) {
      if (j > 0) text += '\t';
      text += format("%.9g", scores[i * L + j]);
    }
    text += '\n';
  }
  write_file_atomically(path, text);
}

void write_casp_rr(const std::string& path, const Tensor& scores, const std::string& query,
                   const RrOptions& options) {
  check_scores(scores);
  const int64_t L = scores.dim(0);
  ATTEND_CHECK(static_cast<int64_t>(query.size()) == L,
               "the query has " << query.size() << " letters for scores of L = " << L);
  ATTEND_CHECK(options.min_separation >= 1 && options.max_pairs >= 0, "bad RR options");
  std::vector<detail::RankedPair> pairs = detail::ranked_pairs(scores, options.min_separation);
  if (options.max_pairs > 0 && static_cast<int64_t>(pairs.size()) > options.max_pairs) {
    pairs.resize(static_cast<std::size_t>(options.max_pairs));
  }
  std::string text = "PFRMAT RR\nTARGET " + options.target + "\n";
  if (!options.method.empty()) text += "METHOD " + options.method + "\n";
  text += "MODEL  1\n";
  for (int64_t k = 0; k < L; k += 50) text += query.substr(static_cast<std::size_t>(k), 50) + "\n";
  if (!pairs.empty()) {
    const double top = pairs.front().score;
    const double range = top - static_cast<double>(pairs.back().score);
    for (const detail::RankedPair& p : pairs) {
      const double prob = range > 0.0 ? 1.0 - (top - static_cast<double>(p.score)) / range : 1.0;
      text += std::to_string(p.i + 1) + " " + std::to_string(p.j + 1) + " 0 8 " +
              format("%.8f", prob) + "\n";
    }
  }
  text += "END\n";
  write_file_atomically(path, text);
}

void write_contacts_h5(const std::string& path, const ContactPrediction& prediction) {
  check_scores(prediction.scores);
  const int64_t L = prediction.scores.dim(0);
  ATTEND_CHECK(static_cast<int64_t>(prediction.query.size()) == L,
               "the query has " << prediction.query.size() << " letters for scores of L = " << L);
  ATTEND_CHECK(prediction.parameters.is_object(), "prediction parameters must be a JSON object");
  AtomicOutput output(path);
  try {
    Hdf5File file = Hdf5File::create(output.temp_path(), kContactsSchema, kContactsSchemaVersion);
    file.write_tensor("/scores", prediction.scores);
    file.write_string("/query", prediction.query);
    file.write_string("/config", with_short_floats(prediction.parameters).dump());
    file.set_attr("/", "method", prediction.method);
    file.set_attr("/", "length", L);
    for (const auto& [name, value] : prediction.parameters.items()) {
      if (name == "schema" || name == "schema_version" || name == "method" || name == "length") continue;
      if (value.is_number_integer()) {
        file.set_attr("/", name, value.get<int64_t>());
      } else if (value.is_number()) {
        file.set_attr("/", name, value.get<double>());
      } else if (value.is_string()) {
        file.set_attr("/", name, value.get<std::string>());
      } else if (value.is_boolean()) {
        file.set_attr("/", name, int64_t{value.get<bool>() ? 1 : 0});
      }
    }
    file.close();
  } catch (const InputError& error) {
    throw InputError(path, 0, std::string("cannot write contact prediction: ") + error.what());
  }
  output.commit();
}

const std::vector<std::string>& contact_prediction_suffixes() {
  static const std::vector<std::string> suffixes = {".h5", ".mat", ".rr", ".png"};
  return suffixes;
}

void write_contact_prediction(const std::string& prefix, const ContactPrediction& prediction,
                              const std::string& target, const ContactMap* truth) {
  write_contacts_h5(prefix + ".h5", prediction);
  write_scores_mat(prefix + ".mat", prediction.scores);
  RrOptions rr;
  rr.target = target;
  rr.method = "attend contacts " + prediction.method;
  write_casp_rr(prefix + ".rr", prediction.scores, prediction.query, rr);
  ContactPngOptions png;
  png.truth = truth;
  write_contact_png(prefix + ".png", prediction.scores, png);
}

}  // namespace attend::bio
