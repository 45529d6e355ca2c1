#pragma once
/// Reader for the LINQS citation format (Sen et al., "Collective classification in network
/// data", AI Magazine 2008): `<name>.content` has one paper per line, `id<TAB>f_1 ... f_F<TAB>class`,
/// and `<name>.cites` one citation per line, `cited<TAB>citing`.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Read `content` and `cites` (plain or .gz). Nodes follow the order of `content`; classes are
/// the sorted class names. Edges go citing -> cited, undirected pairs listed once as given;
/// citations naming a paper absent from `content` are skipped and counted in `warnings`.
/// LINQS has no split: train/val/test are empty (see read_linqs_split, split_at_random).
NodeDataset load_linqs(const std::string& content, const std::string& cites);

/// The split files a LINQS folder may add: `split_train.txt`, `split_val.txt` and
/// `split_test.txt` (plain or .gz), one paper id per line. Replaces the splits of `dataset`
/// when `dir` has split_train.txt (the other two may be absent: empty splits); an unknown
/// paper id is an attend::InputError with the file and the line. Returns whether it read any.
bool read_linqs_split(const std::string& dir, NodeDataset& dataset);

}  // namespace attend::graph
