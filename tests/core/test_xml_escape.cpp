#include <catch2/catch.hpp>

#include "attend/core/xml_escape.hpp"

using namespace attend;

TEST_CASE("xml_escaped escapes the characters XML gives a meaning and keeps the rest", "[core]") {
  CHECK(xml_escaped("a<b & \"c\" > d") == "a&lt;b &amp; &quot;c&quot; &gt; d");
  CHECK(xml_escaped("plain 'text' é") == "plain 'text' é");
  CHECK(xml_escaped("&amp;") == "&amp;amp;");
}
