// `attend convert`: datasets to HDF5. Each kind of input has its own options and runner
// (convert_msa.hpp for alignments); this file only dispatches on which input was given.
#include "attend/core/error.hpp"
#include "commands.hpp"
#include "convert_msa.hpp"

namespace attend::cli {

Command add_convert_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("convert", "Convert datasets (alignments) to HDF5");
  auto to = std::make_shared<std::string>();
  app->add_option("--to", *to, "Output HDF5 file")->required()->type_name("FILE");
  auto msa = add_convert_msa_options(app);

  auto run = [&context, to, msa]() {
    if (!msa->msa.empty()) return run_convert_msa(*msa, *to, context);
    throw InputError("convert needs an input: --msa FILE");
  };
  return {app, run};
}

}  // namespace attend::cli
