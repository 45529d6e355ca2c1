"""attend: attention on graphs and proteins.

Graphs from numpy arrays (``attend.Graph``) or from any layout the command line reads
(``attend.load_graph``); node classifiers that train, predict, explain their attention and
save the same checkpoints as ``attend node-classify`` (``attend.NodeClassifier``); contact
prediction (``attend.contacts``); the fused attention kernels (``attend.ops``). Bad input
raises ValueError with the one-line message the command line prints.
"""

import os as _os

# How long a waiting OpenMP thread spins before it sleeps (GOMP_SPINCOUNT), as attend's
# programs choose it (attend::kBoundedSpinCount, core/include/attend/core/openmp_waiting.hpp;
# the module's tests check that the two agree). libgomp reads the variable once, as it loads.
_BOUNDED_SPIN_COUNT = 3000


def _bound_openmp_spinning():
    """Sets GOMP_SPINCOUNT for libgomp when the user chose no waiting (neither OMP_WAIT_POLICY
    nor GOMP_SPINCOUNT is set) and libgomp is not loaded yet: it is loaded with the extension
    below and then follows the variable. When another module loaded libgomp first (torch does),
    this process keeps the waiting that module's import gave it, and nothing is set."""
    if "OMP_WAIT_POLICY" in _os.environ or "GOMP_SPINCOUNT" in _os.environ:
        return
    try:
        with open("/proc/self/maps") as maps:
            if any("libgomp" in line for line in maps):
                return
    except OSError:  # no /proc: whether libgomp is loaded is unknown, leave it alone
        return
    _os.environ["GOMP_SPINCOUNT"] = str(_BOUNDED_SPIN_COUNT)


_bound_openmp_spinning()

from ._attend import Graph, NodeClassifier, __version__, contacts, layers, load_graph, load_plugin, ops

__all__ = ["Graph", "NodeClassifier", "contacts", "layers", "load_graph", "load_plugin", "ops", "data_file"]


def data_file(relative):
    """The path of a file attend ships (e.g. ``models/contact_evoformer.h5``): under
    $ATTEND_DATA_DIR, the installed share/attend next to this package, or a build tree's data/."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    roots = []
    if _os.environ.get("ATTEND_DATA_DIR"):
        roots.append(_os.environ["ATTEND_DATA_DIR"])
    roots.append(_os.path.normpath(_os.path.join(here, "..", "..", "..", "..", "share", "attend")))
    try:
        from ._build_paths import DATA_DIR
        roots.append(DATA_DIR)
    except ImportError:
        pass
    for root in roots:
        candidate = _os.path.join(root, relative)
        if _os.path.isfile(candidate):
            return candidate
    raise ValueError("cannot find the data file '%s' (tried %s; set ATTEND_DATA_DIR)" % (relative, ", ".join(roots)))
