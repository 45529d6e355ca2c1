#include "attend/core/checkpoint.hpp"


#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/json_reader.hpp"
#include "attend/core/options_json.hpp"

namespace attend {

namespace {

void write_named(Hdf5File& file, const std::string& group,
                 const std::vector<std::pair<std::string, Tensor>>& tensors) {
  file.create_group(group);
  for (const auto& [name, tensor] : tensors) {
    // A '/' would make a nested group and the name would not come back as it was given.
    ATTEND_CHECK(!name.empty() && name.find('/') == std::string::npos && name != "." &&
                     name != "..",
                 "checkpoint tensor name '" << name << "' is empty or contains '/'");
    file.write_tensor(group + "/" + name, tensor);
  }
}

std::vector<std::pair<std::string, Tensor>> read_named(const Hdf5File& file,
                                                       const std::string& group) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const std::string& name : file.list(group, ListOrder::kCreation)) {
    tensors.emplace_back(name, file.read_tensor(group + "/" + name));
  }
  return tensors;
}

Json read_json(const Hdf5File& file, const std::string& dataset) {
  return parse_json(file.read_string(dataset), file.path(), "dataset '" + dataset + "'");
}

}  // namespace

void save_checkpoint(const std::string& path, const CheckpointData& data) {
  AtomicOutput output(path);
  try {
    Hdf5File file = Hdf5File::create(output.temp_path(), kCheckpointSchema,
                                     kCheckpointSchemaVersion);
    file.write_string("/model", with_short_floats(data.model).dump());
    write_named(file, "/parameters", data.parameters);
    file.create_group("/optimizer");
    file.set_attr("/optimizer", "type", data.optimizer_type);
    file.write_string("/optimizer/config", with_short_floats(data.optimizer_config).dump());
    write_named(file, "/optimizer/state", data.optimizer_state);
    file.create_group("/trainer");
    file.set_attr("/trainer", "epoch", data.epoch);
    file.write_string("/trainer/state", data.trainer_state.dump());
    write_named(file, "/trainer/tensors", data.trainer_tensors);
    file.close();
  } catch (const InputError& error) {
    throw InputError(path, 0, std::string("cannot write checkpoint: ") + error.what());
  }
  output.commit();
}

CheckpointData load_checkpoint(const std::string& path) {
  const Hdf5File file = Hdf5File::open(path);
  file.require_schema(kCheckpointSchema, kCheckpointSchemaVersion);
  CheckpointData data;
  data.model = read_json(file, "/model");
  data.parameters = read_named(file, "/parameters");
  data.optimizer_type = file.get_attr_string("/optimizer", "type");
  data.optimizer_config = read_json(file, "/optimizer/config");
  data.optimizer_state = read_named(file, "/optimizer/state");
  data.epoch = file.get_attr_int64("/trainer", "epoch");
  if (data.epoch < 0) throw InputError(path, 0, "attribute 'epoch' of '/trainer': negative (" + std::to_string(data.epoch) + ")");
  data.trainer_state = read_json(file, "/trainer/state");
  data.trainer_tensors = read_named(file, "/trainer/tensors");
  return data;
}

}  // namespace attend
