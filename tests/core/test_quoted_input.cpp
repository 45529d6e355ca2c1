#include <catch2/catch.hpp>

#include <string>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

using namespace attend;

TEST_CASE("quoted keeps short text and cuts long text to a prefix with its size", "[core]") {
  CHECK(quoted_input("gat") == "'gat'");
  CHECK(quoted_input("") == "''");
  CHECK(quoted_input("a\tb\nc") == "'a?b?c'");  // one line, whatever the text holds
  const std::string name(5'000'000, 'n');
  const std::string q = quoted_input(name);
  CHECK(q == "'" + std::string(kMaxQuotedChars, 'n') + "...' (5000000 bytes)");
  // A cut never splits a UTF-8 character: "é" is two bytes, the 80th and 81st here.
  const std::string accents = std::string(kMaxQuotedChars - 1, 'a') + "\xC3\xA9" + "tail";
  CHECK(quoted_input(accents) == "'" + std::string(kMaxQuotedChars - 1, 'a') + "...' (" + std::to_string(accents.size()) + " bytes)");
}

TEST_CASE("shortened cuts text that is not ours to quote (a path, a parser's message)", "[core]") {
  CHECK(shortened("no such file", 400) == "no such file");
  CHECK(shortened(std::string(1000, 'p'), 10) == "pppppppppp... (1000 bytes)");
  CHECK(shortened("two\nlines", 400) == "two?lines");
}

TEST_CASE("an input error whose site forgot to quote its user text still prints one short line", "[core]") {
  const std::string entity(70'000, 'A');  // an RDF entity as long as the one the fuzzer found
  const std::string located = InputError("testSet.tsv", 2, "entity " + entity + " is unknown").what();
  CHECK(located.size() < 6100);
  CHECK(located.rfind("testSet.tsv:2: entity AAA", 0) == 0);
  const std::string full = "testSet.tsv:2: entity " + entity + " is unknown";
  CHECK(located.find("(" + std::to_string(full.size()) + " bytes)") != std::string::npos);
  const std::string bare = InputError("line\n" + entity).what();
  CHECK(bare.size() < 6100);
  CHECK(bare.find('\n') == std::string::npos);
  CHECK(std::string(InputError("short\nmessage").what()) == "short\nmessage");  // short ones untouched
}

TEST_CASE("one_line joins lines", "[core]") {
  CHECK(one_line("a") == "a");
  CHECK(one_line("a\nb") == "a; b");
  CHECK(one_line("a  \r\n\n   b\n") == "a; b");
  CHECK(one_line("\nfirst") == "first");
}
