#include "node_data_options.hpp"

#include "option_checks.hpp"

namespace attend::cli {

graph::DatasetAdditions NodeDataArgs::additions() const {
  graph::DatasetAdditions a;
  a.attributes = attributes;
  if (!split_fractions.empty()) a.split = graph::RandomSplit{split_fractions.at(0), split_fractions.at(1), split_seed};
  return a;
}

void add_node_data_options(CLI::App* app, NodeDataArgs& args, CommandFiles& files, bool with_split) {
  files.input(app->add_option("--labels", args.attributes.labels,
                              "Node labels: 'node label' lines (integer class ids or class names), for a graph "
                              "without them (an edge list)")
                  ->type_name("FILE"));
  files.input(app->add_option("--features", args.attributes.features,
                              "Node features: a .npy [N, F] (row r: the node named r) or 'node v1 ... vF' lines")
                  ->type_name("FILE"));
  if (!with_split) return;
  app->add_option("--split-fractions", args.split_fractions,
                  "Split the labelled nodes at random: TRAIN,VAL fractions (the rest is test), replacing any split")
      ->expected(2)->delimiter(',')->check(within(0.0, 1.0))->type_name("TRAIN,VAL");
  app->add_option("--split-seed", args.split_seed, "Seed of --split-fractions")->check(seed())->capture_default_str();
}

}  // namespace attend::cli
