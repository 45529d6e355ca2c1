// attend.contacts: residue-contact prediction and evaluation, the library calls behind
// `attend contacts predict | eval` (bio/contact_predictor.hpp).
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_predictor.hpp"
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
}

}  // namespace attend::python
