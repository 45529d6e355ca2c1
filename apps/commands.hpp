#pragma once
/// The subcommands of the `attend` program. Each lives in its own `cmd_*.cpp`: it adds a
/// CLI11 subcommand (options, one-line description) to the parent parser and returns the
/// action to run once the whole command line has parsed without error.

#include <functional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "attend/core/communicator.hpp"
#include "attend/core/registry.hpp"

namespace attend::cli {

/// Streams and the layer registry a subcommand works with (the registry is
/// `Registry::global()` in the program, a local one in tests), and the processes of the run.
struct Context {
  Registry& registry;
  std::ostream& out;  ///< on ranks other than 0 under mpirun: discarded
  std::ostream& err;
  /// Communicator::world(): this process alone unless started by mpirun, where only the
  /// data-parallel commands run (`kDataParallelCommands` in cli.cpp).
  const Communicator& world;
};

/// A subcommand's parser node and its action. `run` returns the process exit code and may
/// throw attend::InputError (bad user input, exit 2) or any other exception (exit 1).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// `attend layers`: the registered layers and their origin; `--json FILE`.
Command add_layers_command(CLI::App& parent, Context& context);
/// `attend node-classify train|predict`: train graph node classifiers, predict with them.
Command add_node_classify_command(CLI::App& parent, Context& context);
/// `attend contacts predict|eval`: unsupervised residue-contact prediction from an alignment,
/// and the precision of a prediction against a structure or a contacts TSV.
Command add_contacts_command(CLI::App& parent, Context& context);
/// `attend convert --to OUT.h5`: datasets to HDF5 (graphs: --graph/--triples, convert_graph.hpp;
/// alignments: --msa, convert_msa.hpp).
Command add_convert_command(CLI::App& parent, Context& context);
/// `attend generate BENCHMARK --seed S --out DIR`: a synthetic benchmark of GNNExplainer with
/// its ground truth, as a dataset folder (graph/explainer_benchmark.hpp).
Command add_generate_command(CLI::App& parent, Context& context);
/// `attend explain node|eval`: attributions of node classifiers' predictions (graph/explain/)
/// and their faithfulness and ground-truth AUC.
Command add_explain_command(CLI::App& parent, Context& context);
/// `attend bench`: times a registered node layer (built-in or plugin) on a random graph,
/// inference forward and training forward + backward, per thread count; `--json FILE`.
Command add_bench_command(CLI::App& parent, Context& context);

}  // namespace attend::cli
