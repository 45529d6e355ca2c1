// attend.contacts: residue-contact prediction, evaluation and training, the library calls
// behind `attend contacts predict | eval | train` (bio/contact_predictor.hpp,
// bio/contact_training_run.hpp).
#include <optional>
#include <type_traits>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_predictor.hpp"
#include "attend/bio/contact_training_run.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "bindings.hpp"
#include "numpy_arrays.hpp"
#include "python_json.hpp"
#include "thread_count.hpp"

namespace py = pybind11;

namespace attend::python {

namespace {

py::dict range_dict(const bio::RangePrecision& r) {
  return py::dict(py::arg("P@L") = r.top_l, py::arg("P@L/2") = r.top_l2, py::arg("P@L/5") = r.top_l5,
                  py::arg("pairs") = r.evaluable_pairs, py::arg("contacts") = r.true_contacts);
}

}  // namespace

void bind_contacts(py::module_& m) {
  py::module_ contacts = m.def_submodule("contacts", "Residue contacts from alignments");
  contacts.def(
      "predict",
      [](const py::object& msa, const std::string& method, const std::string& format, const std::string& query,
         const std::string& model, const py::object& options, std::optional<uint64_t> seed,
         std::optional<int> max_iterations, std::optional<int64_t> heads, std::optional<int> threads) {
        bio::ContactPredictorOptions o;
        o.method = bio::parse_contact_method(method);
        if (!options.is_none()) {  // the keys of the user guide's potts and factored tables
          const Json given = to_json(options, "options");
          if (o.method == bio::ContactMethod::kFactored) {
            o.factored = bio::FactoredOptions::option_list().from_json(given);
          } else {
            o.potts = bio::PottsOptions::option_list().from_json(given);
          }
        }
        bio::AlignmentFeatures input;
        std::string source = "msa";
        if (py::isinstance<py::str>(msa)) {
          source = msa.cast<std::string>();
          input = bio::read_contact_input(source, bio::parse_alignment_format(format), query);
        } else {
          input.alignment = bio::alignment_from_rows(msa.cast<std::vector<std::string>>(), source);
        }
        o.model_path = model;
        if (o.method == bio::ContactMethod::kEvoformer && model.empty()) {  // the shipped model
          o.model_path = py::module_::import("attend").attr("data_file")("models/contact_evoformer.h5").cast<std::string>();
        }
        o.registry = &Registry::global();
        if (max_iterations) o.potts.optimizer.max_iterations = o.factored.optimizer.max_iterations = *max_iterations;
        if (heads) o.factored.n_heads = *heads;
        if (seed) o.factored.seed = *seed;
        Tensor scores;
        {
          py::gil_scoped_release release;
          const ScopedThreadCount thread_count(threads);
          scores = bio::predict_contacts(input, source, o).prediction.scores;
        }
        return to_numpy(scores);
      },
      py::arg("msa"), py::kw_only(), py::arg("method") = "potts", py::arg("format") = "auto", py::arg("query") = "",
      py::arg("model") = "", py::arg("options") = py::none(), py::arg("seed") = py::none(),
      py::arg("max_iterations") = py::none(),
      py::arg("heads") = py::none(), py::arg("threads") = py::none(),
      "Contact scores [L, L] of an alignment: a file path (any format `contacts predict` reads) or a list of "
      "aligned rows, query first. method: potts, factored or evoformer (model: the model file). options: a dict "
      "of the method's options (the user guide's potts and factored tables; potts for evoformer's scores); "
      "seed, max_iterations and heads apply over it.");
  contacts.def(
      "evaluate",
      [](const FloatArray& scores, const std::string& truth, const std::string& pdb, const std::string& chain,
         const std::string& query) {
        const Tensor s = to_tensor(scores, "scores", 2);
        if (s.dim(0) != s.dim(1)) throw InputError("scores must be a square matrix [L, L]");
        std::vector<std::string> warnings;
        const std::optional<bio::ContactMap> map =
            bio::load_contact_truth({pdb, chain, truth}, query, s.dim(0), "scores", warnings);
        if (!map) throw InputError("evaluate needs truth= (a contacts TSV) or pdb= (a structure)");
        for (const std::string& w : warnings) PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1);
        const bio::ContactPrecision p = bio::evaluate_contacts(s, *map);
        return py::dict(py::arg("L") = p.length, py::arg("short") = range_dict(p.short_range),
                        py::arg("medium") = range_dict(p.medium_range), py::arg("long") = range_dict(p.long_range));
      },
      py::arg("scores"), py::kw_only(), py::arg("truth") = "", py::arg("pdb") = "", py::arg("chain") = "",
      py::arg("query") = "",
      "CASP precision at L, L/2, L/5 for short (6-11), medium (12-23) and long (>= 24) range pairs.");
  contacts.def(
      "train",
      [](const std::string& families, const std::string& out, const std::string& validation, const std::string& json,
         const std::string& checkpoint, bool resume, std::optional<int64_t> blocks, std::optional<int64_t> c_m,
         std::optional<int64_t> c_z, std::optional<int64_t> crop, std::optional<int64_t> msa_depth,
         std::optional<int64_t> min_separation, std::optional<bool> neighbour_scores, std::optional<int> epochs,
         std::optional<int> steps_per_epoch, std::optional<int> patience, std::optional<double> lr,
         std::optional<double> weight_decay, std::optional<uint64_t> seed, bool quiet, std::optional<int> threads) {
        // The defaults are the option structs' own (the user guide's contact_model and contacts
        // train tables); a keyword given replaces one.
        bio::ContactTrainingRunOptions o;
        o.families = families;
        o.validation = validation;
        o.out = out;
        o.json_path = json;
        o.resume = resume;
        const auto set = [](auto& field, const auto& given) {
          if (given) field = static_cast<std::decay_t<decltype(field)>>(*given);
        };
        set(o.model.blocks, blocks);
        set(o.model.c_m, c_m);
        set(o.model.c_z, c_z);
        set(o.model.msa_depth, msa_depth);
        set(o.model.seed, seed);
        set(o.model.neighbour_scores, neighbour_scores);
        set(o.training.epochs, epochs);
        set(o.training.steps_per_epoch, steps_per_epoch);
        set(o.training.crop, crop);
        set(o.training.seed, seed);
        set(o.training.adam.lr, lr);
        set(o.training.adam.weight_decay, weight_decay);
        set(o.training.min_separation, min_separation);
        set(o.training.patience, patience);
        o.training.checkpoint_path = checkpoint;
        o.training.progress.mode = quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
        o.training.progress.every = 1;
        bio::ContactTrainingRunResult run;
        {
          py::gil_scoped_release release;
          const ScopedThreadCount thread_count(threads);
          run = bio::run_contact_training(o, Registry::global());
        }
        return to_python(run.summary);
      },
      py::arg("families"), py::kw_only(), py::arg("out"), py::arg("validation") = "", py::arg("json") = "",
      py::arg("checkpoint") = "", py::arg("resume") = false, py::arg("blocks") = py::none(),
      py::arg("c_m") = py::none(), py::arg("c_z") = py::none(), py::arg("crop") = py::none(),
      py::arg("msa_depth") = py::none(), py::arg("min_separation") = py::none(),
      py::arg("neighbour_scores") = py::none(), py::arg("epochs") = py::none(), py::arg("steps_per_epoch") = py::none(),
      py::arg("patience") = py::none(), py::arg("lr") = py::none(), py::arg("weight_decay") = py::none(),
      py::arg("seed") = py::none(), py::arg("quiet") = true, py::arg("threads") = py::none(),
      "Train the Evoformer contact model as `attend contacts train` does (the same options, without the dashes; "
      "an option not given takes the user guide's default) and write it to out (and the summary to json when "
      "given). families, validation: a family list file or a comma list ALIGNMENT:TRUTH,... Returns the summary "
      "`--json` writes, as a dict.");
}

}  // namespace attend::python
