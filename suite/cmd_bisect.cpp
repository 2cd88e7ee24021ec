// recallbench bisect --good REV --bad REV [--battery smoke] [--config SEL]: names the first commit at which
// a regression appeared, by building and running the commits between (docs/tracking.md, "Bisect").
//
// Each probed commit is checked out in its own git worktree under WORK/src/ and built there with ccache
// (CCACHE_BASEDIR = WORK/src, so the worktrees share one cache: after the first build a probe recompiles only
// what differs); its own `recallbench run` trains the battery's seeds of the configs that regressed, into
// WORK/runs/<commit>/look<k>. Both ends run first; the config that regressed most significantly between them
// (paired sign test, judge/recall_gate.h) is the one probed (--all-configs: every regressed one; --config: the
// ones it names).
// A probe X is compared with the good end (X worse: bad) and with the bad end (bad worse than X: good), on
// the same seeds (paired; runs are deterministic per seed); while neither is significant the next block of
// seeds is added (Pinpoint's habit), up to --max-seeds per config. Error rate: the sequential paired rule
// spends each comparison's alpha over its looks (Pocock), and every comparison of the whole bisect gets
// alpha / (2 × (the most probes a binary search over the range can need + 1)) (Bonferroni), so the
// chance of any wrong call is at most --alpha. A probe that stays undecided at the cap stops the search:
// the answer is then a range, not a guess.
// Every run lands in the history database (--db; default as `history`), and the results, builds and
// decisions stay in WORK: the same command after an interruption resumes where it stopped, without
// retraining. A look the history already holds (every probed config of that commit, every seed of the look:
// runs are deterministic per seed, so a CI that records each commit has already run the ends and often the
// probes) is read from it instead of building and training (--no-reuse: train everything).
// WORK/bisect.json holds the outcome.
// Exit codes: 0 a first bad commit named (or nothing to bisect: no regression between the ends), 3 the range
// could not be narrowed to one commit (undecided probe or a commit that does not build), 2 bad input, 4
// internal error, 130 interrupted.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "history/analysis.h"
#include "history/git.h"
#include "history/history.h"
#include "reports/gate_text.h"
#include "reports/results.h"
#include "suite/cli.h"

namespace rb {
namespace {

namespace fs = std::filesystem;

struct BisectOptions {
  std::string good, bad, battery = "smoke", config, repo = ".", work = ".recallbench/bisect", db;
  double alpha = 0.05;
  int64_t max_seeds = 40;
  int jobs = 0;
  bool no_record = false;
  bool no_reuse = false;
  bool all_configs = false;
};

struct Interrupted {
  int code;
};
struct BuildFailed {
  std::string log;
};

class Bisector {
 public:
  explicit Bisector(const BisectOptions& o) : o_(o) {
    work_ = fs::absolute(o.work);
    repo_ = fs::absolute(o.repo).string();
    fs::create_directories(work_ / "logs");
    fs::create_directories(work_ / "src");
  }

  int run() {
    path_ = history::first_parent_path(repo_, o_.good, o_.bad);
    RB_CHECK_INPUT(!path_.empty(), "bisect: --good and --bad are the same commit");
    good_ = history::resolve_commit(repo_, o_.good);
    read_plan();
    const auto n = static_cast<int64_t>(path_.size());
    const int64_t probes = static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(n) + 1.0)));
    alpha_each_ = o_.alpha / (2.0 * static_cast<double>(probes + 1));
    fmt::print("bisect: {} commits after {} up to {} ({}); at most {} probes; each comparison at alpha {:.4g}\n", n,
               short7(good_.hash), short7(path_.back().hash), path_.back().subject, probes, alpha_each_);

    // Both ends, and the configs that regressed between them.
    std::vector<std::string> selected;
    try {
      selected = select_configs();
    } catch (const BuildFailed& f) {
      throw UsageError("bisect: an end of the range does not build", "see " + f.log);
    }
    if (selected.empty()) {
      fmt::print("bisect: no config regressed between {} and {} at {} seeds per config: nothing to bisect\n",
                 short7(good_.hash), short7(path_.back().hash), max_looks_ * per_look_);
      write_outcome("no regression", "", {});
      return kExitOk;
    }
    configs_ = selected;
    for (const auto& k : configs_) fmt::print("bisect: probing config {}\n", k);

