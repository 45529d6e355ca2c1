#include <catch2/catch.hpp>

#include <filesystem>

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
