// `fattn roofline`: where each implementation sits against the machine's limits. For one
// problem: FLOPs, the compulsory bytes, the bytes the algorithm moves through L2 and DRAM and
// the part of them charged to DRAM (cli_traffic.hpp), the arithmetic intensity, the achieved FLOP/s and
// bytes/s — against a peak FLOP rate and a memory bandwidth measured on the spot. Writes a table and an SVG
// roofline plot.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "cli_ceilings.hpp"
#include "cli_device.hpp"
#include "cli_format.hpp"
#include "cli_problem.hpp"
#include "cli_svg.hpp"
#include "cli_timing.hpp"
#include "cli_traffic.hpp"
#include "command.hpp"

namespace fattn::cli {
namespace {

constexpr std::uint64_t kInputSeed = 20261122;
constexpr const char* kDefaultSvg = "fattn-roofline.svg";
constexpr double kMillisecondsPerSecond = 1e3;
constexpr double kGiga = 1e9, kTera = 1e12;

struct RooflineRow {
  Backend requested = Backend::automatic;
  Backend ran = Backend::automatic;
  Status status;
  double median_ms = 0;
  double flops = 0;
  Traffic traffic;
  double achieved_flops = 0;      // FLOP/s
  double achieved_bandwidth = 0;  // DRAM bytes (the model's) / s
  double intensity = 0;           // FLOP / DRAM byte (the model's)
  double minimal_intensity = 0;   // FLOP / compulsory byte
  double attainable = 0;          // min(peak, intensity × bandwidth)
};

RooflineRow measure(const ProblemSpec& spec, Backend backend, AttentionBuffers& buffers,
                    const TimingSettings& timing, const Ceilings& ceilings,
                    const std::optional<FlashTiles>& tiles_override) {
  RooflineRow r;
  r.requested = backend;
  const Timing t = time_workload(spec, backend, buffers, timing);
  r.status = t.status;
  if (!r.status.ok()) return r;
  r.ran = t.stats.backend;
  r.median_ms = t.median_ms;
  r.flops = attention_flops(spec, spec.workload);
  r.traffic = attention_traffic(spec, r.ran, tiles_override.value_or(default_flash_tiles(r.ran)));
  const double seconds = r.median_ms / kMillisecondsPerSecond;
  r.achieved_flops = seconds > 0 ? r.flops / seconds : 0;
  r.achieved_bandwidth = seconds > 0 ? r.traffic.dram_bytes / seconds : 0;
  r.intensity = r.traffic.dram_bytes > 0 ? r.flops / r.traffic.dram_bytes : 0;
  r.minimal_intensity = r.traffic.minimal_bytes > 0 ? r.flops / r.traffic.minimal_bytes : 0;
  r.attainable = std::min(ceilings.peak_flops, r.intensity * ceilings.bandwidth);
  return r;
}

std::string json_report(const ProblemSpec& spec, const Ceilings& c, const std::vector<RooflineRow>& rows,
                        const std::string& svg_path) {
  JsonWriter json;
  json.begin_object().key("fattn_version").value(version()).key("command").value("roofline");
  json.key("problem").value(spec.summary()).key("svg").value(svg_path);
  json.key("ceilings")
      .begin_object()
      .key("peak_flops")
      .value(c.peak_flops)
      .key("peak_method")
      .value(c.peak_method);
  json.key("bandwidth_bytes_per_second").value(c.bandwidth).key("bandwidth_method").value(c.bandwidth_method);
  json.key("ridge_intensity").value(c.peak_flops / c.bandwidth).end_object();
  json.key("implementations").begin_array();
  for (const RooflineRow& r : rows) {
    json.begin_object().key("backend").value(to_string(r.requested)).key("ok").value(r.status.ok());
    if (!r.status.ok()) {
      json.key("message").value(r.status.message()).end_object();
      continue;
    }
    json.key("ran").value(to_string(r.ran)).key("median_ms").value(r.median_ms).key("flops").value(r.flops);
    json.key("minimal_bytes").value(r.traffic.minimal_bytes).key("moved_bytes").value(r.traffic.moved_bytes);
    json.key("dram_bytes").value(r.traffic.dram_bytes);
    json.key("traffic_model").value(r.traffic.model);
    json.key("intensity").value(r.intensity).key("minimal_intensity").value(r.minimal_intensity);
    json.key("achieved_flops_per_second").value(r.achieved_flops);
    json.key("achieved_bytes_per_second").value(r.achieved_bandwidth);
    json.key("attainable_flops_per_second").value(r.attainable).end_object();
  }
  json.end_array().end_object();
  return json.str();
}

void print_report(const ProblemSpec& spec, const Ceilings& c, const std::vector<RooflineRow>& rows,
                  const std::string& svg_path) {
  const bool on_gpu = spec.device.type == DeviceType::cuda;
  const double flop_unit = on_gpu ? kTera : kGiga;
  const char* flop_name = on_gpu ? "TFLOP/s" : "GFLOP/s";
  const char* byte_name = on_gpu ? "TB/s" : "GB/s";
  std::printf("fattn %s roofline: %s\n", version(), spec.summary().c_str());
  if (on_gpu) std::printf("device: %s\n", cuda_device_description(spec.device.index).c_str());
  std::printf(
      "ceilings, measured now: peak %.2f %s (%s); bandwidth %.2f %s (%s); ridge at %.1f FLOP/byte\n\n",
      c.peak_flops / flop_unit, flop_name, c.peak_method.c_str(), c.bandwidth / flop_unit, byte_name,
      c.bandwidth_method.c_str(), c.peak_flops / c.bandwidth);
  Table table({"implementation", "time", "FLOPs", "compulsory", "L2+DRAM", "DRAM", "FLOP/B", flop_name,
               byte_name, "of roof", "bound"});
  for (const RooflineRow& r : rows) {
    if (!r.status.ok()) {
      table.add_row({to_string(r.requested), "failed"});
      continue;
    }
    const bool memory_bound = r.intensity * c.bandwidth < c.peak_flops;
    table.add_row({to_string(r.ran), format_milliseconds(r.median_ms),
                   format_fixed(r.flops / kGiga, 1) + " G", format_bytes(r.traffic.minimal_bytes),
                   format_bytes(r.traffic.moved_bytes), format_bytes(r.traffic.dram_bytes),
                   format_fixed(r.intensity, 1), format_fixed(r.achieved_flops / flop_unit, on_gpu ? 1 : 1),
                   format_fixed(r.achieved_bandwidth / flop_unit, 2),
                   format_fixed(100.0 * r.achieved_flops / r.attainable, 0) + " %",
                   memory_bound ? "memory" : "compute"});
  }
  table.print(stdout);
  std::printf("\n");
  for (const RooflineRow& r : rows) {
    if (r.status.ok()) {
      std::printf("%-14s traffic: %s\n", to_string(r.ran), r.traffic.model.c_str());
    } else {
      std::printf("%s: %s: %s\n", to_string(r.requested), to_string(r.status.code()),
                  r.status.message().c_str());
    }
  }
  std::printf(
      "L2+DRAM = the tiling's traffic; DRAM = the part charged to main memory (flash's re-reads mostly hit\n"
      "the cache); FLOP/B, %s, \"of roof\" and \"bound\" use DRAM: of roof = achieved / min(peak, FLOP/B × "
      "bandwidth).\n",
      byte_name);
  std::printf("wrote %s\n", svg_path.c_str());
}

int roofline_main(const std::vector<std::string>& args) {
  ArgParser parser("roofline",
                   "Where flash and standard attention sit against this machine's limits: FLOPs, compulsory\n"
                   "and moved bytes, arithmetic intensity, achieved FLOP/s and bytes/s, against a peak and\n"
                   "a bandwidth measured now. Writes a table and an SVG roofline plot.");
  add_problem_options(parser);
  parser.add_option("backend", "NAMES", "comma-separated: flash, standard or backend names",
                    "flash,standard");
  parser.add_option("svg", "FILE", "where to write the plot", kDefaultSvg);
  parser.add_option("query-tile", "ROWS", "flash model: query rows per pass over K/V", "the backend's tile");
  parser.add_option("key-tile", "COLS", "flash model: keys per pass over Q/dO (backward)",
                    "the backend's tile");
  parser.add_option("repeats", "N", "timed runs; the median is used", "3 to 10, about 5 s");
  parser.add_flag("json", "print JSON instead of a table");
  return run_reporting_errors("roofline", [&]() -> int {
    if (!parser.parse(args)) return 0;
    ProblemSpec defaults;
    defaults.device = default_device();
    if (parser.has("device")) defaults.device = read_problem_options(parser, defaults).device;
    const bool on_gpu = defaults.device.type == DeviceType::cuda;
    if (on_gpu) defaults.dtype = DType::bfloat16;
    const ProblemSpec spec = read_problem_options(parser, defaults);
    std::optional<FlashTiles> tiles;
    if (parser.has("query-tile") || parser.has("key-tile")) {
      const FlashTiles base = default_flash_tiles(on_gpu ? Backend::cuda_sm90 : Backend::cpu_flash);
      tiles = FlashTiles{parser.int_value("query-tile", base.query_rows),
                         parser.int_value("key-tile", base.key_columns)};
      if (tiles->query_rows <= 0 || tiles->key_columns <= 0)
        throw UsageError("--query-tile and --key-tile must be > 0");
    }
    const Backend standard = on_gpu ? Backend::cuda_standard : Backend::cpu_standard;
    const Backend flash = flash_backend_for(spec);
    std::vector<Backend> backends;
    for (const std::string& name : parser.list_value("backend")) {
      if (name == "flash")
        backends.push_back(flash);
      else if (name == "standard")
        backends.push_back(standard);
      else if (auto b = backend_from_string(name))
        backends.push_back(*b);
      else
        throw UsageError("--backend: unknown backend '" + name + "'");
    }
    if (backends.empty()) backends = {flash, standard};
    TimingSettings timing;
    timing.repeats = static_cast<int>(parser.int_value("repeats", 0));
    if (timing.repeats < 0) throw UsageError("--repeats must be >= 0");

    const int threads = spec.threads > 0 ? spec.threads : omp_get_max_threads();
    const Ceilings ceilings =
        on_gpu ? measure_gpu_ceilings(spec.dtype, spec.device.index) : measure_cpu_ceilings(threads);
    AttentionBuffers buffers(spec, spec.workload != Workload::forward, kInputSeed);
    std::vector<RooflineRow> rows;
    for (Backend b : backends) rows.push_back(measure(spec, b, buffers, timing, ceilings, tiles));

    std::vector<RooflinePoint> points;
    for (const RooflineRow& r : rows) {
      if (r.status.ok())
        points.push_back({to_string(r.ran), r.intensity, r.minimal_intensity, r.achieved_flops});
    }
    const double unit = on_gpu ? kTera : kGiga;
    const std::string svg_path = parser.string_value("svg", kDefaultSvg);
    const std::string svg = roofline_svg(
        "fattn roofline: " + spec.summary(), ceilings.peak_flops, ceilings.bandwidth,
        "peak " + format_fixed(ceilings.peak_flops / unit, 1) + (on_gpu ? " TFLOP/s" : " GFLOP/s"),
        format_fixed(ceilings.bandwidth / unit, 2) + (on_gpu ? " TB/s" : " GB/s"), points);
    write_text_file(svg_path, svg);
    if (parser.has("json")) {
      std::printf("%s\n", json_report(spec, ceilings, rows, svg_path).c_str());
    } else {
      print_report(spec, ceilings, rows, svg_path);
    }
    const bool ok = std::all_of(rows.begin(), rows.end(), [](const RooflineRow& r) { return r.status.ok(); });
    return ok ? 0 : 1;
  });
}

}  // namespace

FATTN_CLI_COMMAND("roofline",
                  "FLOPs, bytes moved and intensity against measured peak and bandwidth; SVG plot",
                  roofline_main);

}  // namespace fattn::cli
