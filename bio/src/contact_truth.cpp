#include "attend/bio/contact_truth.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attend/bio/structure_mapping.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::bio {

ContactMap contacts_from_points(const std::vector<std::optional<Point3>>& points, double cutoff) {
  const int64_t L = static_cast<int64_t>(points.size());
  ContactMap map(L);
  for (int64_t i = 0; i < L; ++i) {
    if (!points[static_cast<std::size_t>(i)]) continue;
    for (int64_t j = i + 1; j < L; ++j) {
      if (!points[static_cast<std::size_t>(j)]) continue;
      const double d = distance(*points[static_cast<std::size_t>(i)], *points[static_cast<std::size_t>(j)]);
      map.set(i, j, static_cast<float>(d), d < cutoff);
    }
  }
  return map;
}

ContactMap contacts_from_pdb(const std::string& pdb_path, const std::string& query,
                             const std::string& chain, double cutoff, StructureMapping* mapping_out) {
  const PdbChain structure = read_pdb_chain(pdb_path, chain);
  const StructureMapping mapping = map_structure_to_query(query, structure.sequence());
  if (mapping.identical == 0) {
    const std::string which = structure.id == ' ' ? std::string("the chain") : std::string("chain '") + structure.id + "'";
    throw InputError(pdb_path, 0, "no residue of " + which + " (" + std::to_string(structure.residues.size()) +
                                      " residues) matches the query (" + std::to_string(query.size()) +
                                      " positions): is it the structure of this protein?");
  }
  StructureMapping located = mapping;
  std::vector<std::optional<Point3>> points(query.size());
  for (std::size_t i = 0; i < query.size(); ++i) {
    const int64_t r = mapping.residue[i];
    if (r < 0) continue;
    const PdbResidue& residue = structure.residues[static_cast<std::size_t>(r)];
    if (residue.has_position()) {
      points[i] = residue.position();
      ++located.with_coordinates;
    }
  }
  if (located.with_coordinates < 2) {
    throw InputError(pdb_path, 0, std::to_string(located.with_coordinates) + " of the " + std::to_string(mapping.aligned) +
                                      " residues aligned to the query have a CA or CB atom: no contact can be evaluated");
  }
  if (mapping_out) *mapping_out = located;
  return contacts_from_points(points, cutoff);
}

namespace {
struct TsvPair {
  int64_t i, j;
  float distance;
  bool contact;
  std::size_t line;
};
}  // namespace

ContactMap read_contacts_tsv(const std::string& path) {
  io::LineReader reader(path);
  std::vector<TsvPair> pairs;
  int64_t declared_length = -1;
  int64_t max_index = 0;
  std::string line;
  while (reader.next(line)) {
    const auto fields = io::split_whitespace(line);
    if (fields.empty()) continue;
    if (fields[0][0] == '#') {
      if (fields[0] == "#L") {
        if (fields.size() != 2) reader.fail("expected '#L <length>', got " + quoted_input(line));
        declared_length = reader.parse_int(fields[1], "a sequence length");
        if (declared_length <= 0 || declared_length > kMaxContactMapLength) {
          reader.fail("the length must be in 1.." + std::to_string(kMaxContactMapLength) + ", got " + fields[1]);
        }
      }
      continue;
    }
    if (fields.size() != 4) {
      reader.fail("expected 'i j dist contact', got " + std::to_string(fields.size()) + " fields");
    }
    TsvPair p;
    p.i = reader.parse_int(fields[0], "a 1-based position i");
    p.j = reader.parse_int(fields[1], "a 1-based position j");
    if (p.i < 1 || p.j < 1 || p.i == p.j) {
      reader.fail("positions must be >= 1 and differ, got " + fields[0] + " " + fields[1]);
    }
    if (p.i > kMaxContactMapLength || p.j > kMaxContactMapLength) {
      reader.fail("position beyond the longest supported sequence, " + std::to_string(kMaxContactMapLength));
    }
    p.distance = fields[2] == "NA" ? std::numeric_limits<float>::quiet_NaN()
                                   : reader.parse_float(fields[2], "a distance or NA");
    if (fields[3] != "0" && fields[3] != "1") reader.fail("expected contact 0 or 1, got " + quoted_input(fields[3]));
    p.contact = fields[3] == "1";
    p.line = reader.line_number();
    max_index = std::max({max_index, p.i, p.j});
    pairs.push_back(p);
  }
  if (pairs.empty()) throw InputError(path, 0, "no contact pairs (empty contacts file)");
  const int64_t L = declared_length > 0 ? declared_length : max_index;
  ContactMap map(L);
  for (const TsvPair& p : pairs) {
    if (p.i > L || p.j > L) {
      throw InputError(path, p.line, "position beyond the declared length #L " + std::to_string(L));
    }
    const int64_t i = p.i - 1, j = p.j - 1;
    if (map.evaluable(i, j) && map.contact(i, j) != p.contact) {
      throw InputError(path, p.line, "pair " + std::to_string(p.i) + " " + std::to_string(p.j) +
                                         " listed before with the other contact flag");
    }
    map.set(i, j, p.distance, p.contact);
  }
  return map;
}

std::optional<ContactMap> load_contact_truth(const ContactTruthSource& source, const std::string& query, int64_t L,
                                             const std::string& scored, std::vector<std::string>& warnings) {
  if (!source.tsv.empty()) {
    ContactMap truth = read_contacts_tsv(source.tsv);
    if (truth.length() != L) {
      throw InputError(source.tsv, 0, "the contacts cover " + std::to_string(truth.length()) + " positions, " +
                                          scored + " has " + std::to_string(L));
    }
    return truth;
  }
  if (source.pdb.empty()) return std::nullopt;
  std::string sequence = query;
  if (sequence.empty()) {  // a bare matrix: positions are the chain's residues
    sequence = read_pdb_chain(source.pdb, source.chain).sequence();
    if (static_cast<int64_t>(sequence.size()) != L) {
      throw InputError(source.pdb, 0, "the prediction records no sequence and its length " + std::to_string(L) +
                                          " differs from the chain's " + std::to_string(sequence.size()) +
                                          " residues; use --truth or the .h5/.rr prediction");
    }
  }
  StructureMapping mapping;
  ContactMap truth = contacts_from_pdb(source.pdb, sequence, source.chain, kContactCutoff, &mapping);
  // The same protein matches at nearly every residue the structure and the query share.
  const int64_t shared = std::min<int64_t>(mapping.structure_residues, static_cast<int64_t>(sequence.size()));
  if (2 * mapping.identical < shared) {
    warnings.push_back(source.pdb + ": only " + std::to_string(mapping.identical) + " of the structure's " +
                       std::to_string(mapping.structure_residues) + " residues match the query (" +
                       std::to_string(sequence.size()) + " positions); is it the structure of this protein?");
  }
  if (2 * mapping.with_coordinates < mapping.aligned) {
    warnings.push_back(source.pdb + ": only " + std::to_string(mapping.with_coordinates) + " of the " +
                       std::to_string(mapping.aligned) +
                       " residues aligned to the query have a CA or CB atom; the others cannot be scored");
  }
  return truth;
}

}  // namespace attend::bio
