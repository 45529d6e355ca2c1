#pragma once
/// OptionList: the fields of an options struct declared once (JSON key, member, allowed range
/// or names, meaning; the default is the struct's own), from which come the key check,
/// `from_json`, `to_json` and the documentation table (`attend layers --options NAME`, the
/// layer tables of docs/user-guide.md). Lists compose: `include` takes the fields of another
/// struct's list, held as a base class (options several structs share, declared once) or as a
/// member (nested options, read and written as keys of the same flat object).

#include <algorithm>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend {

/// The interval a numeric option must lie in, printed in its documentation.
struct OptionRange {
  std::optional<double> lo, hi;
  bool lo_open = false, hi_open = false;

  static OptionRange any() { return {}; }
  static OptionRange positive() { return {0.0, std::nullopt, true, false}; }      ///< > 0
  static OptionRange at_least(double lo) { return {lo, std::nullopt, false, false}; }
  static OptionRange fraction() { return {0.0, 1.0, false, true}; }               ///< [0, 1)

  bool contains(double value) const;
  /// "any", "> 0", ">= 1", "[0, 1)".
  std::string to_string() const;
};

/// One option as the documentation shows it.
struct OptionDoc {
  std::string key;
  std::string type;           ///< bool, integer, number, string
  std::string default_value;  ///< JSON text, or "required"
  std::string allowed;        ///< a range, the names, or "any"
  std::string meaning;
};

/// Whether `config[key]` is JSON null, which an optional option reads as its default (the
/// configs PyTorch Geometric writes say None for "not set").
inline bool is_null_option(const Json& config, const std::string& key) {
  return config.is_object() && config.contains(key) && config.at(key).is_null();
}

/// A Markdown table of `docs`: | option | type | default | allowed | meaning |.
std::string option_table_markdown(const std::vector<OptionDoc>& docs);

template <class T>
class OptionList {
  template <class>
  friend class OptionList;

 public:
  explicit OptionList(std::string owner) : owner_(std::move(owner)) {}

  /// A bool or numeric option (the default: T{}'s value) that must lie in `range`.
  template <class M>
  OptionList& add(std::string key, M T::*member, std::string meaning, OptionRange range = OptionRange::any()) {
    return add_number(std::move(key), member, std::move(meaning), range, false);
  }
  /// As add, without a default: a config must give it.
  template <class M>
  OptionList& required(std::string key, M T::*member, std::string meaning, OptionRange range = OptionRange::any()) {
    return add_number(std::move(key), member, std::move(meaning), range, true);
  }

  /// An option given by name, stored as `member` (an enum or a string): one of `names`.
  template <class M>
  OptionList& choice(std::string key, M T::*member, std::vector<std::pair<std::string, M>> names, std::string meaning) {
    std::string allowed;
    std::string fallback;
    for (const auto& [name, value] : names) {
      allowed += (allowed.empty() ? "" : ", ") + quoted_input(name);
      if (value == T{}.*member) fallback = Json(name).dump();
    }
    ATTEND_CHECK(!fallback.empty(), owner_ << ": option " << key << " has a default that no name gives");
    Field f{{key, "string", fallback, allowed, std::move(meaning)}, {}, {}, {}};
    f.read = [key, member, names, allowed](const Json& config, T& out, const std::string& owner) {
      if (!config.is_object() || !config.contains(key) || is_null_option(config, key)) return;
      const std::string name = option_or<std::string>(config, key, "", owner);
      for (const auto& [candidate, value] : names) {
        if (candidate == name) {
          out.*member = value;
          return;
        }
      }
      throw InputError(owner + ": option " + quoted_input(key) + " must be one of " + allowed + ", got " +
                       quoted_input(name));
    };
    f.write = [key, member, names](const T& in, Json& out) {
      for (const auto& [name, value] : names) {
        if (value == in.*member) out[key] = name;
      }
    };
    fields_.push_back(std::move(f));
    return *this;
  }

  /// The fields of `list`, a list of S (a base class of T), after those given so far; the
  /// keys in `except` are left out. Errors name this list's owner; the defaults documented are
  /// T{}'s.
  template <class S>
  OptionList& include(const OptionList<S>& list, const std::vector<std::string>& except = {}) {
    static_assert(std::is_base_of_v<S, T>, "OptionList::include(list) takes the list of a base class");
    return include_fields(list, [](T& t) -> S& { return t; }, [](const T& t) -> const S& { return t; }, except);
  }
  /// The fields of `list` read into and written from `member` (nested options as keys of the
  /// same object); the keys in `except` are left out (options the outer struct sets itself).
  template <class S>
  OptionList& include(S T::*member, const OptionList<S>& list, const std::vector<std::string>& except = {}) {
    return include_fields(list, [member](T& t) -> S& { return t.*member; },
                          [member](const T& t) -> const S& { return t.*member; }, except);
  }

