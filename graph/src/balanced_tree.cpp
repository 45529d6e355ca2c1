#include "attend/graph/balanced_tree.hpp"

#include "attend/core/error.hpp"

namespace attend::graph {

EdgeList balanced_tree(int64_t branching, int64_t height) {
  ATTEND_CHECK(branching >= 2 && height >= 0 && height <= 30,
               "balanced_tree: need branching >= 2 and height in 0..30, got " << branching << " and " << height);
  int64_t nodes = 1, level = 1;
  for (int64_t h = 1; h <= height; ++h) {
    level *= branching;
    nodes += level;
    ATTEND_CHECK(nodes <= (int64_t{1} << 40), "balanced_tree: " << branching << "-ary tree of height " << height
                                                                  << " is too large");
  }
  EdgeList tree;
  tree.num_nodes = nodes;
  for (int64_t child = 1; child < nodes; ++child) {
    tree.src.push_back((child - 1) / branching);
    tree.dst.push_back(child);
  }
  return tree;
}

}  // namespace attend::graph
