#include "cli.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>
#include <set>
#include <string_view>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/plugin_loader.hpp"
#include "attend/core/quoted_input.hpp"
#include "commands.hpp"

#ifndef ATTEND_VERSION
#error "ATTEND_VERSION must be defined by the build (the project version)"
#endif

namespace attend::cli {

namespace {

/// CLI11 messages start with a capital ("The following argument was not expected: x");
/// ours continue after "attend: error: ", so lower the first letter of a plain word.
std::string lower_first_word(std::string text) {
  if (text.size() >= 2 && std::isupper(static_cast<unsigned char>(text[0])) &&
      (std::islower(static_cast<unsigned char>(text[1])) || text[1] == ' ')) {
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  }
  return text;
}

/// The one line printed for a bad command line, with a hint that names the help of the
/// subcommand that was being parsed (or of the program).
std::string usage_error_line(const CLI::App* app, const CLI::Error& error) {
  // CLI11 echoes what it could not use (a 5 MB argument) in full: shown short.
  std::string what = shortened(lower_first_word(one_line(error.what())), 400);
  std::string help = "attend --help";
  const std::vector<CLI::App*> selected = app->get_subcommands();
  if (!selected.empty()) {
    help = "attend " + selected.front()->get_name() + " --help";
  } else if (const std::vector<std::string> rest = app->remaining(); !rest.empty()) {
    // Nothing matched a subcommand: name the first word that matched nothing.
    const std::string& word = rest.front();
    what = (word.rfind("-", 0) == 0 ? "unknown option " : "unknown subcommand ") + quoted_input(word);
  }
  return "attend: error: " + what + " (run '" + help + "')\n";
}

/// The subcommands that spread their work over the ranks of `mpirun -np K attend ...`; any
/// other would do the whole run K times over, so it is refused under mpirun.
constexpr std::array<std::string_view, 2> kDataParallelCommands = {"contacts train", "node-classify train"};

/// The parsed subcommand path ("contacts train").
std::string parsed_command(const CLI::App& app) {
  std::string path;
  for (const CLI::App* at = &app; !at->get_subcommands().empty();) {
    at = at->get_subcommands().front();
    path += (path.empty() ? "" : " ") + at->get_name();
  }
  return path;
}

bool is_input_error(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError&) {
    return true;
  } catch (...) {
    return false;
  }
}

// Rank 0 of an mpirun launch, or a plain process (also when the world cannot be had: a build
// without MPI refuses mpirun with an input error that this process must print).
bool on_first_rank() {
  try {
    return Communicator::world().is_root();
  } catch (...) {
    return true;
  }
}

}  // namespace

void load_plugins(const std::vector<std::string>& paths, const char* plugin_path, Registry& registry) {
  std::vector<std::string> files;
  if (plugin_path != nullptr) files = plugin_files_in(plugin_path);
  files.insert(files.end(), paths.begin(), paths.end());
  std::set<std::string> seen;
  for (const std::string& file : files) {
    std::error_code ec;
    const std::string key = std::filesystem::weakly_canonical(file, ec).string();
    if (!seen.insert(ec ? file : key).second) continue;
    load_plugin(file, registry);
  }
}

int report_failure(std::exception_ptr error, std::ostream& err) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    err << "attend: error: " << one_line(e.what()) << '\n';
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    // Sizes from the input are checked against the memory budget before the large
    // allocations (memory_budget.hpp); a smaller one that still fails is the same cause.
    err << "attend: error: out of memory (the input or the settings ask for more than this machine has)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "attend: internal error: " << one_line(e.what()) << '\n';
  } catch (...) {
    err << "attend: internal error: unknown exception\n";
  }
  return kExitInternal;
}

int run_cli(const std::vector<std::string>& args, Registry& registry, std::ostream& out,
            std::ostream& err) {
  try {
    const Communicator& world = Communicator::world();  // refuses mpirun in a build without MPI
    std::ostream discarded(nullptr);                     // what ranks other than 0 print
    Context context{registry, world.is_root() ? out : discarded, err, world};
    CLI::App app("attend: attention on graphs and proteins", "attend");
    app.set_version_flag("--version", std::string("attend ") + ATTEND_VERSION,
                         "Print the version and exit");
    app.require_subcommand(1);
    app.fallthrough();  // global options (--threads) may also follow the subcommand
    app.failure_message(usage_error_line);
    int threads = 0;
    app.add_option("--threads", threads,
                   "Worker threads (default: OMP_NUM_THREADS, else every core)")
        ->check(CLI::Range(1, 4096).description(""))
        ->type_name("N");
    std::vector<std::string> plugins;
    app.add_option("--plugin", plugins,
                   "Load the layer plugin PATH (repeatable); every *.so in the directories of "
                   "ATTEND_PLUGIN_PATH (colon-separated) is loaded first")
        ->type_name("PATH")
        ->allow_extra_args(false);

    const std::vector<Command> commands = {
        add_node_classify_command(app, context), add_contacts_command(app, context),
        add_convert_command(app, context),       add_layers_command(app, context),
        add_bench_command(app, context),         add_generate_command(app, context),
        add_explain_command(app, context)};

    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      // Help and --version are "errors" with exit code 0; they print to `out`. A usage error
      // is the same on every rank: rank 0 prints it.
      const int code = app.exit(e, context.out, world.is_root() ? err : discarded);
      return code == 0 ? 0 : kExitUsage;
    }

    if (world.size() > 1) {
      const std::string command = parsed_command(app);
      if (std::find(kDataParallelCommands.begin(), kDataParallelCommands.end(), command) == kDataParallelCommands.end()) {
        throw InputError("'attend " + command +
                         "' runs in one process; under mpirun only 'attend contacts train' and "
                         "'attend node-classify train' spread their work over the ranks");
      }
    }
    if (threads > 0) set_num_threads(threads);
    load_plugins(plugins, std::getenv("ATTEND_PLUGIN_PATH"), registry);
    for (const Command& command : commands) {
      if (command.app->parsed()) return command.run();
    }
    err << "attend: internal error: no subcommand ran\n";
    return kExitInternal;
  } catch (...) {
    // Every rank reads the same input and meets the same input error: under mpirun rank 0
    // alone prints it (an internal error is printed by every rank that meets it).
    std::ostream discarded(nullptr);
    const std::exception_ptr error = std::current_exception();
    return report_failure(error, is_input_error(error) && !on_first_rank() ? discarded : err);
  }
}

}  // namespace attend::cli
