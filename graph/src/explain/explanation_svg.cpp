#include "attend/graph/explain/explanation_svg.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/circle_layout.hpp>
#include <boost/graph/fruchterman_reingold.hpp>
#include <boost/graph/topology.hpp>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/xml_escape.hpp"

namespace attend::graph {

namespace {
using Layout = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
using Point = boost::square_topology<>::point_type;

// Grey (t = 0) to red (t = 1) or blue (t = -1).
std::string colour(double t) {
  const double a = std::min(1.0, std::abs(t));
  const double to[3] = {t >= 0 ? 200.0 : 30.0, t >= 0 ? 30.0 : 70.0, t >= 0 ? 30.0 : 200.0};
  std::ostringstream s;
  s << "rgb(";
  for (int k = 0; k < 3; ++k) s << static_cast<int>(std::lround(210.0 + a * (to[k] - 210.0))) << (k < 2 ? "," : ")");
  return s.str();
}
}  // namespace

std::string explanation_svg(const NodeExplanation& x, const NodeDataset& d, const MotifGroundTruth* truth) {
  // Nodes: the explained node and every endpoint of an explained edge; pairs undirected.
  std::map<int64_t, std::size_t> index{{x.node, 0}};
  std::vector<int64_t> nodes{x.node};
  std::map<std::pair<int64_t, int64_t>, double> pair_score;
  const bool scored = !x.edge_score.empty();
  for (std::size_t e = 0; e < x.edge_id.size(); ++e) {
    for (int64_t v : {x.edge_src[e], x.edge_dst[e]}) {
      if (index.emplace(v, nodes.size()).second) nodes.push_back(v);
    }
    const auto key = std::minmax(x.edge_src[e], x.edge_dst[e]);
    const double s = scored ? x.edge_score[e] : 0.0;
    const auto found = pair_score.find(key);
    pair_score[key] = found == pair_score.end() ? s : std::max(found->second, s);
  }
  std::set<std::pair<int64_t, int64_t>> truth_pairs;
  if (truth) {
    for (int64_t e = 0; e < truth->num_edges(); ++e) truth_pairs.insert(std::minmax(truth->edge_src[e], truth->edge_dst[e]));
  }

  const double size = 600.0, margin = 40.0;
  std::vector<Point> position(nodes.size());
  if (nodes.size() > 1) {
    Layout g(nodes.size());
    for (const auto& [pair, s] : pair_score) boost::add_edge(index[pair.first], index[pair.second], g);
    auto map = boost::make_iterator_property_map(position.begin(), boost::get(boost::vertex_index, g));
    boost::circle_graph_layout(g, map, size / 2);
    // The topology's generator (used only to separate coincident points) has a fixed seed.
    const boost::square_topology<> topology(size);
    boost::fruchterman_reingold_force_directed_layout(g, map, topology);
  }
  double lo[2] = {0, 0}, hi[2] = {1, 1};
  for (int k = 0; k < 2; ++k) {
    lo[k] = hi[k] = position[0][k];
    for (const Point& p : position) {
      lo[k] = std::min(lo[k], p[k]);
      hi[k] = std::max(hi[k], p[k]);
    }
  }
  auto at = [&](int64_t node, int k) {
    const double span = hi[k] - lo[k];
    const double p = span > 0 ? (position[index[node]][k] - lo[k]) / span : 0.5;
    return margin + p * (size - 2 * margin);
  };
  double largest = 0.0;
  for (const auto& [pair, s] : pair_score) largest = std::max(largest, std::abs(s));

  std::ostringstream svg;
  svg.precision(6);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << size << "\" height=\"" << size << "\" viewBox=\"0 0 "
      << size << ' ' << size << "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<title>explanation of node " << xml_escaped(d.node_name(x.node)) << " (class " << x.explained_class
      << ")</title>\n";
  for (const auto& [pair, s] : pair_score) {
    const double t = largest > 0 ? s / largest : 0.0;
    const double width = 1.0 + 5.0 * std::abs(t);
    const auto line = [&](const std::string& stroke, double w) {
      svg << "<line x1=\"" << at(pair.first, 0) << "\" y1=\"" << at(pair.first, 1) << "\" x2=\"" << at(pair.second, 0)
          << "\" y2=\"" << at(pair.second, 1) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << w
          << "\" stroke-linecap=\"round\"/>\n";
    };
    if (truth_pairs.count(pair)) line("black", width + 4.0);
    line(scored ? colour(t) : "rgb(150,150,150)", width);
  }
  for (int64_t v : nodes) {
    svg << "<circle cx=\"" << at(v, 0) << "\" cy=\"" << at(v, 1) << "\" r=\"9\" fill=\""
        << (v == x.node ? "orange" : "white") << "\" stroke=\"black\"/>\n";
    svg << "<text x=\"" << at(v, 0) + 11 << "\" y=\"" << at(v, 1) - 11 << "\" font-size=\"11\" font-family=\"sans-serif\">"
        << xml_escaped(d.node_name(v)) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

void save_explanation_svg(const std::string& path, const NodeExplanation& x, const NodeDataset& d,
                          const MotifGroundTruth* truth) {
  AtomicOutput output(path);
  {
    std::ofstream out(output.temp_path());
    out << explanation_svg(x, d, truth);
    if (!out) throw InputError(path, 0, "cannot write the picture");
  }
  output.commit();
}

}  // namespace attend::graph
