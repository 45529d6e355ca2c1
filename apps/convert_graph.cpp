// `attend convert --graph`: any node-classification dataset to one attend.graph HDF5 file.
#include "convert_graph.hpp"

#include "attend/core/error.hpp"
#include "attend/core/io/read_progress.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/load_dataset.hpp"
#include "attend/graph/tsv_triples.hpp"

namespace attend::cli {

int convert_graph(const ConvertGraphArgs& args, Context& context) {
  if (!args.graph.empty() && !args.triples.empty()) throw InputError("give either --graph or --triples, not both");
  if (args.graph.empty() && args.triples.empty()) throw InputError("give --graph PATH or --triples FILE");
  ProgressOptions progress;
  progress.mode = args.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
  progress.every = 64;  // plain mode: a line per 64 MiB read
  graph::NodeDataset d = [&] {
    const io::ReadProgress reading(progress);
    graph::NodeDataset loaded =
        args.graph.empty() ? graph::load_tsv_triples(args.triples) : graph::load_node_dataset(args.graph);
    graph::add_to_dataset(loaded, args.data.additions());
    return loaded;
  }();
  for (const std::string& w : d.warnings) context.err << "attend: warning: " << w << '\n';
  graph::GraphFileOptions options;
  options.layout = graph::parse_feature_layout(args.features_layout);
  options.chunk_rows = args.chunk_rows;
  options.compress = args.compress_features;
  options.progress = progress;  // writing a large file draws a line too
  graph::save_node_dataset(args.to, d, options);
  context.out << "wrote " << args.to << ": " << d.name << ", " << d.num_nodes << " nodes, " << d.num_edges()
              << (d.directed ? " directed" : " undirected") << " edges, " << d.num_features() << " features, "
              << d.num_classes << " classes, " << d.num_relations() << " relations, split " << d.train.size() << "/"
              << d.val.size() << "/" << d.test.size();
  if (d.has_edge_features()) context.out << ", " << d.edge_feature_dim << " edge features";
  context.out << "\n";
  return 0;
}

}  // namespace attend::cli
