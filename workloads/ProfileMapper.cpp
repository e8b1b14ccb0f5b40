#include "workloads/ProfileMapper.hpp"

#include "base/Units.hpp"
#include "workloads/ProfileCatalog.hpp"
#include "workloads/StableHash.hpp"

#include <algorithm>
#include <sstream>

namespace colocsim {

namespace {
const char* const FORMS = "class:A=P,..., qos:LS=P,..., draw:P=WEIGHT,..., A=P,... (as class:) or none, "
                          "rules separated by ';'";

std::vector<std::string> split(std::string_view text, char sep)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(sep, start), text.size());
    std::string item(text.substr(start, end - start));
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? std::string() : item.substr(b, e - b + 1));
    start = end + 1;
  }
  return out;
}

std::string weight_text(double w)
{
  std::ostringstream os;
  os << w;
  return os.str();
}
} // namespace

ProfileMap ProfileMap::parse(std::string_view text, const SourceLocation& where, const std::string& path)
{
  ProfileMap map;
  const auto trimmed = split(text, ';');
  if (trimmed.size() == 1 && (trimmed[0].empty() || trimmed[0] == "none")) return map;
  DiagnosticSink sink;
  for (const auto& rule_text : trimmed) {
    if (rule_text.empty()) continue;
    Rule rule;
    std::string body = rule_text;
    const auto colon = rule_text.find(':');
    if (colon != std::string::npos) {
      const std::string kind = rule_text.substr(0, colon);
      body = rule_text.substr(colon + 1);
      if (kind == "class")
        rule.kind = Kind::CLASS;
      else if (kind == "qos")
        rule.kind = Kind::QOS;
      else if (kind == "draw")
        rule.kind = Kind::DRAW;
      else {
        sink.add(where, path,
                 "unknown rule kind '" + kind + "' (got '" + rule_text + "'); expected " + FORMS);
        continue;
      }
    }
    bool ok = true;
    for (const auto& item : split(body, ',')) {
      const auto eq = item.find('=');
      if (item.empty() || eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        sink.add(where, path,
                 "expected " + std::string(rule.kind == Kind::DRAW ? "profile=weight" : "value=profile") +
                     " items (got '" + item + "' in '" + rule_text + "'); valid forms: " + FORMS);
        ok = false;
        continue;
      }
      std::string left = item.substr(0, eq), right = item.substr(eq + 1);
      if (rule.kind == Kind::DRAW) {
        const auto w = parse_double(right);
        if (!w || *w < 0) {
          sink.add(where, path,
                   "not a weight (got '" + right + "' for " + left + "); expected a number >= 0");
          ok = false;
          continue;
        }
        rule.draw.emplace_back(std::move(left), *w);
      } else {
        rule.match.emplace_back(std::move(left), std::move(right));
      }
    }
    if (!ok) continue;
    if (rule.kind == Kind::DRAW) {
      double total = 0;
      for (const auto& [p, w] : rule.draw)
        rule.cumulative.push_back(total += w);
      if (total <= 0) {
        sink.add(where, path,
                 "the weights of '" + rule_text + "' sum to 0; expected at least one weight > 0");
        continue;
      }
    }
    map.rules_.push_back(std::move(rule));
  }
  sink.throw_if_any();
  return map;
}

void ProfileMap::check(const ProfileCatalog& catalog, const SourceLocation& where,
                       const std::string& path) const
{
  DiagnosticSink sink;
  auto need = [&](const std::string& name) {
    if (!catalog.find(name))
      sink.add(where, path, "unknown profile '" + name + "'; valid: " + join(catalog.names()));
  };
  for (const auto& r : rules_) {
    for (const auto& [v, p] : r.match)
      need(p);
    for (const auto& [p, w] : r.draw)
      need(p);
  }
  sink.throw_if_any();
}

std::optional<ProfileMap::Hit> ProfileMap::map(const Job& job, std::uint64_t seed) const
{
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const Rule& r = rules_[i];
    if (r.kind == Kind::DRAW) {
      const double u = unit_draw(seed, "profile-draw", job.id) * r.cumulative.back();
      auto k = static_cast<std::size_t>(std::upper_bound(r.cumulative.begin(), r.cumulative.end(), u) -
                                        r.cumulative.begin());
      k = std::min(k, r.draw.size() - 1);
      return Hit{i, k, &r.draw[k].first};
    }
    const std::string& value = r.kind == Kind::CLASS ? job.trace_class : job.qos;
    for (std::size_t k = 0; k < r.match.size(); ++k)
      if (r.match[k].first == value) return Hit{i, k, &r.match[k].second};
  }
  return std::nullopt;
}

std::string ProfileMap::text() const
{
  if (rules_.empty()) return "none";
  std::string out;
  for (const auto& r : rules_) {
    if (!out.empty()) out += ';';
    out += r.kind == Kind::CLASS ? "class:" : r.kind == Kind::QOS ? "qos:" : "draw:";
    bool first = true;
    for (const auto& [v, p] : r.match) {
      out += (first ? "" : ",") + v + "=" + p;
      first = false;
    }
    for (const auto& [p, w] : r.draw) {
      out += (first ? "" : ",") + p + "=" + weight_text(w);
      first = false;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

ProfileMapper::ProfileMapper(std::unique_ptr<JobReader> inner, ProfileMap map, std::uint64_t seed)
    : inner_(std::move(inner)), map_(std::move(map)), seed_(seed)
{
  for (const auto& r : map_.rules())
    counts_.emplace_back(r.kind == ProfileMap::Kind::DRAW ? r.draw.size() : r.match.size(), 0);
}

std::optional<Job> ProfileMapper::next()
{
  auto job = inner_->next();
  if (!job) return job;
  if (!job->profile.empty()) {
    ++from_trace_;
    return job;
  }
  if (const auto hit = map_.map(*job, seed_)) {
    ++counts_[hit->rule][hit->entry];
    job->profile = *hit->profile;
  } else {
    ++unmapped_;
  }
  return job;
}

std::string ProfileMapper::describe() const
{
  std::ostringstream os;
  const std::string inner = inner_->describe();
  if (!inner.empty()) os << inner << "; ";
  os << "profiles: ";
  bool first = true;
  auto sep = [&] {
    if (!first) os << ", ";
    first = false;
  };
  if (from_trace_) {
    sep();
    os << "named by the trace (" << from_trace_ << ")";
  }
  const auto& rules = map_.rules();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    const char* kind = r.kind == ProfileMap::Kind::CLASS ? "class "
                       : r.kind == ProfileMap::Kind::QOS ? "qos "
                                                         : "";
    if (r.kind == ProfileMap::Kind::DRAW) {
      double total = r.cumulative.back();
      for (std::size_t k = 0; k < r.draw.size(); ++k) {
        sep();
        os << "draw(seed " << seed_ << ") " << r.draw[k].first
           << " p=" << weight_text(r.draw[k].second / total) << " (" << counts_[i][k] << ")";
      }
    } else {
      for (std::size_t k = 0; k < r.match.size(); ++k) {
        sep();
        os << kind << r.match[k].first << "->" << r.match[k].second << " (" << counts_[i][k] << ")";
      }
    }
  }
  if (rules.empty()) {
    sep();
    os << "no map";
  }
  sep();
  os << "unbound, left to workload.default_profile (" << unmapped_ << ")";
  return os.str();
}

} // namespace colocsim
