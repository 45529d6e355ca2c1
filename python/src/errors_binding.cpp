// attend's exceptions as Python's: bad input is a ValueError carrying the one line the
// command line prints after "attend: error: "; an internal error is a RuntimeError.
#include <new>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"
#include "bindings.hpp"

namespace py = pybind11;

namespace attend::python {

void bind_errors(py::module_& m) {
  (void)m;
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, one_line(e.what()).c_str());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError,
                      "out of memory (the input or the settings ask for more than this machine has)");
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, one_line(e.what()).c_str());
    }
  });
}

}  // namespace attend::python
