#pragma once
/// Text for XML (the SVG pictures): the characters XML gives a meaning escaped.

#include <string>

namespace attend {

/// `text` with & < > " as &amp; &lt; &gt; &quot;, for element text and quoted attributes.
std::string xml_escaped(const std::string& text);

}  // namespace attend
