// Loader of calibration files (format colocsim-calibration/1, docs/formats/calibration.md). Every number
// carries {value, tag, source}; the interference table is a 5×5 list of lists whose entries are bare
// numbers (provenance from interference.tag/source) or {value, tag, source} maps.
#include "calibration/Calibration.hpp"
#include "base/Units.hpp"

#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace colocsim {

namespace {

const std::vector<std::string> TOP_KEYS{"format", "name",       "device",        "status",      "created",
                                        "power",  "time_slice", "node_baseline", "interference"};
const std::vector<std::string> POWER_KEYS{"idle", "idle_at_fmax", "context", "vec", "xmx", "bw", "gamma"};
const std::vector<std::string> TIME_SLICE_KEYS{"collision", "switch_overhead"};
const std::vector<std::string> INTERFERENCE_KEYS{"tag", "source", "classes", "table", "modes"};

std::string evidence_list()
{
  std::vector<std::string> names;
  for (auto e : {Evidence::VENDOR_SPEC, Evidence::MEASUREMENT, Evidence::DOCUMENTED, Evidence::ESTIMATE,
                 Evidence::MICROBENCHMARK})
    names.emplace_back(to_string(e));
  return join(names);
}

class Reader {
public:
  Reader(const std::string& file, DiagnosticSink& sink) : file_(file), sink_(sink) {}

  std::string text(const YAML::Node& parent, const std::string& key)
  {
    const YAML::Node n = parent[key];
    if (!n.IsDefined()) {
      sink_.add(location_of(parent, file_), key, "missing required key; expected a string");
      return {};
    }
    if (!n.IsScalar() || n.Scalar().empty()) {
      sink_.add(location_of(n, file_), key, "expected a non-empty string");
      return {};
    }
    return n.Scalar();
  }

  /// The map under `key`; nullopt (problem reported) when it is missing or not a map.
  std::optional<YAML::Node> section(const YAML::Node& root, const std::string& key,
                                    const std::vector<std::string>& keys)
  {
    const YAML::Node n = root[key];
    if (!n.IsDefined()) {
      sink_.add(location_of(root, file_), key,
                "missing required section; expected a map with keys " + join(keys));
      return std::nullopt;
    }
    if (!expect_map(n, file_, key, sink_)) return std::nullopt;
    check_keys(n, keys, file_, key, sink_);
    return n;
  }

  /// read_sourced plus a range check whose message states the rule.
  void sourced(const YAML::Node& parent, const std::string& key, const std::string& path, Unit unit,
               double min, double max, const std::string& rule, Sourced& out)
  {
    auto s = read_sourced(parent, key, unit, file_, path, sink_);
    if (!s) return;
    if (s->value < min || s->value > max) {
      const YAML::Node v = parent[key]["value"];
      sink_.add(location_of(v, file_), (path.empty() ? key : path + "." + key) + ".value",
                "out of range (got '" + v.Scalar() + "'); expected " + rule);
      return;
    }
    out = *s;
  }