  /// Every key checked against the list (attend::InputError naming the owner and the known
  /// keys), then each option read over T{}'s defaults and checked. A null config is empty; a
  /// null value of an optional option is its default.
  T from_json(const Json& config) const {
    std::vector<std::string> known;
    for (const Field& f : fields_) known.push_back(f.doc.key);
    check_option_keys(config, known, owner_);
    T out{};
    for (const Field& f : fields_) f.read(config, out, owner_);
    return out;
  }

  /// Each numeric option of `options` checked against its range (attend::InputError "<owner>:
  /// option 'key' must be <range>, got <value>"): for options built in code, not read from JSON.
  void check(const T& options) const {
    for (const Field& f : fields_) {
      if (f.check) f.check(options, owner_);
    }
  }

  Json to_json(const T& options) const {
    Json out = Json::object();
    for (const Field& f : fields_) f.write(options, out);
    return out;
  }

  std::vector<OptionDoc> docs() const {
    std::vector<OptionDoc> out;
    for (const Field& f : fields_) out.push_back(f.doc);
    return out;
  }

 private:
  /// read and check take the owner that errors name (the including list's, for included fields).
  struct Field {
    OptionDoc doc;
    std::function<void(const Json&, T&, const std::string&)> read;
    std::function<void(const T&, Json&)> write;
    std::function<void(const T&, const std::string&)> check;  ///< numeric options: the value lies in the range
  };

  template <class S, class Get, class GetConst>
  OptionList& include_fields(const OptionList<S>& list, Get get, GetConst get_const, const std::vector<std::string>& except) {
    const T defaults{};
    for (const typename OptionList<S>::Field& sub : list.fields_) {
      if (std::find(except.begin(), except.end(), sub.doc.key) != except.end()) continue;
      Field f{sub.doc, {}, {}, {}};
      if (f.doc.default_value != "required") {  // the default T{} gives, which may differ from S{}'s
        Json value = Json::object();
        sub.write(get_const(defaults), value);
        f.doc.default_value = with_short_floats(value.at(sub.doc.key)).dump();
      }
      f.read = [read = sub.read, get](const Json& config, T& out, const std::string& owner) { read(config, get(out), owner); };
      f.write = [write = sub.write, get_const](const T& in, Json& out) { write(get_const(in), out); };
      if (sub.check) {
        f.check = [check = sub.check, get_const](const T& in, const std::string& owner) { check(get_const(in), owner); };
      }
      fields_.push_back(std::move(f));
    }
    return *this;
  }

  template <class M>
  OptionList& add_number(std::string key, M T::*member, std::string meaning, OptionRange range, bool required) {
    static_assert(std::is_arithmetic_v<M>, "OptionList::add takes bool and numeric members; use choice for names");
    const char* type = std::is_same_v<M, bool> ? "bool" : std::is_integral_v<M> ? "integer" : "number";
    const std::string fallback = required ? "required" : with_short_floats(Json(T{}.*member)).dump();
    Field f{{key, type, fallback, std::is_same_v<M, bool> ? "true, false" : range.to_string(), std::move(meaning)}, {}, {}, {}};
    f.read = [key, member, range, required](const Json& config, T& out, const std::string& owner) {
      if (!required && is_null_option(config, key)) return;  // null (Python's None): the default
      const M value = required ? option_required<M>(config, key, owner) : option_or<M>(config, key, out.*member, owner);
      if constexpr (!std::is_same_v<M, bool>) {
        if (!range.contains(static_cast<double>(value))) {
          throw InputError(owner + ": option " + quoted_input(key) + " must be " + range.to_string() + ", got " +
                           quoted_input(config.at(key).dump()));
        }
      }
      out.*member = value;
    };
    f.write = [key, member](const T& in, Json& out) { out[key] = in.*member; };
    if constexpr (!std::is_same_v<M, bool>) {
      f.check = [key, member, range](const T& in, const std::string& owner) {
        if (range.contains(static_cast<double>(in.*member))) return;
        std::ostringstream value;
        value << in.*member;
        throw InputError(owner + ": option " + quoted_input(key) + " must be " + range.to_string() + ", got " + value.str());
      };
    }
    fields_.push_back(std::move(f));
    return *this;
  }

  std::string owner_;
  std::vector<Field> fields_;
};

}  // namespace attend
