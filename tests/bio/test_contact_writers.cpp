#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "attend/bio/contact_map.hpp"
#include "attend/bio/contact_readers.hpp"
#include "attend/bio/contact_writers.hpp"
#include "attend/core/error.hpp"
#include "attend/core/random.hpp"

using namespace attend;
using namespace attend::bio;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test case under the system temporary directory.
std::string temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("attend_contact_writers_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

Tensor random_scores(int64_t L, uint64_t seed) {
  Rng rng(seed);
  Tensor s({L, L});  // [L, L] symmetric, zero diagonal, negative values included
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + 1; j < L; ++j) s.at({i, j}) = s.at({j, i}) = rng.normal() * 0.37f;
  return s;
}

std::string query_of(int64_t L) {
  std::string q;
  for (int64_t k = 0; k < L; ++k) q += "ACDEFGHIKLMNPQRSTVWY"[k % 20];
  return q;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool no_temporaries(const std::string& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().string().find(".tmp.") != std::string::npos) return false;
  return true;
}

}  // namespace

TEST_CASE("score matrix .mat round-trips exactly", "[bio][io]") {
  const std::string dir = temp_dir("mat");
  const Tensor s = random_scores(17, 1);
  write_scores_mat(dir + "/p.mat", s);
  CHECK(bitwise_equal(read_scores_mat(dir + "/p.mat"), s));
  CHECK(bitwise_equal(read_prediction(dir + "/p.mat"), s));
  const std::vector<std::string> lines = read_lines(dir + "/p.mat");
  REQUIRE(lines.size() == 17);
  CHECK(std::count(lines[0].begin(), lines[0].end(), '\t') == 16);
  CHECK(no_temporaries(dir));
}

TEST_CASE("CASP RR lists pairs by score with the header and END", "[bio][io]") {
  const std::string dir = temp_dir("rr");
  const int64_t L = 60;
  const Tensor s = random_scores(L, 2);
  RrOptions options;
  options.target = "T0001";
  options.method = "attend potts";
  write_casp_rr(dir + "/p.rr", s, query_of(L), options);
  const std::vector<std::string> lines = read_lines(dir + "/p.rr");
  REQUIRE(lines.size() > 6);
  CHECK(lines[0] == "PFRMAT RR");
  CHECK(lines[1] == "TARGET T0001");
  CHECK(lines[2] == "METHOD attend potts");
  CHECK(lines[3] == "MODEL  1");
  CHECK(lines[4] == query_of(L).substr(0, 50));
  CHECK(lines[5] == query_of(L).substr(50));
  CHECK(lines.back() == "END");
  // Pairs with j - i >= 6: (L - 6)(L - 5) / 2.
  CHECK(lines.size() == 7 + static_cast<std::size_t>((L - 6) * (L - 5) / 2));

  // Reading back: listed pairs in the same order as the original scores, p in [0, 1] with
  // the best pair at 1 and the worst at 0, linear in the score.
  const Tensor back = read_prediction(dir + "/p.rr");
  REQUIRE(back.shape() == Shape{L, L});
  float best = -1e30f, worst = 1e30f;
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + 6; j < L; ++j) {
      best = std::max(best, s.at({i, j}));
      worst = std::min(worst, s.at({i, j}));
    }
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + 1; j < L; ++j) {
      const double expected = j - i >= 6 ? (s.at({i, j}) - worst) / double(best - worst) : 0.0;
      REQUIRE(back.at({i, j}) == Approx(expected).margin(1e-7));
      REQUIRE(back.at({j, i}) == back.at({i, j}));
    }
  // Sorted: p never increases down the file.
  double previous = 2.0;
  for (std::size_t k = 6; k + 1 < lines.size(); ++k) {
    const double p = std::stod(lines[k].substr(lines[k].rfind(' ') + 1));
    REQUIRE(p <= previous);
    previous = p;
  }

  options.max_pairs = 10;
  options.min_separation = 1;
  write_casp_rr(dir + "/top.rr", s, query_of(L), options);
  CHECK(read_lines(dir + "/top.rr").size() == 4 + 2 + 10 + 1);
}

