"""attend: attention on graphs and proteins.

Graphs from numpy arrays (``attend.Graph``) or from any layout the command line reads
(``attend.load_graph``); node classifiers that train, predict, explain their attention and
save the same checkpoints as ``attend node-classify`` (``attend.NodeClassifier``); contact
prediction (``attend.contacts``); the fused attention kernels (``attend.ops``). Bad input
raises ValueError with the one-line message the command line prints.
"""

import os as _os

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
