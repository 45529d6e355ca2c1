#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "attend/bio/alignment.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/bio/pdb_reader.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
const std::string kBroken = ATTEND_BIO_FIXTURES "/broken/";

// Read `path` with the reader its folder names; the InputError message, or "no error".
std::string error_of(const std::string& folder, const std::string& path) {
  try {
    if (folder == "pdb") {
      bio::read_pdb_chain(path);
    } else if (folder == "contacts") {
      bio::read_contacts_tsv(path);
    } else {
      bio::read_alignment(path);
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("every broken file fails with the file and the exact line", "[bio][io]") {
  io::LineReader expected(kBroken + "EXPECTED.tsv");
  std::set<std::string> listed;
  std::string line;
  while (expected.next(line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto fields = io::split_on(line, '\t');
    REQUIRE(fields.size() == 3);
    const std::string path = kBroken + fields[0];
    const std::string folder = fields[0].substr(0, fields[0].find('/'));
    const std::string location = fields[1] == "0" ? path + ": " : path + ":" + fields[1] + ": ";
    listed.insert(fields[0]);
    INFO(fields[0]);
    REQUIRE(fs::exists(path));
    const std::string message = error_of(folder, path);
    CHECK(message.rfind(location, 0) == 0);  // starts with "<path>:<line>: "
    CHECK_THAT(message, Catch::Contains(fields[2]));
  }
  // Nothing in the corpus escapes the list.
  for (const auto& entry : fs::recursive_directory_iterator(kBroken)) {
    if (!entry.is_regular_file() || entry.path().filename() == "EXPECTED.tsv") continue;
    const std::string relative = fs::relative(entry.path(), kBroken).generic_string();
    INFO(relative);
    CHECK(listed.count(relative) == 1);
  }
  CHECK(listed.size() >= 30);
}

TEST_CASE("a missing alignment file names the file", "[bio][io]") {
  CHECK_THROWS_WITH(bio::read_alignment(kBroken + "does_not_exist.fasta"),
                    Catch::Contains("does_not_exist.fasta: no such file"));
}

TEST_CASE("an alignment wider than the supported columns is bad input", "[bio][io]") {
  // Found by scripts/fuzz_inputs.py: 70000 columns reached the sequence weights' uint16 check
  // and failed as an internal error.
  const fs::path path = fs::temp_directory_path() / "attend_test_wide.aln";
  std::ofstream(path) << std::string(bio::kMaxAlignmentColumns + 1, 'A') << '\n';
  CHECK_THROWS_WITH(bio::read_alignment(path.string()),
                    path.string() + ": 65536 aligned columns, more than the 65535 supported");
  fs::remove(path);
}