TEST_CASE("HDF5 prediction file round-trips", "[bio][io]") {
  const std::string dir = temp_dir("h5");
  ContactPrediction p;
  p.scores = random_scores(23, 3);
  p.query = query_of(23);
  p.method = "potts";
  p.parameters = {{"lambda_pair", 4.4}, {"iterations", 17}, {"optimizer", "lbfgs"}};
  write_contacts_h5(dir + "/p.h5", p);
  const ContactPrediction back = read_contacts_h5(dir + "/p.h5");
  CHECK(bitwise_equal(back.scores, p.scores));
  CHECK(back.query == p.query);
  CHECK(back.method == "potts");
  CHECK(back.parameters == p.parameters);
  CHECK(bitwise_equal(read_prediction(dir + "/p.h5"), p.scores));
  CHECK(no_temporaries(dir));
}

TEST_CASE("contact PNG has a valid signature and the expected size", "[bio][io]") {
  const std::string dir = temp_dir("png");
  const int64_t L = 75;
  const Tensor s = random_scores(L, 4);
  ContactMap truth(L);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + 1; j < L; ++j) truth.set(i, j, 5.0f, (i + j) % 7 == 0);
  ContactPngOptions options;
  options.truth = &truth;
  write_contact_png(dir + "/p.png", s, options);

  std::ifstream in(dir + "/p.png", std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 33);
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  CHECK(std::equal(signature, signature + 8, bytes.begin()));
  auto be32 = [&](std::size_t k) {
    return (uint32_t(bytes[k]) << 24) | (uint32_t(bytes[k + 1]) << 16) | (uint32_t(bytes[k + 2]) << 8) | bytes[k + 3];
  };
  CHECK(std::string(bytes.begin() + 12, bytes.begin() + 16) == "IHDR");
  CHECK(be32(16) == 450);  // L = 75 scaled by 6 to reach 400 pixels
  CHECK(be32(20) == 450);
  CHECK(no_temporaries(dir));

  options.truth = nullptr;
  options.min_pixels = 10;
  write_contact_png(dir + "/small.png", s, options);
  std::ifstream small(dir + "/small.png", std::ios::binary);
  std::vector<unsigned char> head(24);
  small.read(reinterpret_cast<char*>(head.data()), 24);
  CHECK(((uint32_t(head[16]) << 24) | (uint32_t(head[17]) << 16) | (uint32_t(head[18]) << 8) | head[19]) == 75);
}

TEST_CASE("a failed write leaves no file and readers name bad input", "[bio][io]") {
  const std::string dir = temp_dir("fail");
  CHECK_THROWS_AS(write_scores_mat(dir + "/missing/p.mat", random_scores(5, 5)), InputError);
  // Wrong query length: a precondition error, nothing written.
  CHECK_THROWS_AS(write_casp_rr(dir + "/p.rr", random_scores(8, 6), "ACD"), Error);
  CHECK(!fs::exists(dir + "/p.rr"));
  CHECK(no_temporaries(dir));

  std::ofstream(dir + "/ragged.mat") << "0 1 2\n1 0\n2 1 0\n";
  CHECK_THROWS_WITH(read_prediction(dir + "/ragged.mat"), Catch::Contains("ragged.mat:2"));
  std::ofstream(dir + "/bad.rr") << "PFRMAT RR\nMODEL 1\nACDEFGH\n1 7 0 8 x\nEND\n";
  CHECK_THROWS_WITH(read_prediction(dir + "/bad.rr"), Catch::Contains("bad.rr:4"));
  // Found by scripts/fuzz_inputs.py: without a sequence line the residue numbers give L, and
  // a mistyped one must not ask for an L x L map of terabytes.
  std::ofstream(dir + "/huge.rr") << "PFRMAT RR\n1 2 0 8 0.5\n1 99999999 0 8 0.5\nEND\n";
  CHECK_THROWS_WITH(read_prediction(dir + "/huge.rr"), Catch::Contains("huge.rr:3") &&
                                                         Catch::Contains("longest supported sequence"));
  std::ofstream(dir + "/long.rr") << "PFRMAT RR\n" << std::string(kMaxContactMapLength + 1, 'A') << "\nEND\n";
  CHECK_THROWS_WITH(read_prediction(dir + "/long.rr"), Catch::Contains("long.rr: ") &&
                                                         Catch::Contains("longer than the longest supported"));
}
