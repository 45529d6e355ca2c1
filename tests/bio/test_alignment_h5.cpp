#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>

#include "attend/bio/alignment_h5.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::bio;

TEST_CASE("the alignment HDF5 file round-trips codes, weights, names and scores", "[bio][io]") {
  attend::testing::TempDir tmp;
  AlignmentFeatures f;
  f.alignment.length = 3;
  f.alignment.names = {"q", "s1"};
  f.alignment.codes = {0, 20, 19, 4, 5, 6};
  f.weights = {1.0f, 0.5f};
  f.n_eff = 1.5;
  const std::string path = (tmp.path() / "a.h5").string();
  write_alignment_h5(path, f);
  AlignmentFeatures back = read_alignment_h5(path);
  CHECK(back.alignment.codes == f.alignment.codes);
  CHECK(back.alignment.names == f.alignment.names);
  CHECK(back.alignment.length == 3);
  CHECK(back.weights == f.weights);
  CHECK(back.n_eff == 1.5);
  CHECK(back.scores.numel() == 0);
  {
    const Hdf5File file = Hdf5File::open(path);
    CHECK(file.schema() == "attend.alignment");
    CHECK(file.read_string("/query") == "A-V");
  }

  f.scores = Tensor({3, 3}, {0, 1, 2, 1, 0, 3, 2, 3, 0});
  f.scores_method = "potts";
  f.scores_parameters = {{"n_eff", 1.5}};
  write_alignment_h5(path, f);
  back = read_alignment_h5(path);
  CHECK(bitwise_equal(back.scores, f.scores));
  CHECK(back.scores_method == "potts");
  CHECK(back.scores_parameters["n_eff"] == 1.5);
  CHECK(std::distance(std::filesystem::directory_iterator(tmp.path()), {}) == 1);
  CHECK_THROWS_AS(read_alignment_h5((tmp.path() / "missing.h5").string()), InputError);
}

TEST_CASE("alignment HDF5 files with no rows, NaN values or wrong shapes are input errors", "[bio][io]") {
  // Issue #18: zero rows made `contacts predict --method potts` crash; NaN weights or scores
  // and a scores matrix of the wrong size failed later as internal errors. The writer makes
  // none of these, so the files are written field by field here.
  attend::testing::TempDir tmp;
  struct Fields {
    int64_t rows = 2;
    Tensor weights = Tensor({2}, 1.0f);
    Tensor scores = Tensor({3, 3}, 0.5f);
    int64_t query = 0;
  };
  const auto written = [&](const Fields& f, const std::string& name) {
    const std::string path = tmp.file(name);
    Hdf5File file = Hdf5File::create(path, kAlignmentSchema, kAlignmentSchemaVersion);
    file.write_int32("/codes", std::vector<int32_t>(static_cast<std::size_t>(f.rows * 3), 1), {f.rows, 3});  // [N, 3]
    file.write_tensor("/weights", f.weights);
    file.write_strings("/names", std::vector<std::string>(static_cast<std::size_t>(f.rows), "s"));
    file.set_attr("/", "n_eff", 2.0);
    file.set_attr("/", "identity_threshold", 0.8);
    file.set_attr("/", "query_index", f.query);
    file.write_tensor("/scores", f.scores);
    file.write_string("/scores_config", "{}");
    file.set_attr("/", "scores_method", "potts");
    file.close();
    return path;
  };
  CHECK(read_alignment_h5(written(Fields{}, "good.h5")).alignment.num_sequences() == 2);

  Fields empty;
  empty.rows = 0;
  empty.weights = Tensor({0});
  CHECK_THROWS_WITH(read_alignment_h5(written(empty, "empty.h5")), Catch::Contains("no sequences or no columns"));

  Fields nan_weight;
  nan_weight.weights[1] = std::nanf("");
  CHECK_THROWS_WITH(read_alignment_h5(written(nan_weight, "nan.h5")), Catch::Contains("'/weights': a non-finite value"));

  Fields wide_weights;
  wide_weights.weights = Tensor({2, 1}, 1.0f);
  CHECK_THROWS_WITH(read_alignment_h5(written(wide_weights, "wide.h5")),
                    Catch::Contains("'/weights': expected shape [2], found [2, 1]"));

  Fields small_scores;
  small_scores.scores = Tensor({2, 2}, 0.5f);
  CHECK_THROWS_WITH(read_alignment_h5(written(small_scores, "scores.h5")),
                    Catch::Contains("'/scores': expected shape [3, 3], found [2, 2]"));

  Fields inf_scores;
  inf_scores.scores[4] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(read_alignment_h5(written(inf_scores, "inf.h5")), InputError);

  Fields far_query;
  far_query.query = 7;
  CHECK_THROWS_WITH(read_alignment_h5(written(far_query, "query.h5")), Catch::Contains("'query_index'"));
}
