// `attend convert`: datasets to HDF5. This file only declares the options and dispatches;
// each kind of input is converted in its own file (convert_graph.cpp).
#include <memory>

#include "attend/core/error.hpp"
#include "commands.hpp"
#include "convert_graph.hpp"

namespace attend::cli {

Command add_convert_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("convert", "Convert datasets to HDF5 (graphs: attend.graph)");
  auto g = std::make_shared<ConvertGraphArgs>();
  app->add_option("--graph", g->graph, "Graph dataset: folder (plain-text Planetoid, RDF + R-GCN split, LINQS) or .h5")
      ->type_name("PATH");
  app->add_option("--triples", g->triples, "TSV triples head<TAB>relation<TAB>tail (repeatable)")->type_name("FILE");
  app->add_option("--to", g->to, "Output HDF5 file (written atomically)")->required()->type_name("FILE");

  auto run = [&context, g]() {
    if (!g->graph.empty() || !g->triples.empty()) return convert_graph(*g, context);
    throw InputError("nothing to convert: give --graph or --msa");
  };
  return {app, run};
}

}  // namespace attend::cli
