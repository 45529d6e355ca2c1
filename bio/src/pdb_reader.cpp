#include "attend/bio/pdb_reader.hpp"

#include <cmath>
#include <set>

#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::bio {

namespace {
// Columns of the fixed-width PDB record (0-based start, length).
std::string field(const std::string& line, std::size_t start, std::size_t length) {
  return start < line.size() ? line.substr(start, length) : std::string();
}

std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

char column(const std::string& line, std::size_t index) { return index < line.size() ? line[index] : ' '; }
}  // namespace

double distance(const Point3& a, const Point3& b) {
  const double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

Point3 PdbResidue::position() const {
  ATTEND_CHECK(has_position(), "residue " << name << " " << number << " has neither CA nor CB");
  if (has_cb && letter != 'G') return cb;
  return has_ca ? ca : cb;
}

std::string PdbChain::sequence() const {
  std::string out;
  out.reserve(residues.size());
  for (const PdbResidue& r : residues) out.push_back(r.letter);
  return out;
}

PdbChain read_pdb_chain(const std::string& path, const std::string& chain) {
  if (chain.size() > 1) throw InputError("a PDB chain id is one character, got " + quoted_input(chain));
  io::LineReader reader(path);
  PdbChain out;
  bool chain_chosen = chain.size() == 1;
  if (chain_chosen) out.id = chain[0];
  std::set<char> chains_seen;
  char residue_altloc = ' ';  // first altLoc met in the current residue
  std::string line;
  while (reader.next(line)) {
    if (line.rfind("ENDMDL", 0) == 0) break;
    const bool atom = line.rfind("ATOM  ", 0) == 0;
    const bool hetatm = line.rfind("HETATM", 0) == 0;
    if (!atom && !hetatm) continue;
    const std::string res_name = trimmed(field(line, 17, 3));
    if (hetatm && res_name != "MSE") continue;
    if (line.size() < 54) {
      reader.fail("coordinate record has " + std::to_string(line.size()) +
                  " characters, expected at least 54 (x, y, z in columns 31-54)");
    }
    const char chain_id = column(line, 21);
    chains_seen.insert(chain_id);
    if (!chain_chosen) {
      out.id = chain_id;
      chain_chosen = true;
    }
    if (chain_id != out.id) continue;

    const int64_t number = reader.parse_int(trimmed(field(line, 22, 4)), "a residue number (columns 23-26)");
    const char icode = column(line, 26);
    const char altloc = column(line, 16);
    if (out.residues.empty() || out.residues.back().number != number ||
        out.residues.back().insertion_code != icode) {
      PdbResidue r;
      r.name = res_name;
      r.letter = residue_from_three_letter(res_name);
      r.number = number;
      r.insertion_code = icode;
      out.residues.push_back(r);
      residue_altloc = ' ';
    }
    if (altloc != ' ') {
      if (residue_altloc == ' ') residue_altloc = altloc;
      if (altloc != residue_altloc) continue;
    }
    PdbResidue& r = out.residues.back();
    const std::string atom_name = trimmed(field(line, 12, 4));
    const bool is_ca = atom_name == "CA", is_cb = atom_name == "CB";
    if (!is_ca && !is_cb) continue;
    if ((is_ca && r.has_ca) || (is_cb && r.has_cb)) continue;  // first copy wins
    Point3 p;
    p.x = reader.parse_float(trimmed(field(line, 30, 8)), "an x coordinate (columns 31-38)");
    p.y = reader.parse_float(trimmed(field(line, 38, 8)), "a y coordinate (columns 39-46)");
    p.z = reader.parse_float(trimmed(field(line, 46, 8)), "a z coordinate (columns 47-54)");
    if (is_ca) {
      r.ca = p;
      r.has_ca = true;
    } else {
      r.cb = p;
      r.has_cb = true;
    }
  }
  if (out.residues.empty()) {
    if (chains_seen.empty()) throw InputError(path, 0, "no ATOM records (or HETATM MSE) in the first model");
    std::string present;
    for (char c : chains_seen) present += std::string(present.empty() ? "" : ", ") + "'" + c + "'";
    throw InputError(path, 0, std::string("no chain '") + out.id + "' (chains present: " + present + ")");
  }
  return out;
}

}  // namespace attend::bio
