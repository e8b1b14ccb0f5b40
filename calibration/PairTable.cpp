// Loader of pair tables (format colocsim-pair-table/1, docs/formats/pair-table.md). Every entry is a
// {value, tag, source} map (a measured total has its own pair(s) as source); rows and columns are the job
// classes in JobClass order.
#include "calibration/PairTable.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace colocsim {

namespace {

const std::vector<std::string> PAIR_TABLE_KEYS{"format", "name",    "measured_on", "status", "created",
                                               "modes",  "classes", "families",    "table"};
const std::vector<std::string> FAMILY_KEYS{"family", "class", "job_types", "reason"};
const std::string FORMAT = "colocsim-pair-table/1";

/// The modes where co-runners share one device's engine (a pair table can apply there).
std::vector<std::string> shared_mode_names()
{
  std::vector<std::string> names;
  for (const auto& n : sharing_mode_names()) {
    const auto m = parse_sharing_mode(n);
    if (m && *m != SharingMode::EXCLUSIVE && *m != SharingMode::MIG) names.push_back(n);
  }
  return names;
}

std::string scalar_of(const YAML::Node& n)
{
  return n.IsScalar() ? n.Scalar() : std::string("?");
}

class Parser {
public:
  Parser(const std::string& file, DiagnosticSink& sink) : file_(file), sink_(sink) {}

  std::string text(const YAML::Node& parent, const std::string& key, const std::string& path)
  {
    const YAML::Node n = parent[key];
    if (!n.IsDefined()) {
      sink_.add(location_of(parent, file_), path, "missing required key; expected a non-empty string");
      return {};
    }
    if (!n.IsScalar() || n.Scalar().empty()) {
      sink_.add(location_of(n, file_), path, "expected a non-empty string");
      return {};
    }
    return n.Scalar();
  }

  void modes(const YAML::Node& root, PairTable& t)
  {
    const YAML::Node m = root["modes"];
    const std::string expected = "expected a non-empty list of sharing modes from " +
                                 join(shared_mode_names()) + " (where co-runners share one device)";
    if (!m.IsDefined()) {
      sink_.add(location_of(root, file_), "modes", "missing required key; " + expected);
      return;
    }
    if (!m.IsSequence() || m.size() == 0) {
      sink_.add(location_of(m, file_), "modes", "not a list of modes; " + expected);
      return;
    }
    for (std::size_t k = 0; k < m.size(); ++k) {
      const auto mode = m[k].IsScalar() ? parse_sharing_mode(m[k].Scalar()) : std::nullopt;
      const std::string path = "modes[" + std::to_string(k) + "]";
      if (!mode)
        sink_.add(location_of(m[k], file_), path,
                  "unknown sharing mode '" + scalar_of(m[k]) + "'; " + expected);
      else if (*mode == SharingMode::EXCLUSIVE || *mode == SharingMode::MIG)
        sink_.add(location_of(m[k], file_), path,
                  "mode '" + m[k].Scalar() + "' never puts two jobs on one engine; " + expected);
      else if (std::find(t.modes.begin(), t.modes.end(), *mode) == t.modes.end())
        t.modes.push_back(*mode);
    }
  }

  void classes(const YAML::Node& root)
  {
    const YAML::Node c = root["classes"];
    const std::string expected =
        "expected exactly [" + job_class_list() + "], the order of the table's rows and columns";
    if (!c.IsDefined()) {
      sink_.add(location_of(root, file_), "classes", "missing required key; " + expected);
      return;
    }
    bool ok = c.IsSequence() && c.size() == static_cast<std::size_t>(JOB_CLASS_COUNT);
    std::vector<std::string> got;
    if (c.IsSequence())
      for (const auto& e : c)
        got.push_back(scalar_of(e));
    for (int i = 0; ok && i < JOB_CLASS_COUNT; ++i)
      ok = got[static_cast<std::size_t>(i)] == to_string(static_cast<JobClass>(i));
    if (!ok)
      sink_.add(location_of(c, file_), "classes", "wrong class list (got [" + join(got) + "]); " + expected);
  }

  void families(const YAML::Node& root, PairTable& t)
  {
    const YAML::Node f = root["families"];
    const std::string expected =
        "expected a list of {family, class, job_types, reason}, one per source family";
    if (!f.IsDefined()) {
      sink_.add(location_of(root, file_), "families", "missing required key; " + expected);
      return;
    }
    if (!f.IsSequence() || f.size() == 0) {
      sink_.add(location_of(f, file_), "families", "not a list; " + expected);
      return;
    }
    for (std::size_t k = 0; k < f.size(); ++k) {
      const std::string path = "families[" + std::to_string(k) + "]";
      const YAML::Node e = f[k];
      if (!expect_map(e, file_, path, sink_)) continue;
      check_keys(e, FAMILY_KEYS, file_, path, sink_);
      PairTableFamily fam;
      fam.family = text(e, "family", path + ".family");
      fam.reason = text(e, "reason", path + ".reason");
      const std::string cls = text(e, "class", path + ".class");
      if (const auto c = parse_job_class(cls))
        fam.job_class = *c;
      else if (!cls.empty())
        sink_.add(location_of(e["class"], file_), path + ".class",
                  "unknown job class '" + cls + "'; expected one of " + job_class_list());
      const auto n = e["job_types"].IsScalar() ? parse_double(e["job_types"].Scalar()) : std::nullopt;
      if (!n || *n < 1 || *n != static_cast<double>(static_cast<int>(*n)))
        sink_.add(location_of(e["job_types"].IsDefined() ? e["job_types"] : e, file_), path + ".job_types",
                  "expected a whole number >= 1 (how many of the source's job types the family has)");
      else
        fam.job_types = static_cast<int>(*n);
      t.families.push_back(fam);
    }
  }

