#include "attend/bio/alignment_h5.hpp"

#include <cstring>
#include <fstream>

#include "attend/bio/alphabet.hpp"
#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/json_reader.hpp"
#include "attend/core/options_json.hpp"

namespace attend::bio {

void write_alignment_h5(const std::string& path, const AlignmentFeatures& features) {
  const Alignment& a = features.alignment;
  const int64_t N = a.num_sequences(), L = a.length;
  ATTEND_CHECK(static_cast<int64_t>(features.weights.size()) == N,
               "expected " << N << " weights, got " << features.weights.size());
  ATTEND_CHECK(features.scores.numel() == 0 || features.scores.shape() == (Shape{L, L}),
               "scores must be [" << L << ", " << L << "], got " << shape_to_string(features.scores.shape()));
  AtomicOutput output(path);
  try {
    Hdf5File file = Hdf5File::create(output.temp_path(), kAlignmentSchema, kAlignmentSchemaVersion);
    file.write_int32("/codes", std::vector<int32_t>(a.codes.begin(), a.codes.end()), {N, L});  // [N, L]
    file.write_tensor("/weights", Tensor({N}, features.weights));                            // [N]
    file.write_strings("/names", a.names);
    file.write_string("/query", a.sequence(a.query));
    file.set_attr("/", "length", L);
    file.set_attr("/", "num_sequences", N);
    file.set_attr("/", "n_eff", features.n_eff);
    file.set_attr("/", "identity_threshold", features.identity_threshold);
    file.set_attr("/", "query_index", a.query);
    file.set_attr("/", "alphabet", std::string(kAminoAcids) + "-");
    if (features.scores.numel() > 0) {
      file.write_tensor("/scores", features.scores);  // [L, L]
      file.write_string("/scores_config", with_short_floats(features.scores_parameters).dump());
      file.set_attr("/", "scores_method", features.scores_method);
    }
    file.close();
  } catch (const InputError& error) {
    throw InputError(path, 0, std::string("cannot write alignment: ") + error.what());
  }
  output.commit();
}

bool is_hdf5_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char signature[8] = {};
  in.read(signature, 8);
  return in.gcount() == 8 && std::memcmp(signature, "\x89HDF\r\n\x1a\n", 8) == 0;
}

AlignmentFeatures read_alignment_h5(const std::string& path) {
  const Hdf5File file = Hdf5File::open(path);
  file.require_schema(kAlignmentSchema, kAlignmentSchemaVersion);
  AlignmentFeatures f;
  Alignment& a = f.alignment;
  Shape shape;
  const std::vector<int32_t> codes = file.read_int32("/codes", &shape);
  if (shape.size() != 2) throw InputError(path, 0, "dataset '/codes': expected [N, L], got " + shape_to_string(shape));
  // As the text readers: an alignment has a sequence (the query) and an aligned column.
  if (shape[0] < 1 || shape[1] < 1) {
    throw InputError(path, 0, "dataset '/codes': no sequences or no columns (shape " + shape_to_string(shape) + ")");
  }
  if (shape[1] > kMaxAlignmentColumns) {
    throw InputError(path, 0, "dataset '/codes': " + std::to_string(shape[1]) + " aligned columns, more than the " +
                                  std::to_string(kMaxAlignmentColumns) + " supported");
  }
  a.length = shape[1];
  a.codes.reserve(codes.size());
  for (int32_t c : codes) {
    if (c < 0 || c >= kNumStates) throw InputError(path, 0, "dataset '/codes': code " + std::to_string(c) + " out of range");
    a.codes.push_back(static_cast<uint8_t>(c));
  }
  a.names = file.read_strings("/names");
  const Tensor weights = file.read_tensor("/weights", {shape[0]});  // [N]
  f.weights.assign(weights.data(), weights.data() + weights.numel());
  if (static_cast<int64_t>(a.names.size()) != shape[0]) {
    throw InputError(path, 0, "'/names' must have one entry per row of '/codes'");
  }
  a.query = file.get_attr_int64("/", "query_index");
  if (a.query < 0 || a.query >= shape[0]) {
    throw InputError(path, 0, "attribute 'query_index' of '/': " + std::to_string(a.query) + " is not a row of '/codes' (0.." +
                                  std::to_string(shape[0] - 1) + ")");
  }
  f.n_eff = file.get_attr_double("/", "n_eff");
  f.identity_threshold = file.get_attr_double("/", "identity_threshold");
  if (file.exists("/scores")) {
    f.scores = file.read_tensor("/scores", {a.length, a.length});  // [L, L]
    f.scores_method = file.get_attr_string("/", "scores_method");
    f.scores_parameters = parse_json(file.read_string("/scores_config"), path, "dataset '/scores_config'");
  }
  return f;
}

}  // namespace attend::bio
