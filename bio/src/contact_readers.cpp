#include "attend/bio/contact_readers.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include "attend/bio/contact_map.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/json_reader.hpp"

namespace attend::bio {

namespace {

bool blank_or_comment(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  return first == std::string::npos || line[first] == '#';
}

bool letters_only(const std::string& line) {
  bool any = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '-') return false;
    any = true;
  }
  return any;
}

bool is_hdf5(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char signature[8] = {};
  in.read(signature, 8);
  return in.gcount() == 8 && std::memcmp(signature, "\x89HDF\r\n\x1a\n", 8) == 0;
}

}  // namespace

Tensor read_scores_mat(const std::string& path) {
  io::LineReader reader(path);
  std::vector<float> values;
  int64_t L = -1;
  int64_t rows = 0;
  std::string line;
  while (reader.next(line)) {
    if (blank_or_comment(line)) continue;
    const std::vector<std::string> fields = io::split_whitespace(line);
    if (L < 0) L = static_cast<int64_t>(fields.size());
    if (static_cast<int64_t>(fields.size()) != L) {
      reader.fail("expected " + std::to_string(L) + " scores as on the first row, got " +
                  std::to_string(fields.size()));
    }
    if (rows == L) reader.fail("more than " + std::to_string(L) + " rows for " + std::to_string(L) + " columns");
    for (const std::string& f : fields) values.push_back(reader.parse_float(f, "a score"));
    ++rows;
  }
  if (L <= 0) throw InputError(path, 0, "no scores in the file");
  if (rows != L) {
    throw InputError(path, reader.line_number(),
                     "a score matrix must be square: " + std::to_string(rows) + " rows of " +
                         std::to_string(L) + " scores");
  }
  return Tensor({L, L}, std::move(values));
}

Tensor read_casp_rr(const std::string& path, std::string* sequence_out) {
  io::LineReader reader(path);
  struct Entry {
    int64_t i, j;
    float p;
    std::size_t line;
  };
  std::vector<Entry> entries;
  std::string sequence;
  std::string line;
  bool ended = false;
  while (!ended && reader.next(line)) {
    if (blank_or_comment(line)) continue;
    const std::vector<std::string> fields = io::split_whitespace(line);
    const std::string& key = fields[0];
    if (key == "END") {
      ended = true;
    } else if (key == "PFRMAT" || key == "TARGET" || key == "AUTHOR" || key == "METHOD" ||
               key == "REMARK" || key == "MODEL") {
      continue;
    } else if (letters_only(line)) {
      for (const std::string& f : fields) sequence += f;
    } else {
      if (fields.size() != 5 && fields.size() != 3) {
        reader.fail("expected a contact line 'i j d1 d2 p' (or 'i j p'), got " +
                    std::to_string(fields.size()) + " fields");
      }
      const int64_t i = reader.parse_int(fields[0], "a residue number i");
      const int64_t j = reader.parse_int(fields[1], "a residue number j");
      const float p = reader.parse_float(fields.back(), "a probability p");
      if (i < 1 || j < 1 || i == j) reader.fail("residue numbers must be >= 1 and differ");
      if (i > kMaxContactMapLength || j > kMaxContactMapLength) {
        reader.fail("residue number beyond the longest supported sequence, " + std::to_string(kMaxContactMapLength));
      }
      entries.push_back({i - 1, j - 1, p, reader.line_number()});
    }
  }
  int64_t L = static_cast<int64_t>(sequence.size());
  if (L == 0) {
    for (const Entry& e : entries) L = std::max({L, e.i + 1, e.j + 1});
  }
  if (L == 0) throw InputError(path, 0, "no sequence and no contacts in the RR file");
  if (L > kMaxContactMapLength) {
    throw InputError(path, 0, "a sequence of " + std::to_string(L) + " residues, longer than the longest supported, " +
                                  std::to_string(kMaxContactMapLength));
  }
  Tensor scores({L, L});  // [L, L], 0 where not listed
  for (const Entry& e : entries) {
    if (e.i >= L || e.j >= L) {
      throw InputError(path, e.line, "residue number beyond the sequence length " + std::to_string(L));
    }
    scores[e.i * L + e.j] = e.p;
    scores[e.j * L + e.i] = e.p;
  }
  if (sequence_out != nullptr) *sequence_out = sequence;
  return scores;
}

ContactPrediction read_contacts_h5(const std::string& path) {
  const Hdf5File file = Hdf5File::open(path);
  file.require_schema(kContactsSchema, kContactsSchemaVersion);
  ContactPrediction prediction;
  prediction.scores = file.read_tensor("/scores");
  const Shape& shape = prediction.scores.shape();
  if (shape.size() != 2 || shape[0] != shape[1]) {
    throw InputError(path, 0, "dataset '/scores': expected a square matrix, got " + shape_to_string(shape));
  }
  prediction.query = file.read_string("/query");
  if (!prediction.query.empty() && static_cast<int64_t>(prediction.query.size()) != shape[0]) {
    throw InputError(path, 0, "dataset '/query': " + std::to_string(prediction.query.size()) + " letters for scores of shape " +
                                  shape_to_string(shape));
  }
  prediction.method = file.get_attr_string("/", "method");
  prediction.parameters = parse_json(file.read_string("/config"), path, "dataset '/config'");
  return prediction;
}

Tensor read_prediction(const std::string& path, std::string* query) {
  if (query != nullptr) query->clear();
  if (is_hdf5(path)) {
    ContactPrediction prediction = read_contacts_h5(path);
    if (query != nullptr) *query = prediction.query;
    return std::move(prediction.scores);
  }
  io::LineReader reader(path);
  std::string line;
  while (reader.next(line)) {
    if (blank_or_comment(line)) continue;
    if (line.rfind("PFRMAT", 0) == 0) return read_casp_rr(path, query);
    break;
  }
  return read_scores_mat(path);
}

}  // namespace attend::bio