    int64_t lo = -1, hi = n - 1;  // path_[lo] (or good) is good, path_[hi] is bad
    json probes_doc = json::array();
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      const auto& x = path_[static_cast<size_t>(mid)];
      const Decision d = classify(x.hash);
      probes_doc.push_back({{"commit", x.hash}, {"subject", x.subject}, {"verdict", d.verdict}, {"seeds", d.seeds},
                            {"reason", d.reason}});
      fmt::print("bisect: {} {:<7} ({} seeds per config) {} — {}\n", short7(x.hash), d.verdict, d.seeds, x.subject,
                 d.reason);
      if (d.verdict == "bad") hi = mid;
      else if (d.verdict == "good") lo = mid;
      else {
        const std::string first = path_[static_cast<size_t>(lo + 1)].hash, last = path_[static_cast<size_t>(hi)].hash;
        fmt::print("bisect: stopped: {} is {}; the regression is in {}..{} ({} commits)\n", short7(x.hash), d.verdict,
                   short7(first), short7(last), hi - lo);
        write_outcome("range", first + ".." + last, probes_doc);
        return kExitInconclusive;
      }
    }
    const auto& culprit = path_[static_cast<size_t>(hi)];
    const std::string before = lo >= 0 ? path_[static_cast<size_t>(lo)].hash : good_.hash;
    fmt::print("\nbisect: first bad commit {} {}\n  {}\n", culprit.hash, culprit.subject, evidence(before, culprit.hash));
    fmt::print("bisect: {} commits built, {} battery runs (each one look: a block of seeds of the probed configs), "
               "{} looks read from the history; work: {}\n",
               built_.size(), battery_runs_, history_looks_, work_.string());
    write_outcome("first bad commit", culprit.hash, probes_doc);
    return kExitOk;
  }

 private:
  struct Decision {
    std::string verdict;  // good, bad, undecided
    int64_t seeds = 0;
    std::string reason;
  };

  static std::string short7(const std::string& h) { return h.substr(0, 7); }

  // Builds `hash` in its worktree (once; later calls are ninja no-ops) and returns its recallbench.
  std::string binary(const std::string& hash) {
    const fs::path src = work_ / "src" / hash.substr(0, 12);
    const std::string log = (work_ / "logs" / (hash.substr(0, 12) + "-build.log")).string();
    if (!fs::exists(src / ".git")) {
      bool ok = false;
      history::git(repo_, {"worktree", "add", "--detach", "--force", src.string(), hash}, &ok);
      if (!ok) throw UsageError("bisect: cannot create a worktree of " + short7(hash) + " at " + src.string());
    }
    const fs::path build = src / "build";
    const std::vector<std::pair<std::string, std::string>> env = {{"CCACHE_BASEDIR", (work_ / "src").string()},
                                                                  {"CCACHE_NOHASHDIR", "true"}};
    if (!built_.count(hash)) fmt::print("bisect: building {} (log {})\n", short7(hash), log);
    std::fflush(stdout);
    if (!fs::exists(build / "build.ninja")) {
      const int rc = history::run_logged({"cmake", "-S", src.string(), "-B", build.string(), "-G", "Ninja",
                                          "-DCMAKE_BUILD_TYPE=Release", "-DRECALLBENCH_BUILD_TESTS=OFF",
                                          "-DRECALLBENCH_CUDA=OFF"},
                                         "", env, log);
      if (rc != 0) return "";
    }
    const int rc = history::run_logged({"cmake", "--build", build.string(), "--target", "recallbench"}, "", env, log);
    if (rc == 130 || rc == 128 + 2) throw Interrupted{130};
    if (rc != 0) return "";
    built_.insert(hash);
    return (build / "recallbench").string();
  }

  // The runs of `hash` at look k (seeds offset by (k − 1) × per-look), all configs when `configs_` is empty.
  fs::path runs(const std::string& hash, int64_t look) {
    const fs::path dir = work_ / "runs" / hash.substr(0, 12) / fmt::format("look{}", look);
    if (fs::exists(dir / "aggregate.json")) return dir;
    const std::string bin = binary(hash);
    if (bin.empty()) throw BuildFailed{(work_ / "logs" / (hash.substr(0, 12) + "-build.log")).string()};
    std::vector<std::string> argv = {bin, "run", "--battery", o_.battery, "--out", dir.string(), "--seed-offset",
                                     std::to_string((look - 1) * per_look_)};
    if (!configs_.empty()) {
      std::string joined;
      for (const auto& k : configs_) joined += (joined.empty() ? "" : ",") + k;
      argv.insert(argv.end(), {"--config", joined});
    }
    if (o_.jobs > 0) argv.insert(argv.end(), {"--jobs", std::to_string(o_.jobs)});
    const std::string log = (work_ / "logs" / (hash.substr(0, 12) + fmt::format("-look{}.log", look))).string();
    fmt::print("bisect: running {} look {} (log {})\n", short7(hash), look, log);
    std::fflush(stdout);
    const int rc = history::run_logged(argv, "", {}, log);
    if (rc == 130 || rc == 128 + 2 || rc == 128 + 15) throw Interrupted{130};
    if (rc != 0) throw UsageError(fmt::format("bisect: the runs of {} failed (exit {}); see {}", short7(hash), rc, log));
    ++battery_runs_;
    record(hash, dir);
    return dir;
  }

  // Look k of `hash`: its runs in WORK when trained before, else the history's when it holds them, else
  // trained now.
  const std::vector<rb::Config>& look_of(const std::string& hash, int64_t look) {
    const auto id = std::make_pair(hash, look);
    if (auto it = looks_.find(id); it != looks_.end()) return it->second;
    const fs::path dir = work_ / "runs" / hash.substr(0, 12) / fmt::format("look{}", look);
    std::optional<std::vector<rb::Config>> recorded;
    if (!fs::exists(dir / "aggregate.json")) recorded = from_history(hash, look);
    if (recorded) {
      ++history_looks_;
      fmt::print("bisect: {} look {}: {} config(s) from the history (not retrained)\n", short7(hash), look,
                 recorded->size());
      return looks_[id] = std::move(*recorded);
    }
    std::vector<rb::Config> configs = reports::load_results(runs(hash, look).string()).configs;
    if (look == 1 && per_look_ == 0)
      for (const auto& c : configs) per_look_ = std::max<int64_t>(per_look_, static_cast<int64_t>(c.seeds.size()));
    return looks_[id] = std::move(configs);
  }

  // The battery as this build plans it (`recallbench-torch plan --json`): its name, configs and seeds, which the
  // history's runs are matched against. Left empty (nothing reused) when it cannot be planned here.
  void read_plan() {
    if (o_.no_reuse) return;
    const fs::path out = work_ / "logs" / "plan.json";
    std::error_code ec;
    fs::remove(out, ec);
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    const std::string torch_side = ec ? "recallbench-torch" : (self.parent_path() / "recallbench-torch").string();
    if (history::run_logged({torch_side, "plan", "--battery", o_.battery, "--json"}, "", {}, out.string()) != 0) return;
    // The log holds the plan after any warnings the planner printed on stderr.
    const std::string text = read_regular_file(out, 256u << 20);
    size_t start = text.rfind('{', 0) == 0 ? 0 : text.find("\n{");
    if (start == std::string::npos) return;
    if (start > 0) ++start;
    try {
      const json plan = json::parse(text.substr(start));
      plan_battery_ = plan.at("battery").at("name").get<std::string>();
      std::map<std::string, std::vector<int64_t>> seeds;
      for (const auto& r : plan.at("runs")) {
        const std::string key = r.at("key").get<std::string>();
        seeds[key.substr(0, key.rfind("/seed:"))].push_back(r.at("spec").at("seed").get<int64_t>());
      }
      for (auto& [key, list] : seeds) {
        std::sort(list.begin(), list.end());
        plan_keys_.push_back(key);
        plan_seeds_ = list;  // a battery gives every config the same seeds
      }
      per_look_ = static_cast<int64_t>(plan_seeds_.size());
    } catch (const json::exception&) {
      plan_keys_.clear();
      plan_seeds_.clear();
    }
  }

  // Look k of `hash` from the history, when it holds every seed of that look for every config asked (the
  // probed ones, or the whole battery before any is chosen) under the same battery.
  std::optional<std::vector<rb::Config>> from_history(const std::string& hash, int64_t look) {
    if (o_.no_reuse || plan_seeds_.empty()) return std::nullopt;
    const std::string db = history::resolve_database(o_.db);
    if (!fs::exists(db)) return std::nullopt;
    const history::History h(db, history::History::Mode::kRead);
    if (h.battery() != plan_battery_) return std::nullopt;
    const std::vector<std::string>& keys = configs_.empty() ? plan_keys_ : configs_;
    std::vector<rb::Config> configs = history::commit_configs(h, hash, keys);
    if (configs.size() != keys.size()) return std::nullopt;
    const int64_t offset = (look - 1) * per_look_;
    for (auto& c : configs) {
      std::map<int64_t, rb::SeedOutcome> by_seed;
      for (auto& s : c.seeds) by_seed.emplace(s.seed, std::move(s));
      c.seeds.clear();
      for (const int64_t seed : plan_seeds_) {
        const auto it = by_seed.find(seed + offset);
        if (it == by_seed.end()) return std::nullopt;
        c.seeds.push_back(std::move(it->second));
      }
    }
    return configs;
  }

  void record(const std::string& hash, const fs::path& dir) {
    if (o_.no_record) return;
    const rb::RunSet set = reports::load_results(dir.string());
    history::CommitInfo c = history::resolve_commit(repo_, hash);
    c.context = set.context;
    history::History h(history::resolve_database(o_.db), history::History::Mode::kWrite);
    h.ingest(history::batch_from_runs(set, c));
  }

  // The configs of `hash` over looks 1..k, restricted to configs_ (when set).
  std::vector<rb::Config> load(const std::string& hash, int64_t looks) {
    std::map<std::string, rb::Config> by_key;
    for (int64_t k = 1; k <= looks; ++k) {
      for (const auto& c : look_of(hash, k)) {
        if (!configs_.empty() && std::find(configs_.begin(), configs_.end(), c.key) == configs_.end()) continue;
        auto [it, fresh] = by_key.try_emplace(c.key, c);
        if (!fresh) it->second.seeds.insert(it->second.seeds.end(), c.seeds.begin(), c.seeds.end());
      }
    }
    std::vector<rb::Config> out;
    for (auto& [k, c] : by_key) {
      std::sort(c.seeds.begin(), c.seeds.end(), [](const auto& a, const auto& b) { return a.seed < b.seed; });
      out.push_back(std::move(c));
    }
    return out;
  }

  judge::GateOptions options() const {
    judge::GateOptions g;
    g.alpha = alpha_each_;
    g.stage_seeds = per_look_;
    g.max_stages = max_looks_;
    return g;
  }

  std::vector<std::string> select_configs() {
    const std::string bad = path_.back().hash;
    // Look 1 of both ends over every config (or the --config ones), to learn the seeds per look.
    auto g = load(good_.hash, 1);
    auto b = load(bad, 1);
    max_looks_ = std::max<int64_t>(1, o_.max_seeds / std::max<int64_t>(per_look_, 1));
    std::vector<std::string> chosen;
    for (const auto& c : b)
      if (!o_.config.empty() && (c.key.find(o_.config) != std::string::npos || c.cell.find(o_.config) != std::string::npos))
        chosen.push_back(c.key);
    if (!o_.config.empty()) {
      RB_CHECK_INPUT(!chosen.empty(), "bisect: --config " + o_.config + " matches no config of battery " + o_.battery);
      return chosen;
    }
    for (int64_t look = 1; look <= max_looks_; ++look) {
      if (look > 1) {
        g = load(good_.hash, look);
        b = load(bad, look);
      }
      const auto cmp = judge::compare(g, b, options());
      bool open = false;
      chosen.clear();
      std::vector<std::pair<double, std::string>> regressed;
      for (const auto& cc : cmp.configs) {
        if (cc.verdict == judge::Verdict::kRegression) regressed.emplace_back(cc.primary.p, cc.key);
        open |= cc.primary_open();
      }
      std::sort(regressed.begin(), regressed.end());
      for (const auto& [p, key] : regressed) chosen.push_back(key);
      // One config (the most significant) unless asked for all: each probe's comparisons then form a family
      // of one, so 10 seed pairs can decide at the first look.
      if (!o_.all_configs && chosen.size() > 1) {
        for (size_t i = 1; i < chosen.size(); ++i) fmt::print("bisect: also regressed (not probed): {}\n", chosen[i]);
        chosen.resize(1);
      }
      if (!chosen.empty() || !open) break;
      configs_.clear();
      for (const auto& cc : cmp.configs)
        if (cc.primary_open()) configs_.push_back(cc.key);
    }
    return chosen;
  }

  Decision classify(const std::string& hash) {
    try {
      return classify_built(hash);
    } catch (const BuildFailed& f) {
      return {"unbuildable", 0, "the commit does not build (see " + f.log + ")"};
    }
  }

  Decision classify_built(const std::string& hash) {
    Decision d;
    for (int64_t look = 1; look <= max_looks_; ++look) {
      const auto g = load(good_.hash, look), x = load(hash, look), b = load(path_.back().hash, look);
      d.seeds = look * per_look_;
      const auto vs_good = judge::compare(g, x, options());
      const auto vs_bad = judge::compare(x, b, options());
      for (const auto& cc : vs_good.configs)
        if (cc.verdict == judge::Verdict::kRegression) {
          d.verdict = "bad";
          d.reason = "worse than the good end: " + reports::gate_reason(cc, vs_good.options);
          return d;
        }
      for (const auto& cc : vs_bad.configs)
        if (cc.verdict == judge::Verdict::kRegression) {
          d.verdict = "good";
          d.reason = "the bad end is worse than it: " + reports::gate_reason(cc, vs_bad.options);
          return d;
        }
      d.reason = "neither comparison significant";
    }
    d.verdict = "undecided";
    d.reason += fmt::format(" at the cap of {} seeds per config", d.seeds);
    return d;
  }

  std::string evidence(const std::string& before, const std::string& culprit) {
    std::string out;
    int64_t looks = 1;
    for (; looks <= max_looks_; ++looks) {
      const auto cmp = judge::compare(load(before, looks), load(culprit, looks), options());
      bool reg = false;
      for (const auto& cc : cmp.configs) reg |= cc.verdict == judge::Verdict::kRegression;
      if (reg || looks == max_looks_) {
        for (const auto& cc : cmp.configs)
          out += fmt::format("{} vs its parent {}: {} — {}\n  ", cc.key, short7(before),
                             judge::verdict_name(cc.verdict), reports::gate_reason(cc, cmp.options));
        break;
      }
    }
    return out;
  }

  void write_outcome(const std::string& outcome, const std::string& commit, const json& probes) {
    write_json_atomic(work_ / "bisect.json",
                      {{"kind", "recallbench.bisect"}, {"outcome", outcome}, {"commit", commit},
                       {"good", good_.hash}, {"bad", path_.back().hash}, {"battery", o_.battery},
                       {"configs", configs_}, {"alpha", o_.alpha}, {"alpha_per_comparison", alpha_each_},
                       {"seeds_per_look", per_look_}, {"max_looks", max_looks_}, {"probes", probes},
                       {"builds", built_.size()}, {"battery_runs", battery_runs_},
                       {"looks_from_history", history_looks_}});
  }

  BisectOptions o_;
  fs::path work_;
  std::string repo_;
  history::CommitInfo good_;
  std::vector<history::CommitInfo> path_;
  std::vector<std::string> configs_;
  int64_t per_look_ = 0, max_looks_ = 1, battery_runs_ = 0, history_looks_ = 0;
  std::map<std::pair<std::string, int64_t>, std::vector<rb::Config>> looks_;  // (commit, look) → its configs
  std::string plan_battery_;                    // the battery's name, as the history records it
  std::vector<std::string> plan_keys_;          // its config keys
  std::vector<int64_t> plan_seeds_;             // its seeds (every config has the same)
  std::set<std::string> built_;  // commits built (each once; later calls are no-op rebuilds)
  double alpha_each_ = 0.05;
};