  void table(const YAML::Node& root, PairTable& t)
  {
    const YAML::Node table = root["table"];
    const std::string n = std::to_string(JOB_CLASS_COUNT);
    const std::string shape = n + " rows of " + n + " {value, tag, source} entries >= 1 (rows and columns " +
                              job_class_list() + ")";
    if (!table.IsDefined()) {
      sink_.add(location_of(root, file_), "table", "missing required key; expected " + shape);
      return;
    }
    if (!table.IsSequence() || table.size() != static_cast<std::size_t>(JOB_CLASS_COUNT)) {
      sink_.add(location_of(table, file_), "table",
                "wrong shape (got " +
                    (table.IsSequence() ? std::to_string(table.size()) + " rows" : "no list") +
                    "); expected " + shape);
      return;
    }
    for (std::size_t r = 0; r < table.size(); ++r) {
      const YAML::Node row = table[r];
      const std::string row_class(to_string(static_cast<JobClass>(r)));
      const std::string rpath = "table[" + std::to_string(r) + "]";
      if (!row.IsSequence() || row.size() != static_cast<std::size_t>(JOB_CLASS_COUNT)) {
        sink_.add(location_of(row, file_), rpath,
                  "wrong shape in row " + row_class + " (got " +
                      (row.IsSequence() ? std::to_string(row.size()) + " entries" : "no list") +
                      "); expected " + n + " entries, one per co-runner class " + job_class_list());
        continue;
      }
      for (std::size_t k = 0; k < row.size(); ++k)
        entry(row[k], rpath + "[" + std::to_string(k) + "]",
              "for row " + row_class + ", column " + std::string(to_string(static_cast<JobClass>(k))),
              t.entries[r][k]);
    }
  }

private:
  void entry(const YAML::Node& cell, const std::string& path, const std::string& where, Sourced& out)
  {
    const std::string rule = "a total slowdown >= 1 (solo / paired throughput; 1 = not slowed)";
    if (!cell.IsMap()) {
      sink_.add(location_of(cell, file_), path,
                "expected {value, tag, source} " + where + " (got '" + scalar_of(cell) +
                    "'); every measured total carries its source");
      return;
    }
    // read_sourced reads a key of a map; wrap the cell so that its own marks still locate the problems.
    YAML::Node wrapper(YAML::NodeType::Map);
    wrapper[path] = cell;
    const auto s = read_sourced(wrapper, path, Unit::NONE, file_, "", sink_);
    if (!s) return;
    if (s->value < 1.0) {
      std::ostringstream got;
      got << s->value;
      sink_.add(location_of(cell["value"], file_), path + ".value",
                "slowdown below 1 (got '" + got.str() + "') " + where + "; expected " + rule);
      return;
    }
    out = *s;
  }

  const std::string& file_;
  DiagnosticSink& sink_;
};

PairTable parse_pair_table(std::string_view yaml_text, const std::string& file)
{
  const YAML::Node root = load_yaml(yaml_text, file);
  DiagnosticSink sink;
  if (!expect_map(root, file, "", sink)) sink.throw_if_any();
  check_keys(root, PAIR_TABLE_KEYS, file, "", sink);
  if (const YAML::Node f = root["format"]; !f.IsDefined())
    sink.add(location_of(root, file), "format", "missing required key; expected '" + FORMAT + "'");
  else if (!f.IsScalar() || f.Scalar() != FORMAT)
    sink.add(location_of(f, file), "format",
             "unknown format (got '" + scalar_of(f) + "'); expected '" + FORMAT + "'");
  Parser p(file, sink);
  PairTable t;
  t.name = p.text(root, "name", "name");
  t.measured_on = p.text(root, "measured_on", "measured_on");
  t.status = p.text(root, "status", "status");
  t.created = p.text(root, "created", "created");
  p.modes(root, t);
  p.classes(root);
  p.families(root, t);
  p.table(root, t);
  sink.throw_if_any();
  return t;
}

} // namespace

PairTable load_pair_table(std::string_view yaml_text, const std::string& file)
{
  try {
    return parse_pair_table(yaml_text, file);
  } catch (const YAML::Exception& e) {
    throw InputError(SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, "",
                     "unexpected YAML structure: " + e.msg);
  }
}

PairTable load_pair_table_file(const std::string& path)
{
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, "", "cannot open pair table file");
  std::ostringstream text;
  text << in.rdbuf();
  return load_pair_table(text.str(), path);
}

PairTotalInterference make_pair_total_interference(const PairTable& table)
{
  PairTotalInterference::Table t{};
  for (int r = 0; r < JOB_CLASS_COUNT; ++r)
    for (int c = 0; c < JOB_CLASS_COUNT; ++c)
      t[r][c] = table.entries[r][c].value;
  return PairTotalInterference(t, table.name + " (" + table.measured_on + ")", table.modes);
}

} // namespace colocsim
