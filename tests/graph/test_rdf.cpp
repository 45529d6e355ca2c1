#include <catch2/catch.hpp>

#include <set>

#include "attend/core/error.hpp"
#include "attend/graph/ntriples.hpp"
#include "attend/graph/rdf_entities.hpp"

using namespace attend;
using namespace attend::graph;
using Catch::Matchers::Contains;

TEST_CASE("N-Triples terms parse in canonical form", "[graph][io]") {
  Triple t;
  CHECK_FALSE(parse_ntriples_line("   # a comment", t, "f.nt", 1));
  CHECK_FALSE(parse_ntriples_line("", t, "f.nt", 1));
  REQUIRE(parse_ntriples_line("<http://a/s> <http://a/p> \"x \\\"y\\\"\"@en-GB .", t, "f.nt", 1));
  CHECK(t.subject == "<http://a/s>");
  CHECK(t.object == "\"x \\\"y\\\"\"@en-GB");
  REQUIRE(parse_ntriples_line("_:b1 <p> \"1994\"^^<http://www.w3.org/2001/XMLSchema#string> . # note", t, "f.nt", 1));
  CHECK(t.subject == "_:b1");
  CHECK(t.object == "\"1994\"^^<http://www.w3.org/2001/XMLSchema#string>");
  REQUIRE(parse_ntriples_line("<s> <p> _:o .", t, "f.nt", 1));
  CHECK(iri_of(t.predicate) == "p");
}

TEST_CASE("broken N-Triples lines name file, line and column", "[graph][io]") {
  Triple t;
  auto error = [&](const std::string& line) {
    try {
      parse_ntriples_line(line, t, "g.nt", 7);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error("<s> <p> <o>"), Contains("g.nt:7: expected '.' to end the triple"));
  CHECK_THAT(error("<s <p> <o> ."), Contains("g.nt:7: space inside an IRI"));
  CHECK_THAT(error("\"lit\" <p> <o> ."), Contains("expected a subject"));
  CHECK_THAT(error("<s> _:p <o> ."), Contains("expected a predicate"));
  CHECK_THAT(error("<s> <p> \"open ."), Contains("unterminated literal"));
  CHECK_THAT(error("<s> <p> \"x\\q\" ."), Contains("unknown escape"));
  CHECK_THAT(error("<s> <p> <o> . extra"), Contains("unexpected text after '.'"));
  CHECK_THAT(error("<s> <p> <o"), Contains("unterminated IRI"));
}

TEST_CASE("AIFB as shipped has the R-GCN counts", "[graph][io]") {
  RdfEntityFiles files = rdf_folder_files(ATTEND_DATA_DIR "/graphs/aifb");
  files.removed_predicates = {"http://swrc.ontoware.org/ontology#affiliation",
                              "http://swrc.ontoware.org/ontology#employs"};
  const NodeDataset d = load_rdf_entities(files);
  CHECK(d.num_nodes == 8285);
  CHECK(d.num_edges() == 29043);
  CHECK(d.num_relations() == 45);
  CHECK(d.num_classes == 4);
  CHECK(d.train.size() == 140);
  CHECK(d.test.size() == 36);
  CHECK(d.val.empty());
}

TEST_CASE("MUTAG as shipped has the R-GCN counts", "[graph][io]") {
  RdfEntityFiles files = rdf_folder_files(ATTEND_DATA_DIR "/graphs/mutag");
  files.removed_predicates = {"http://dl-learner.org/carcinogenesis#isMutagenic"};
  const NodeDataset d = load_rdf_entities(files);
  CHECK(d.num_nodes == 23644);
  CHECK(d.num_edges() == 74227);
  CHECK(d.num_relations() == 23);
  CHECK(d.num_classes == 2);
  CHECK(d.train.size() == 272);
  CHECK(d.test.size() == 68);
}