CommandFn add_bisect_command(CLI::App& s) {
  auto o = std::make_shared<BisectOptions>();
  s.add_option("--good", o->good, "A commit without the regression")->required();
  s.add_option("--bad", o->bad, "A later commit with it (its first-parent history contains --good)")->required();
  s.add_option("--battery", o->battery, "The battery to run at each probe (default smoke)");
  s.add_option("--config", o->config,
               "Probe only the configs whose key or cell contains this (default: those that regressed between the ends)");
  s.add_option("--repo", o->repo, "The git repository (default: the current directory)");
  s.add_option("--work", o->work, "Worktrees, builds, runs and logs; reused when resuming (default .recallbench/bisect)");
  s.add_option("--db", o->db, "History database every probe's runs go into (default as `recallbench history`)");
  s.add_flag("--no-record", o->no_record, "Do not record the probes' runs into the history");
  s.add_flag("--no-reuse", o->no_reuse,
             "Build and train every probe even when the history already holds its runs (default: a look whose runs "
             "the history holds, same battery, every seed, is read from it)");
  s.add_flag("--all-configs", o->all_configs,
             "Probe every config that regressed between the ends (default: the most significant one, which lets a "
             "probe decide on fewer seeds)");
  s.add_option("--alpha", o->alpha, "Chance of any wrong call over the whole bisect (default 0.05)")
      ->check(CLI::Range(1e-6, 0.5));
  s.add_option("--max-seeds", o->max_seeds, "Seeds per config a probe may use before it is undecided (default 40)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  s.add_option("--jobs,-j", o->jobs, "Worker processes of each probe's runs (default: the number of cores)")
      ->check(CLI::Range(1, 1024));
  return [o]() {
    try {
      return Bisector(*o).run();
    } catch (const Interrupted& i) {
      fmt::print(stderr, "bisect: interrupted; run the same command again to resume (nothing is retrained)\n");
      return i.code;
    }
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, bisect,
            CommandEntry{"bisect", "Find the first bad commit between two commits: builds and runs the probes, adding "
                                   "seeds while a probe is undecided",
                         &add_bisect_command});

}  // namespace rb
