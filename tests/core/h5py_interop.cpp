// Checks that h5py reads what attend writes: a checkpoint and the generic dataset kinds.
//
// Writes the files to a temporary directory, then runs Debian's /usr/bin/python3 (which has
// python3-h5py; not whatever python3 is first on PATH) with a script that checks them.
// Exit status: 0 pass, 1 fail, 77 skipped (no /usr/bin/python3 or no h5py; ctest shows
// "Skipped" through SKIP_RETURN_CODE, so a missing h5py never looks like a pass).

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "attend/core/checkpoint.hpp"
#include "attend/core/hdf5_file.hpp"
#include "python_check.hpp"
#include "temp_dir.hpp"

namespace {

using attend::testing::kPython;
using attend::testing::kSkip;

// Values both sides compute from the index alone: w[i, j] = i * 0.5 - j * 0.25 (exact in float).
attend::Tensor pattern(int64_t rows, int64_t cols) {
  attend::Tensor t({rows, cols});
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) t.at({i, j}) = static_cast<float>(i) * 0.5f - j * 0.25f;
  }
  return t;
}

const std::string kScript = std::string(attend::testing::kH5pyPrelude) + R"PY(
import json

checkpoint, store = sys.argv[1], sys.argv[2]

with h5py.File(checkpoint, "r") as f:
    schema = f.attrs["schema"]
    schema = schema.decode() if isinstance(schema, bytes) else schema
    expect(schema == "attend.checkpoint", "schema attribute is %r" % (schema,))
    expect(int(f.attrs["schema_version"]) == 1, "schema_version")
    w = f["parameters"]["layers.0.weight"]
    expect(w.dtype == np.float32, "parameter dtype %s" % w.dtype)
    i, j = np.meshgrid(np.arange(400), np.arange(30), indexing="ij")
    expected = (i * 0.5 - j * 0.25).astype(np.float32)
    expect(w.shape == (400, 30), "parameter shape %s" % (w.shape,))
    expect(np.array_equal(w[()], expected), "parameter values")
    expect(w.compression == "gzip" and w.shuffle, "compression %s" % w.compression)
    expect(w.chunks is not None and w.chunks[1] == 30, "chunks %s" % (w.chunks,))
    model = json.loads(f["model"][()])
    expect(model[0]["type"] == "linear", "model json %r" % (model,))
    expect(f["optimizer"].attrs["type"] == "adam", "optimizer type")
    expect(int(f["trainer"].attrs["epoch"]) == 3, "epoch")

with h5py.File(store, "r") as f:
    expect(list(f["ids"][()]) == [5, -6, 7, 1 << 40], "int64 values")
    expect(f["ids"].dtype == np.int64, "int64 dtype")
    expect(f["pairs"].dtype == np.int32 and f["pairs"].shape == (2, 2), "int32 dataset")
    expect(list(f["names"].asstr()[()]) == ["alpha", "\u03b1-helix", ""], "strings")
    expect(f.attrs["note"] == "h\u00e9llo", "string attribute")
    expect(list(f.attrs["weights"]) == [0.5, -1.25], "float attribute")
    expect(float(f.attrs["rate"]) == 0.1, "double attribute")
print("h5py reads attend files")
)PY";

}  // namespace

int main() {
  if (::access(kPython, X_OK) != 0) {
    std::printf("skipped: %s not found (install python3-h5py to run this test)\n", kPython);
    return kSkip;
  }
  try {
    attend::testing::TempDir dir;
    const std::string checkpoint = dir.file("model.ckpt.h5");
    attend::CheckpointData data;
    data.model = attend::Json::array({{{"name", "layers.0"}, {"type", "linear"}, {"config", {}}}});
    data.parameters = {{"layers.0.weight", pattern(400, 30)}, {"layers.0.bias", pattern(1, 30)}};
    data.optimizer_type = "adam";
    data.optimizer_config = {{"lr", 0.01}};
    data.epoch = 3;
    attend::save_checkpoint(checkpoint, data);

    const std::string store = dir.file("store.h5");
    {
      attend::Hdf5File file = attend::Hdf5File::create(store, "attend.test", 1);
      file.write_int64("/ids", {5, -6, 7, int64_t{1} << 40});
      file.write_int32("/pairs", {0, 1, 1, 2}, {2, 2});
      file.write_strings("/names", {"alpha", "\xce\xb1-helix", ""});
      file.set_attr("/", "note", "h\xc3\xa9llo");
      file.set_attr("/", "weights", std::vector<float>{0.5f, -1.25f});
      file.set_attr("/", "rate", 0.1);
    }

    const std::string script = dir.file("check.py");
    attend::testing::write_text_file(script, kScript);
    return attend::testing::run_python_check(script, {checkpoint, store});
  } catch (const std::exception& error) {
    std::printf("FAILED: %s\n", error.what());
    return 1;
  }
}
