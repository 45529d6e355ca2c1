#include "attend/bio/alignment.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "alignment_readers.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::bio {

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Move row `q` to the front; the others keep their order.
void move_to_front(Alignment& a, int64_t q) {
  if (q == 0) return;
  std::rotate(a.names.begin(), a.names.begin() + q, a.names.begin() + q + 1);
  const auto row_begin = a.codes.begin() + q * a.length;
  std::rotate(a.codes.begin(), row_begin, row_begin + a.length);
}
}  // namespace

std::string Alignment::sequence(int64_t n) const { return decode_residues(row(n), length); }

AlignmentFormat parse_alignment_format(std::string_view name) {
  const std::string n = lower(name);
  if (n == "auto") return AlignmentFormat::kAuto;
  if (n == "a3m") return AlignmentFormat::kA3m;
  if (n == "fasta" || n == "a2m" || n == "fa") return AlignmentFormat::kFasta;
  if (n == "aln" || n == "psicov") return AlignmentFormat::kPsicov;
  if (n == "stockholm" || n == "sto") return AlignmentFormat::kStockholm;
  throw InputError("unknown alignment format '" + std::string(name) +
                   "' (choose auto, a3m, fasta, a2m, aln, psicov, stockholm, sto)");
}

AlignmentFormat detect_alignment_format(const std::string& path) {
  std::filesystem::path p(path);
  if (lower(p.extension().string()) == ".gz") p = p.stem();
  const std::string ext = lower(p.extension().string());
  if (ext == ".a3m") return AlignmentFormat::kA3m;
  if (ext == ".fasta" || ext == ".fa" || ext == ".fas" || ext == ".afa" || ext == ".a2m") {
    return AlignmentFormat::kFasta;
  }
  if (ext == ".aln" || ext == ".psicov") return AlignmentFormat::kPsicov;
  if (ext == ".sto" || ext == ".stk" || ext == ".sth" || ext == ".stockholm") {
    return AlignmentFormat::kStockholm;
  }
  io::LineReader reader(path);
  std::string line;
  while (reader.next(line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (line.rfind("# STOCKHOLM", 0) == 0) return AlignmentFormat::kStockholm;
    if (line[0] == '#') return AlignmentFormat::kA3m;
    if (line[0] == '>') return AlignmentFormat::kFasta;
    return AlignmentFormat::kPsicov;
  }
  throw InputError(path, 0, "no sequences (empty alignment)");
}

Alignment read_alignment(const std::string& path, AlignmentFormat format,
                         const std::string& query_name) {
  if (format == AlignmentFormat::kAuto) format = detect_alignment_format(path);
  Alignment a;
  switch (format) {
    case AlignmentFormat::kA3m: a = detail::read_fasta(path, true); break;
    case AlignmentFormat::kFasta: a = detail::read_fasta(path, false); break;
    case AlignmentFormat::kPsicov: a = detail::read_psicov(path); break;
    case AlignmentFormat::kStockholm: a = detail::read_stockholm(path); break;
    case AlignmentFormat::kAuto: break;
  }
  if (a.length > kMaxAlignmentColumns) {
    throw InputError(path, 0, std::to_string(a.length) + " aligned columns, more than the " +
                                  std::to_string(kMaxAlignmentColumns) + " supported");
  }
  if (!query_name.empty()) {
    const auto it = std::find(a.names.begin(), a.names.end(), query_name);
    if (it == a.names.end()) {
      throw InputError(path, 0, "no sequence named " + quoted_input(query_name) + " (the query)");
    }
    move_to_front(a, it - a.names.begin());
  }
  a.query = 0;
  return a;
}

Alignment alignment_from_rows(const std::vector<std::string>& rows, const std::string& source) {
  if (rows.empty()) throw InputError(source, 0, "no sequences (empty alignment)");
  Alignment a;
  for (std::size_t n = 0; n < rows.size(); ++n) {
    const std::string where = "row " + std::to_string(n + 1);
    std::size_t columns = 0;
    for (char c : rows[n]) {
      if ((c >= 'a' && c <= 'z') || c == '.') continue;  // insertion: not an aligned column
      const uint8_t code = residue_code(c);
      if (code == kInvalidCode) {
        throw InputError(source, 0, where + ": unknown residue character " + quoted_input(std::string(1, c)) +
                                        " (expected one of " + std::string(kAminoAcids) + "XBZJUO-)");
      }
      a.codes.push_back(code);
      ++columns;
    }
    if (columns == 0) throw InputError(source, 0, where + " has no aligned columns");
    if (n == 0) a.length = static_cast<int64_t>(columns);
    if (static_cast<int64_t>(columns) != a.length) {
      throw InputError(source, 0, where + " has " + std::to_string(columns) + " aligned columns, row 1 has " +
                                      std::to_string(a.length));
    }
    if (a.length > kMaxAlignmentColumns) {
      throw InputError(source, 0, "more than " + std::to_string(kMaxAlignmentColumns) + " columns");
    }
    a.names.push_back(std::to_string(n + 1));
  }
  return a;
}

}  // namespace attend::bio
