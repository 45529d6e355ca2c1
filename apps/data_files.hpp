#pragma once
/// Where the `attend` program finds the data files it ships with (the trained contact model).
/// It never reads the source data folders of the build machine at run time except as the
/// last fallback of a build tree (ATTEND_SOURCE_DATA_DIR, compiled in).

#include <string>

namespace attend::cli {

/// File name of the shipped contact model under `<data>/models/`.
inline constexpr char kDefaultContactModel[] = "contact_evoformer.h5";

/// The first existing `<data>/<relative>` over, in order: $ATTEND_DATA_DIR; the installed
/// share folder next to the binary (`<bin>/../share/attend`); the source tree's `data/`
/// folder of a build tree. Throws attend::InputError listing the places tried when none has it.
std::string find_data_file(const std::string& relative);

}  // namespace attend::cli
