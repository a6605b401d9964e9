// Keras 3 .weights.h5 files through HDF5's C API (Note [Keras 3 weights layout]).
#include "io/keras_weights_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <mutex>

#include "eagle/errors.hpp"
#include "io/file_error.hpp"

#ifdef EAGLE_WITH_HDF5
#include <hdf5.h>

#include "data/host_tensor.hpp"
#endif

namespace eagle::io {
namespace {

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i ? ", '" : "'") + names[i] + "'";
  }
  return out + "]";
}

void check_filename(const std::string& filename) {
  const std::string suffix = ".weights.h5";
  if (filename.size() < suffix.size() ||
      filename.compare(filename.size() - suffix.size(), suffix.size(), suffix) != 0) {
    // Keras 3's text (saving_lib.save_weights_only).
    throw InvalidArgumentError(
        fmt::format("The filename must end in `.weights.h5`. Received: filepath={}", filename));
  }
}

#ifdef EAGLE_WITH_HDF5

// The Debian HDF5 is built without thread safety: every HDF5 call in eagle holds this lock.
std::mutex& hdf5_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Silences HDF5's default error printing to stderr: failures become eagle errors instead.
void silence_hdf5() {
  static const bool silenced = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)silenced;
}

// An HDF5 identifier closed by its own close function at scope exit.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// The deepest message on HDF5's error stack ("unable to open file", "file signature not found").
std::string hdf5_message() {
  std::string message;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* error, void* out) -> herr_t {
        if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(out) = error->desc;
        return 0;
      },
      &message);
  return message.empty() ? "unknown HDF5 error" : message;
}

[[noreturn]] void throw_hdf5(const std::string& filename, const std::string& what) {
  throw UnknownError(fmt::format("{}: HDF5 could not {}: {}", filename, what, hdf5_message()));
}

// h5py's float16: IEEE half precision built from the float32 type, as h5py.h5t builds it.
hid_t make_float16_type() {
  const hid_t type = H5Tcopy(H5T_IEEE_F32LE);
  H5Tset_fields(type, 15, 10, 5, 0, 10);
  H5Tset_size(type, 2);
  H5Tset_ebias(type, 15);
  return type;
}

// The file type and the memory type of an eagle dtype; false when HDF5 files do not hold it.
bool hdf5_types(DType dtype, hid_t& file_type, hid_t& memory_type, bool& owned) {
  owned = false;
  switch (dtype) {
    case DType::kFloat32:
      file_type = H5T_IEEE_F32LE;
      memory_type = H5T_NATIVE_FLOAT;
      return true;
    case DType::kFloat64:
      file_type = H5T_IEEE_F64LE;
      memory_type = H5T_NATIVE_DOUBLE;
      return true;
    case DType::kInt32:
      file_type = H5T_STD_I32LE;
      memory_type = H5T_NATIVE_INT32;
      return true;
    case DType::kInt64:
      file_type = H5T_STD_I64LE;
      memory_type = H5T_NATIVE_INT64;
      return true;
    case DType::kFloat16:
      file_type = memory_type = make_float16_type();
      owned = true;
      return true;
    default:
      return false;
  }
}

