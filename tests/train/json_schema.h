// A small JSON Schema (2020-12) validator for the keywords recallbench's schema files use: type, enum,
// properties, required, additionalProperties (boolean), items, minimum, maximum, $ref into #/$defs, and
// the annotations ($schema, $id, $defs, title, description). Any other keyword is reported as an error,
// so a schema can never pass because a keyword was silently ignored. (No maintained C++ validator is
// packaged for the build machines; this covers exactly what reports/schema/*.json need.)
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::testing {

class SchemaValidator {
 public:
  explicit SchemaValidator(nlohmann::json schema) : root_(std::move(schema)) {}

  // Errors of `doc` against the schema, each "path: what"; empty = valid.
  std::vector<std::string> validate(const nlohmann::json& doc) const {
    std::vector<std::string> errors;
    check(root_, doc, "$", errors);
    return errors;
  }

 private:
  static bool has_type(const nlohmann::json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>())));
    if (type == "number") return v.is_number();
    return false;
  }

  void check(const nlohmann::json& schema, const nlohmann::json& v, const std::string& path,
             std::vector<std::string>& errors) const {
    static const std::set<std::string> known = {"$schema", "$id", "$defs", "title", "description", "type", "enum",
                                                "properties", "required", "additionalProperties", "items",
                                                "minimum", "maximum", "$ref", "const", "minLength", "maxLength"};
    for (const auto& [k, unused] : schema.items())
      if (!known.count(k)) errors.push_back(path + ": schema uses unsupported keyword '" + k + "'");
    if (schema.contains("$ref")) {
      const std::string ref = schema["$ref"];
      const std::string prefix = "#/$defs/";
      if (ref.rfind(prefix, 0) != 0 || !root_["$defs"].contains(ref.substr(prefix.size()))) {
        errors.push_back(path + ": unresolvable $ref " + ref);
        return;
      }
      check(root_["$defs"][ref.substr(prefix.size())], v, path, errors);
    }
    if (schema.contains("type")) {
      std::vector<std::string> types;
      if (schema["type"].is_string()) types.push_back(schema["type"]);
      else for (const auto& t : schema["type"]) types.push_back(t);
      bool ok = false;
      for (const auto& t : types) ok = ok || has_type(v, t);
      if (!ok) {
        errors.push_back(path + ": expected type " + schema["type"].dump() + ", got " + v.type_name() + " " + v.dump());
        return;
      }
    }
    if (schema.contains("enum")) {
      bool ok = false;
      for (const auto& e : schema["enum"]) ok = ok || e == v;
      if (!ok) errors.push_back(path + ": " + v.dump() + " not in " + schema["enum"].dump());
    }
    if (schema.contains("const") && schema["const"] != v)
      errors.push_back(path + ": " + v.dump() + " is not the constant " + schema["const"].dump());
    if (v.is_string() && schema.contains("minLength") &&
        v.get<std::string>().size() < schema["minLength"].get<size_t>())
      errors.push_back(path + ": string shorter than minLength " + schema["minLength"].dump());
    if (v.is_string() && schema.contains("maxLength") &&
        v.get<std::string>().size() > schema["maxLength"].get<size_t>())
      errors.push_back(path + ": string longer than maxLength " + schema["maxLength"].dump());
    if (v.is_number()) {
      if (schema.contains("minimum") && v.get<double>() < schema["minimum"].get<double>())
        errors.push_back(path + ": " + v.dump() + " below minimum " + schema["minimum"].dump());
      if (schema.contains("maximum") && v.get<double>() > schema["maximum"].get<double>())
        errors.push_back(path + ": " + v.dump() + " above maximum " + schema["maximum"].dump());
    }
    if (v.is_object()) {
      if (schema.contains("required"))
        for (const auto& r : schema["required"])
          if (!v.contains(r.get<std::string>())) errors.push_back(path + ": missing required field " + r.dump());
      const auto props = schema.value("properties", nlohmann::json::object());
      for (const auto& [k, child] : v.items()) {
        if (props.contains(k)) check(props[k], child, path + "." + k, errors);
        else if (schema.contains("additionalProperties") && schema["additionalProperties"] == false)
          errors.push_back(path + ": field '" + k + "' is not documented in the schema");
      }
    }
    if (v.is_array() && schema.contains("items"))
      for (size_t i = 0; i < v.size(); ++i) check(schema["items"], v[i], path + "[" + std::to_string(i) + "]", errors);
  }

  nlohmann::json root_;
};

}  // namespace rb::testing
