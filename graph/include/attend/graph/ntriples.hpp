#pragma once
/// N-Triples (W3C RDF 1.1 N-Triples) reader: one `subject predicate object .` per line.
/// Subjects are IRIs or blank nodes, predicates IRIs, objects IRIs, blank nodes or literals
/// (`"text"`, `"text"@lang`, `"text"^^<datatype>`); `#` comments and blank lines are skipped.

#include <functional>
#include <string>

namespace attend::graph {

/// One triple; each term is kept in its canonical N-Triples spelling (`<iri>`, `_:b0`,
/// `"text"^^<type>`), so equal terms compare equal as strings.
struct Triple {
  std::string subject, predicate, object;
};

/// Parse one line. Returns false for a blank or comment line; throws attend::InputError
/// (with `file` and `line`) when the line is not a triple.
bool parse_ntriples_line(const std::string& text, Triple& out, const std::string& file,
                         std::size_t line);

/// Call `fn` for every triple of `path` (plain or .gz), in file order.
void read_ntriples(const std::string& path, const std::function<void(const Triple&)>& fn);

/// The IRI inside a term `<...>` (the term itself when it is not an IRI).
std::string iri_of(const std::string& term);

}  // namespace attend::graph