  /// One table entry: a bare number or {value, tag, source}; must be >= 1.
  void entry(const YAML::Node& cell, const std::string& path, const std::string& where, Sourced& out)
  {
    const std::string rule = "a slowdown factor >= 1 (1 = no interference)";
    double value = 0;
    YAML::Node value_node = cell;
    if (cell.IsMap()) {
      // read_sourced reads a key of a map; wrap the cell so its own marks still locate the problems.
      YAML::Node wrapper(YAML::NodeType::Map);
      wrapper[path] = cell;
      auto s = read_sourced(wrapper, path, Unit::NONE, file_, "", sink_);
      if (!s) return;
      out = *s;
      value = s->value;
      value_node = cell["value"];
    } else if (cell.IsScalar()) {
      auto v = parse_double(cell.Scalar());
      if (!v) {
        sink_.add(location_of(cell, file_), path,
                  "not a number (got '" + cell.Scalar() + "') " + where + "; expected " + rule +
                      ", or {value, tag, source}");
        return;
      }
      value = *v;
      out = Sourced{value, Evidence::ESTIMATE, ""};
    } else {
      sink_.add(location_of(cell, file_), path, "expected a number " + where + ", got a list or nothing");
      return;
    }
    if (value < 1.0) {
      sink_.add(location_of(value_node, file_), path,
                "slowdown below 1 (got '" + number_text(value) + "') " + where + "; expected " + rule);
      out.value = 1.0; // keep reading; the load fails anyway
    }
  }

private:
  const std::string& file_;
  DiagnosticSink& sink_;
};

void read_classes(const YAML::Node& inter, const std::string& file, DiagnosticSink& sink)
{
  const YAML::Node classes = inter["classes"];
  const std::string expected =
      "expected exactly [" + job_class_list() + "], the order of the table's rows and columns";
  if (!classes.IsDefined()) {
    sink.add(location_of(inter, file), "interference.classes", "missing required key; " + expected);
    return;
  }
  bool ok = classes.IsSequence() && classes.size() == static_cast<std::size_t>(JOB_CLASS_COUNT);
  std::vector<std::string> got;
  if (classes.IsSequence())
    for (const auto& c : classes)
      got.push_back(c.IsScalar() ? c.Scalar() : std::string("?"));
  for (int i = 0; ok && i < JOB_CLASS_COUNT; ++i)
    ok = got[static_cast<std::size_t>(i)] == to_string(static_cast<JobClass>(i));
  if (!ok)
    sink.add(location_of(classes, file), "interference.classes",
             "wrong class list (got [" + join(got) + "]); " + expected);
}

void read_table(const YAML::Node& inter, const std::string& file, DiagnosticSink& sink, Reader& reader,
                Calibration& c)
{
  const YAML::Node table = inter["table"];
  const std::string n = std::to_string(JOB_CLASS_COUNT);
  if (!table.IsDefined()) {
    sink.add(location_of(inter, file), "interference.table",
             "missing required key; expected " + n + " rows of " + n + " numbers >= 1 (rows and columns " +
                 job_class_list() + ")");
    return;
  }
  if (!table.IsSequence() || table.size() != static_cast<std::size_t>(JOB_CLASS_COUNT)) {
    sink.add(location_of(table, file), "interference.table",
             "wrong shape (got " + (table.IsSequence() ? std::to_string(table.size()) + " rows" : "no list") +
                 "); expected " + n + " rows, one per slowed job's class " + job_class_list());
    return;
  }
  for (std::size_t r = 0; r < table.size(); ++r) {
    const YAML::Node row = table[r];
    const auto row_class = to_string(static_cast<JobClass>(r));
    const std::string rpath = "interference.table[" + std::to_string(r) + "]";
    if (!row.IsSequence() || row.size() != static_cast<std::size_t>(JOB_CLASS_COUNT)) {
      sink.add(location_of(row, file), rpath,
               "wrong shape in row " + std::string(row_class) + " (got " +
                   (row.IsSequence() ? std::to_string(row.size()) + " values" : "no list") + "); expected " +
                   n + " values, one per co-runner class " + job_class_list());
      continue;
    }
    for (std::size_t k = 0; k < row.size(); ++k) {
      const std::string where = "for row " + std::string(row_class) + ", column " +
                                std::string(to_string(static_cast<JobClass>(k)));
      Sourced& e = c.table_entries[r][k];
      reader.entry(row[k], rpath + "[" + std::to_string(k) + "]", where, e);
      c.table[r][k] = e.value;
    }
  }
}

Calibration parse(std::string_view yaml_text, const std::string& file)
{
  const YAML::Node root = load_yaml(yaml_text, file);
  DiagnosticSink sink;
  Reader reader(file, sink);
  Calibration c;
  if (!expect_map(root, file, "", sink)) sink.throw_if_any();
  check_keys(root, TOP_KEYS, file, "", sink);

  if (const YAML::Node f = root["format"]; !f.IsDefined())
    sink.add(location_of(root, file), "format", "missing required key; expected 'colocsim-calibration/1'");
  else if (!f.IsScalar() || f.Scalar() != "colocsim-calibration/1")
    sink.add(location_of(f, file), "format",
             "unknown format (got '" + (f.IsScalar() ? f.Scalar() : std::string("?")) +
                 "'); expected 'colocsim-calibration/1'");
  c.name = reader.text(root, "name");
  c.device = reader.text(root, "device");
  c.status = reader.text(root, "status");
  c.created = reader.text(root, "created");

  if (const auto p = reader.section(root, "power", POWER_KEYS)) {
    const auto inf = std::numeric_limits<double>::infinity();
    const std::string watts = "a power >= 0W";
    reader.sourced(*p, "idle", "power", Unit::WATTS, 0.0, inf, watts, c.power.idle_w);
    // Optional: static power with the clock held at f_max (models/PowerModel.hpp P_static(f)); absent, the
    // static power does not depend on the clock.
    if ((*p)["idle_at_fmax"].IsDefined()) {
      reader.sourced(*p, "idle_at_fmax", "power", Unit::WATTS, 0.0, inf, watts, c.power.idle_fmax_w);
      if (c.power.idle_fmax_w.value < c.power.idle_w.value)
        sink.add(location_of((*p)["idle_at_fmax"], file), "power.idle_at_fmax",
                 "static power at f_max below the idle-clock value (got " +
                     number_text(c.power.idle_fmax_w.value) + " W < power.idle " +
                     number_text(c.power.idle_w.value) +
                     " W); expected a power >= power.idle (static power rises with the clock)");
    } else
      c.power.idle_fmax_w = c.power.idle_w;
    reader.sourced(*p, "context", "power", Unit::WATTS, 0.0, inf, watts, c.power.context_w);
    reader.sourced(*p, "vec", "power", Unit::WATTS, 0.0, inf, watts, c.power.vec_w);
    reader.sourced(*p, "xmx", "power", Unit::WATTS, 0.0, inf, watts, c.power.xmx_w);
    reader.sourced(*p, "bw", "power", Unit::WATTS, 0.0, inf, watts, c.power.bw_w);
    reader.sourced(*p, "gamma", "power", Unit::NONE, CALIBRATION_GAMMA_MIN, CALIBRATION_GAMMA_MAX,
                   "a number in [" + number_text(CALIBRATION_GAMMA_MIN) + ", " +
                       number_text(CALIBRATION_GAMMA_MAX) + "]",
                   c.power.gamma);
  }

  if (const auto t = reader.section(root, "time_slice", TIME_SLICE_KEYS)) {
    reader.sourced(*t, "collision", "time_slice", Unit::NONE, 0.0, CALIBRATION_COLLISION_MAX,
                   "a number in [0, " + number_text(CALIBRATION_COLLISION_MAX) + "]", c.time_slice.collision);
    reader.sourced(*t, "switch_overhead", "time_slice", Unit::NONE, 0.0, CALIBRATION_OVERHEAD_MAX,
                   "a fraction in [0, " + number_text(CALIBRATION_OVERHEAD_MAX) + "]",
                   c.time_slice.switch_overhead);
  }

  reader.sourced(root, "node_baseline", "", Unit::WATTS, 0.0, std::numeric_limits<double>::infinity(),
                 "a power >= 0W", c.node_baseline_w);

  if (const auto sec = reader.section(root, "interference", INTERFERENCE_KEYS)) {
    const YAML::Node& i = *sec;
    const std::string tags = evidence_list();
    if (const YAML::Node tag = i["tag"]; !tag.IsDefined() || !tag.IsScalar())
      sink.add(location_of(tag.IsDefined() ? tag : i, file), "interference.tag",
               "missing evidence tag; valid: " + tags);
    else if (auto e = parse_evidence(tag.Scalar()); !e)
      sink.add(location_of(tag, file), "interference.tag",
               "unknown evidence tag '" + tag.Scalar() + "'; valid: " + tags);
    else
      c.table_evidence = *e;
    if (const YAML::Node s = i["source"]; !s.IsDefined() || !s.IsScalar() || s.Scalar().empty())
      sink.add(location_of(s.IsDefined() ? s : i, file), "interference.source",
               "missing source; every number carries its source");
    else
      c.table_source = s.Scalar();
    read_classes(i, file, sink);
    read_table(i, file, sink, reader, c);
    if (const YAML::Node m = i["modes"]; m.IsDefined()) {
      const std::string valid = "a list of sharing modes from " + join(sharing_mode_names());
      if (!m.IsSequence() || m.size() == 0)
        sink.add(location_of(m, file), "interference.modes", "expected " + valid);
      else {
        c.table_modes.clear();
        for (const auto& e : m) {
          const auto mode = e.IsScalar() ? parse_sharing_mode(e.Scalar()) : std::nullopt;
          if (!mode)
            sink.add(location_of(e, file), "interference.modes",
                     "unknown sharing mode '" + (e.IsScalar() ? e.Scalar() : std::string("?")) +
                         "'; valid: " + join(sharing_mode_names()));
          else if (std::find(c.table_modes.begin(), c.table_modes.end(), *mode) == c.table_modes.end())
            c.table_modes.push_back(*mode);
        }
      }
    }
    for (auto& row : c.table_entries)
      for (auto& e : row)
        if (e.source.empty()) e.evidence = c.table_evidence;
  }

  sink.throw_if_any();
  return c;
}

} // namespace

Calibration load_calibration(std::string_view yaml_text, const std::string& file)
{
  try {
    return parse(yaml_text, file);
  } catch (const YAML::Exception& e) {
    // Shapes the checks above do not foresee (e.g. a list used as a map key) still become located input
    // errors.
    throw InputError(SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, "",
                     "unexpected YAML structure: " + e.msg);
  }
}

Calibration load_calibration_file(const std::string& path)
{
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, "", "cannot open calibration file");
  std::ostringstream text;
  text << in.rdbuf();
  return load_calibration(text.str(), path);
}

TableInterference make_table_interference(const Calibration& calibration)
{
  return TableInterference(calibration.table, calibration.table_source, calibration.table_modes);
}

} // namespace colocsim
