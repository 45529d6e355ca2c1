#include "attend/graph/edge_list_file.hpp"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::graph {

namespace {
namespace fs = std::filesystem;

/// The file's extension without a trailing `.gz`: ".csv", ".edgelist", ...
std::string layout_extension(const std::string& path) {
  fs::path p(path);
  if (p.extension() == ".gz") p = p.stem();
  return p.extension().string();
}

/// Builds the dataset: node ids by first appearance, edges and their feature rows.
class EdgeListBuilder {
 public:
  explicit EdgeListBuilder(const std::string& path) {
    d_.name = fs::path(path).stem().string();
    if (d_.name.ends_with(layout_extension(path))) d_.name.resize(d_.name.size() - layout_extension(path).size());
  }
  void add(const std::string& u, const std::string& v, const std::vector<float>& features) {
    d_.edge_src.push_back(node(u));
    d_.edge_dst.push_back(node(v));
    d_.edge_features.insert(d_.edge_features.end(), features.begin(), features.end());
  }
  NodeDataset finish(int64_t feature_dim) {
    d_.num_nodes = static_cast<int64_t>(d_.node_names.size());
    d_.labels.assign(d_.node_names.size(), -1);
    d_.edge_feature_dim = feature_dim;
    d_.validate();
    return std::move(d_);
  }

 private:
  int64_t node(const std::string& name) {
    const auto [it, added] = id_.emplace(name, static_cast<int64_t>(d_.node_names.size()));
    if (added) d_.node_names.push_back(name);
    return it->second;
  }
  NodeDataset d_;
  std::unordered_map<std::string, int64_t> id_;
};

/// One attribute value of a NetworkX dict: a number, True or False.
float attribute_value(const io::LineReader& reader, std::string token, const std::string& key) {
  if (token == "True") return 1.0f;
  if (token == "False") return 0.0f;
  if (!token.empty() && (token.front() == '\'' || token.front() == '"')) {
    reader.fail("edge attribute " + quoted_input(key) + " is text " + quoted_input(token) + " (expected a number)");
  }
  return reader.parse_float(token, ("the number of edge attribute " + quoted_input(key)).c_str());
}

/// The `{'key': value, ...}` of a NetworkX line as (key, value) pairs sorted by key.
std::vector<std::pair<std::string, float>> parse_dict(const io::LineReader& reader, const std::string& text) {
  std::vector<std::pair<std::string, float>> items;
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') {
    reader.fail("expected 'u v', 'u v {attributes}' or 'u v numbers...', got data " + quoted_input(text));
  }
  std::size_t at = 1;
  const auto skip = [&] { while (at < text.size() && text[at] == ' ') ++at; };
  while (true) {
    skip();
    if (text[at] == '}') break;
    if (text[at] != '\'' && text[at] != '"') reader.fail("expected a quoted attribute name in " + quoted_input(text));
    const std::size_t close = text.find(text[at], at + 1);
    if (close == std::string::npos) reader.fail("an unterminated attribute name in " + quoted_input(text));
    const std::string key = text.substr(at + 1, close - at - 1);
    at = close + 1;
    skip();
    if (text[at] != ':') reader.fail("expected ':' after " + quoted_input(key) + " in " + quoted_input(text));
    ++at;
    skip();
    std::size_t end = at;
    if (text[at] == '\'' || text[at] == '"') {
      end = text.find(text[at], at + 1);
      end = end == std::string::npos ? text.size() - 1 : end + 1;
    } else {
      while (end < text.size() - 1 && text[end] != ',' && text[end] != ' ') ++end;
    }
    std::string value = text.substr(at, end - at);
    items.emplace_back(key, attribute_value(reader, value, key));
    at = end;
    skip();
    if (text[at] == ',') {
      ++at;
    } else if (text[at] != '}') {
      reader.fail("expected ',' or '}' after attribute " + quoted_input(key) + " in " + quoted_input(text));
    }
  }
  std::sort(items.begin(), items.end());
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (items[i].first == items[i - 1].first) reader.fail("attribute " + quoted_input(items[i].first) + " given twice");
  }
  return items;
}

NodeDataset load_networkx_edgelist(const std::string& path) {
  EdgeListBuilder builder(path);
  io::LineReader reader(path);
  std::string line;
  std::vector<std::string> keys;  // of the first line with a dict
  int64_t width = -1;
  while (reader.next(line)) {
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::vector<std::string> fields = io::split_whitespace(line);
    if (fields.empty()) continue;
    if (fields.size() < 2) reader.fail("expected 'u v [data]', got " + quoted_input(line));
    std::vector<float> features;
    if (fields.size() > 2 && fields[2].front() == '{') {
      const std::size_t open = line.find('{');
      const std::size_t close = line.find_last_not_of(" \t");
      const auto items = parse_dict(reader, line.substr(open, close - open + 1));
      std::vector<std::string> names;
      for (const auto& [key, value] : items) {
        names.push_back(key);
        features.push_back(value);
      }
      if (width < 0) keys = names;
      if (names != keys) {
        reader.fail("edge attributes " + quoted_input(line.substr(open)) + " differ from those of the first edge (" +
                    std::to_string(keys.size()) + " keys)");
      }
    } else {
      for (std::size_t k = 2; k < fields.size(); ++k) features.push_back(reader.parse_float(fields[k], "an edge attribute"));
    }
    if (width < 0) width = static_cast<int64_t>(features.size());
    if (static_cast<int64_t>(features.size()) != width) {
      reader.fail("expected " + std::to_string(width) + " edge attributes as on the first edge, got " +
                  std::to_string(features.size()));
    }
    builder.add(fields[0], fields[1], features);
  }
  return builder.finish(std::max<int64_t>(width, 0));
}

NodeDataset load_csv_edges(const std::string& path) {
  EdgeListBuilder builder(path);
  io::LineReader reader(path);
  std::string line;
  if (!reader.next(line)) reader.fail("empty file; expected a header 'source,target[,feature,...]'");
  const std::size_t columns = io::split_on(line, ',').size();
  if (columns < 2) reader.fail("expected a header 'source,target[,feature,...]', got " + quoted_input(line));
  while (reader.next(line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> fields = io::split_on(line, ',');
    if (fields.size() != columns) {
      reader.fail("expected " + std::to_string(columns) + " comma-separated fields as in the header, got " +
                  std::to_string(fields.size()));
    }
    if (fields[0].empty() || fields[1].empty()) reader.fail("an empty node name in " + quoted_input(line));
    std::vector<float> features;
    for (std::size_t k = 2; k < fields.size(); ++k) features.push_back(reader.parse_float(fields[k], "an edge feature"));
    builder.add(fields[0], fields[1], features);
  }
  return builder.finish(static_cast<int64_t>(columns) - 2);
}

}  // namespace

bool is_edge_list_file(const std::string& path) {
  const std::string extension = layout_extension(path);
  return extension == ".edgelist" || extension == ".edges" || extension == ".csv";
}

NodeDataset load_edge_list(const std::string& path) {
  try {
    return layout_extension(path) == ".csv" ? load_csv_edges(path) : load_networkx_edgelist(path);
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw InputError(path, 0, e.what());
  }
}

}  // namespace attend::graph