void write_name_attribute(const std::string& filename, hid_t group, const std::string& name) {
  const Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(
      H5Acreate2(group, "name", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const char* text = name.c_str();
  if (!attribute.valid() || H5Awrite(attribute.get(), type.get(), &text) < 0) {
    throw_hdf5(filename, "write the name attribute");
  }
}

void write_dataset(const std::string& filename, hid_t group, const std::string& key,
                   const std::string& where, const Tensor& tensor) {
  if (!tensor.defined()) {
    throw InvalidArgumentError(
        fmt::format("{}: {} is an undefined eagle::Tensor", filename, where));
  }
  hid_t file_type = -1;
  hid_t memory_type = -1;
  bool owned = false;
  if (!hdf5_types(tensor.dtype(), file_type, memory_type, owned)) {
    throw UnimplementedError(fmt::format(
        "{}: cannot save {} of dtype {} in a .weights.h5 file (eagle stores float32, float64, "
        "float16, int32 and int64)",
        filename, where, dtype_name(tensor.dtype())));
  }
  const Handle owned_type(owned ? file_type : -1, H5Tclose);
  std::vector<hsize_t> dims(tensor.shape().begin(), tensor.shape().end());
  const Handle space(tensor.rank() == 0 ? H5Screate(H5S_SCALAR)
                                        : H5Screate_simple(tensor.rank(), dims.data(), nullptr),
                     H5Sclose);
  const Handle dataset(
      H5Dcreate2(group, key.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  if (!dataset.valid()) throw_hdf5(filename, "create " + where);
  std::vector<unsigned char> staging;
  const unsigned char* bytes = data::host_bytes(tensor, staging);
  if (tensor.num_elements() > 0 &&
      H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes) < 0) {
    throw_hdf5(filename, "write " + where);
  }
}

std::string read_name_attribute(const std::string& filename, hid_t group) {
  if (H5Aexists(group, "name") <= 0) return "";
  const Handle attribute(H5Aopen(group, "name", H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING) return "";
  if (H5Tis_variable_str(type.get()) > 0) {
    const Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory.get(), H5T_VARIABLE);
    H5Tset_cset(memory.get(), H5Tget_cset(type.get()));
    char* text = nullptr;
    if (H5Aread(attribute.get(), memory.get(), &text) < 0) throw_hdf5(filename, "read a name");
    std::string name = text ? text : "";
    H5free_memory(text);
    return name;
  }
  std::string name(H5Tget_size(type.get()), '\0');
  if (H5Aread(attribute.get(), type.get(), name.data()) < 0) throw_hdf5(filename, "read a name");
  name.resize(std::min(name.size(), name.find('\0')));
  return name;
}

Tensor read_dataset(const std::string& filename, hid_t group, const std::string& key,
                    const std::string& where) {
  const Handle dataset(H5Dopen2(group, key.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    throw DataLossError(fmt::format("{}: not in Keras 3's .weights.h5 layout: {} is not a dataset",
                                    filename, where));
  }
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  const H5T_class_t type_class = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  DType dtype = DType::kFloat32;
  bool known = true;
  if (type_class == H5T_FLOAT && size == 4) {
    dtype = DType::kFloat32;
  } else if (type_class == H5T_FLOAT && size == 8) {
    dtype = DType::kFloat64;
  } else if (type_class == H5T_FLOAT && size == 2) {
    dtype = DType::kFloat16;
  } else if (type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2 && size == 4) {
    dtype = DType::kInt32;
  } else if (type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2 && size == 8) {
    dtype = DType::kInt64;
  } else {
    known = false;
  }
  if (!known) {
    throw UnimplementedError(fmt::format(
        "{}: {} holds {}-byte values of HDF5 class {}, which eagle does not read (it reads "
        "float16, float32, float64, int32 and int64)",
        filename, where, size, static_cast<int>(type_class)));
  }
  const Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > Shape::kMaxRank) {
    throw UnimplementedError(fmt::format("{}: {} has rank {}, above eagle's maximum rank {}",
                                         filename, where, rank, Shape::kMaxRank));
  }
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  Shape shape;
  for (hsize_t d : dims) shape.push_back(static_cast<std::int64_t>(d));
  hid_t file_type = -1;
  hid_t memory_type = -1;
  bool owned = false;
  hdf5_types(dtype, file_type, memory_type, owned);
  const Handle owned_type(owned ? memory_type : -1, H5Tclose);
  return data::make_host_tensor(shape, dtype, [&](unsigned char* out) {
    if (shape.num_elements() > 0 &&
        H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
      throw DataLossError(fmt::format("{}: cannot read {}: {}", filename, where, hdf5_message()));
    }
  });
}

struct Link {
  std::string name;
  bool hard;
};

std::vector<Link> links_of(hid_t group) {
  std::vector<Link> links;
  H5Literate(
      group, H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t* info, void* out) -> herr_t {
        static_cast<std::vector<Link>*>(out)->push_back({name, info->type == H5L_TYPE_HARD});
        return 0;
      },
      &links);
  return links;
}

void check_hard(const std::string& filename, const Link& link, const std::string& where) {
  if (!link.hard) {
    // Keras refuses soft and external links too (safe_get_h5_group).
    throw DataLossError(
        fmt::format("{}: {} is a soft or external link, which a .weights.h5 file "
                    "may not hold",
                    filename, where));
  }
}

// Collects every vars group below `group` (whose path in the file is `path`).
void collect(const std::string& filename, hid_t group, const std::string& path,
             std::vector<LayerWeights>& out) {
  for (const Link& link : links_of(group)) {
    const std::string child_path = path.empty() ? link.name : path + "/" + link.name;
    check_hard(filename, link, "/" + child_path);
    const Handle object(H5Oopen(group, link.name.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.valid() || H5Iget_type(object.get()) != H5I_GROUP) continue;
    if (link.name != "vars") {
      collect(filename, object.get(), child_path, out);
      continue;
    }
    LayerWeights entry;
    entry.path = path;
    entry.name = read_name_attribute(filename, object.get());
    const std::vector<Link> datasets = links_of(object.get());
    for (std::size_t i = 0; i < datasets.size(); ++i) {
      const std::string key = std::to_string(i);
      const std::string where = "/" + child_path + "/" + key;
      const auto it = std::find_if(datasets.begin(), datasets.end(),
                                   [&](const Link& l) { return l.name == key; });
      if (it == datasets.end()) {
        throw DataLossError(fmt::format(
            "{}: not in Keras 3's .weights.h5 layout: /{} holds {} entries but no dataset \"{}\"",
            filename, child_path, datasets.size(), key));
      }
      check_hard(filename, *it, where);
      entry.weights.push_back(read_dataset(filename, object.get(), key, where));
    }
    out.push_back(std::move(entry));
  }
}

#else

[[noreturn]] void throw_without_hdf5(const std::string& filename, const char* verb) {
  throw UnimplementedError(fmt::format(
      "{}: this eagle was built without HDF5 (EAGLE_HDF5=OFF), so it cannot {} Keras .weights.h5 "
      "files; install libhdf5-dev and rebuild",
      filename, verb));
}

#endif  // EAGLE_WITH_HDF5

}  // namespace

bool keras_weights_supported() {
#ifdef EAGLE_WITH_HDF5
  return true;
#else
  return false;
#endif
}

void save_keras_weights(const std::string& filename, const std::vector<LayerWeights>& layers) {
  check_filename(filename);
#ifndef EAGLE_WITH_HDF5
  (void)layers;
  throw_without_hdf5(filename, "save");
#else
  // fopen first: its errno gives TensorFlow's file errors (a missing directory: NotFoundError).
  errno = 0;
  if (std::FILE* probe = std::fopen(filename.c_str(), "wb")) {
    std::fclose(probe);
  } else {
    throw_file_error(filename, errno ? errno : EIO);
  }
  std::lock_guard<std::mutex> lock(hdf5_mutex());
  silence_hdf5();
  const Handle file(H5Fcreate(filename.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw_hdf5(filename, "create the file");
  const Handle intermediate(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(intermediate.get(), 1);
  for (const LayerWeights& layer : layers) {
    const std::string group_path = layer.path.empty() ? "vars" : layer.path + "/vars";
    if (!layer.path.empty() && (layer.path.front() == '/' || layer.path.back() == '/' ||
                                layer.path.find("//") != std::string::npos)) {
      throw InvalidArgumentError(
          fmt::format("{}: invalid weights path \"{}\"", filename, layer.path));
    }
    const Handle group(
        H5Gcreate2(file.get(), group_path.c_str(), intermediate.get(), H5P_DEFAULT, H5P_DEFAULT),
        H5Gclose);
    if (!group.valid()) throw_hdf5(filename, "create group /" + group_path);
    std::string name = layer.name;
    if (name.empty()) name = layer.path.substr(layer.path.find_last_of('/') + 1);
    write_name_attribute(filename, group.get(), name);
    for (std::size_t i = 0; i < layer.weights.size(); ++i) {
      const std::string key = std::to_string(i);
      write_dataset(filename, group.get(), key, "/" + group_path + "/" + key, layer.weights[i]);
    }
  }
  if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) throw_hdf5(filename, "write the file");
#endif
}

std::vector<LayerWeights> load_keras_weights(const std::string& filename) {
#ifndef EAGLE_WITH_HDF5
  throw_without_hdf5(filename, "load");
#else
  struct stat info {};
  if (::stat(filename.c_str(), &info) != 0) throw_file_error(filename, errno);
  if (S_ISDIR(info.st_mode)) throw_file_error(filename, EISDIR);
  std::lock_guard<std::mutex> lock(hdf5_mutex());
  silence_hdf5();
  if (H5Fis_hdf5(filename.c_str()) <= 0) {
    throw DataLossError(
        fmt::format("{}: not an HDF5 file (no HDF5 signature): not a .weights.h5 file", filename));
  }
  const Handle file(H5Fopen(filename.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) {
    throw DataLossError(
        fmt::format("{}: HDF5 could not open the file: {}", filename, hdf5_message()));
  }
  std::vector<LayerWeights> layers;
  collect(filename, file.get(), "", layers);
  if (layers.empty()) {
    throw DataLossError(fmt::format(
        "{}: not in Keras 3's .weights.h5 layout: no \"vars\" group (a Keras 2 .h5 file keeps "
        "its weights under model_weights/ or per-layer groups instead)",
        filename));
  }
  return layers;
#endif
}

const LayerWeights& expect_layer_weights(const std::string& filename,
                                         const std::vector<LayerWeights>& loaded,
                                         const std::string& path, const std::string& layer_name,
                                         const std::vector<std::string>& variable_names,
                                         const std::vector<Shape>& shapes) {
  static const LayerWeights kNone;
  const auto it = std::find_if(loaded.begin(), loaded.end(),
                               [&](const LayerWeights& l) { return l.path == path; });
  const LayerWeights& entry = it == loaded.end() ? kNone : *it;
  if (entry.weights.size() != shapes.size()) {
    // Keras 3's text (Layer._check_load_own_variables).
    throw InvalidArgumentError(fmt::format(
        "{}: Layer '{}' expected {} variables, but received {} variables during loading. "
        "Expected: {}",
        filename, layer_name, shapes.size(), entry.weights.size(), quoted_list(variable_names)));
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (entry.weights[i].shape() != shapes[i]) {
      const std::string variable = i < variable_names.size() ? variable_names[i] : "";
      throw InvalidArgumentError(
          fmt::format("{}: /{}{}vars/{} ('{}' of layer '{}') has shape {}, expected {}", filename,
                      path, path.empty() ? "" : "/", i, variable, layer_name,
                      entry.weights[i].shape().to_tuple_string(), shapes[i].to_tuple_string()));
    }
  }
  return entry;
}

}  // namespace eagle::io
