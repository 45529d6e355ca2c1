// `attend convert`: datasets to HDF5. This file only declares the shared `--to` and
// dispatches on the input given; each kind of input is converted in its own file
// (convert_graph.cpp for graphs, convert_msa.cpp for alignments).
#include <memory>

#include "attend/core/error.hpp"
#include "command_files.hpp"
#include "commands.hpp"
#include "convert_graph.hpp"
#include "convert_msa.hpp"
#include "node_data_options.hpp"
#include "option_checks.hpp"

namespace attend::cli {

Command add_convert_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("convert", "Convert datasets to HDF5 (graphs: attend.graph; alignments: attend.alignment)");
  auto to = std::make_shared<std::string>();
  const std::shared_ptr<CommandFiles> files = CommandFiles::of(app);
  files->output(app->add_option("--to", *to, "Output HDF5 file (written atomically)")->required()->type_name("FILE"));
  auto g = std::make_shared<ConvertGraphArgs>();
  files->input(app->add_option("--graph", g->graph,
                               "Graph dataset: folder (plain-text Planetoid, RDF + R-GCN split, LINQS, OGB node "
                               "property, NumPy .npy files), .npz, edge list (.edgelist, .edges, .csv) or .h5")
                   ->type_name("PATH"));
  add_node_data_options(app, g->data, *files, true);
  app->add_flag("--quiet", g->quiet, "No progress line while reading or writing large files");
  files->input(
      app->add_option("--triples", g->triples, "TSV triples head<TAB>relation<TAB>tail (repeatable)")->type_name("FILE"));
  app->add_option("--features-layout", g->features_layout,
                  "How the graph file stores node features: csr (sparse), dense (row chunks that a batch reads "
                  "out of core) or auto (the smaller: dense when over a third of the values are stored)")
      ->check(CLI::IsMember({"auto", "csr", "dense"}))
      ->capture_default_str();
  app->add_option("--chunk-rows", g->chunk_rows, "Dense features: rows per HDF5 chunk (0: contiguous, read row by row without HDF5)")
      ->check(at_least(0))
      ->capture_default_str();
  app->add_flag("--compress-features", g->compress_features, "Dense features: compress the chunks (shuffle + gzip)");
  auto msa = add_convert_msa_options(app, *files);

  auto run = [&context, to, g, msa]() {
    const bool graph = !g->graph.empty() || !g->triples.empty();
    if (graph && !msa->msa.empty()) throw InputError("give either a graph (--graph/--triples) or an alignment (--msa), not both");
    if (!msa->msa.empty()) return run_convert_msa(*msa, *to, context);
    if (!graph) throw InputError("nothing to convert: give --graph, --triples or --msa");
    g->to = *to;
    return convert_graph(*g, context);
  };
  return {app, run};
}

}  // namespace attend::cli
