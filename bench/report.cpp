#include "report.hpp"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vkconv/error.hpp"

namespace vkconv::bench {

namespace {

using nlohmann::ordered_json;

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

// Enough digits to tell figures apart from tiny (a CPU device) to large (a GPU).
std::string figure(double v) {
    return fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : v >= 0.01 ? 3 : 5);
}

ordered_json problemJson(const ConvProblem& p) {
    return ordered_json{{"batch", p.batch},
                        {"in_channels", p.inChannels},
                        {"height", p.height},
                        {"width", p.width},
                        {"out_channels", p.outChannels},
                        {"kernel", {p.kernelH, p.kernelW}},
                        {"stride", {p.strideH, p.strideW}},
                        {"padding", {p.padH, p.padW}},
                        {"dilation", {p.dilationH, p.dilationW}},
                        {"groups", p.groups},
                        {"bias", p.bias},
                        {"input_format", p.inputFormat.str()},
                        {"output_format", p.outputFormat.str()}};
}

ordered_json resultJson(const ShapeResult& r) {
    const ConvProblem& p = r.shape.problem;
    ordered_json j{{"name", r.shape.name},
                   {"suite", r.shape.suite},
                   {"status", toString(r.status)},
                   {"message", r.message},
                   {"problem", problemJson(p)},
                   {"problem_str", p.str()},
                   {"latency_shape", r.shape.latency},
                   {"count", r.shape.count},
                   {"fits_in_cache_warning", r.fitsInCache},
                   {"input_bytes", r.inputBytes},
                   {"output_bytes", r.outputBytes},
                   {"weight_bytes", r.weightBytes},
                   {"min_bytes", p.minBytes()},
                   {"flops", p.flops()},
                   {"config", r.config},
                   {"describe", r.describe}};
    j["check"] = {{"images", r.checkedImages},
                  {"rel_error", r.relError},  // NaN/inf are written as null
                  {"bound", r.errorBound},
                  {"passed", r.status == Status::Ok}};
    if (r.status == Status::Ok) {
        const TimingSummary& t = r.timing;
        j["time_ms"] = {{"runs", t.runs}, {"median", t.medianMs}, {"min", t.minMs},
                        {"max", t.maxMs}, {"p10", t.p10Ms},      {"p90", t.p90Ms}};
        j["spread"] = t.spread;
        j["tflops"] = r.tflops;
        j["gbps"] = r.gbps;
        j["floor_ms"] = r.floorMs;
        j["x_floor"] = r.xFloor;
    }
    return j;
}

}  // namespace

void printTable(std::ostream& out, const std::vector<ShapeResult>& results) {
    const std::vector<std::string> header = {"name",   "problem", "config",  "median ms", "min ms",
                                             "max ms", "spread",  "TFLOP/s", "GB/s",      "x-floor"};
    std::vector<std::vector<std::string>> rows;
    for (const ShapeResult& r : results) {
        std::vector<std::string> row = {r.shape.name, shortProblem(r.shape.problem),
                                        r.config.empty() ? "-" : r.config};
        if (r.status == Status::Ok) {
            const TimingSummary& t = r.timing;
            const int d = t.medianMs < 1 ? 4 : 3;
            row.insert(row.end(), {fixed(t.medianMs, d), fixed(t.minMs, d), fixed(t.maxMs, d),
                                   fixed(t.spread, 3), figure(r.tflops), figure(r.gbps),
                                   r.xFloor > 0 ? figure(r.xFloor) : "-"});
        } else {
            row.push_back(std::string(toString(r.status)) + ": " + r.message);
        }
        rows.push_back(row);
    }
    std::vector<size_t> width(header.size());
    for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size() && (row.size() == header.size() || c + 1 < row.size()); ++c)
            width[c] = std::max(width[c], row[c].size());  // a status message spans the figures
    auto line = [&](const std::vector<std::string>& row) {
        for (size_t c = 0; c < row.size(); ++c) {
            const bool numeric = c >= 3 && c < header.size() && row.size() == header.size();
            if (c + 1 == row.size()) {  // the last cell is not padded (a status message may be long)
                out << (numeric ? std::string(width[c] - std::min(width[c], row[c].size()), ' ') : "")
                    << row[c];
            } else {
                out << (numeric ? std::right : std::left) << std::setw(int(width[c])) << row[c] << "  ";
            }
        }
        out << std::left << "\n";
    };
    line(header);
    for (const auto& row : rows) line(row);
}

void writeJson(const std::string& path, const RunInfo& run, const std::vector<ShapeResult>& results) {
    const DeviceInfo& d = run.device;
    ordered_json j;
    j["tool"] = "vkconv-bench";
    j["vkconv_commit"] = run.commit;
    j["date"] = run.date;
    j["command_line"] = run.commandLine;
    j["shapes_file"] = run.shapesFile;
    j["selection"] = run.selection;
    j["precision"] = run.precision;
    j["device"] = {{"name", d.name},
                   {"vendor", d.vendorName},
                   {"type", d.deviceType},
                   {"vendor_id", d.vendorId},
                   {"device_id", d.deviceId},
                   {"driver_name", d.driverName},
                   {"driver_info", d.driverInfo},
                   {"driver_version_raw", d.driverVersion},
                   {"api_version", std::to_string(VK_API_VERSION_MAJOR(d.apiVersion)) + "." +
                                       std::to_string(VK_API_VERSION_MINOR(d.apiVersion)) + "." +
                                       std::to_string(VK_API_VERSION_PATCH(d.apiVersion))},
                   {"subgroup_size", d.subgroupSize},
                   {"coopmat_khr", d.coopMatKhr}};
    const CopyBandwidth& c = run.copy;
    j["copy_bandwidth"] = {{"what", "vkCmdCopyBuffer device-local to device-local; GB/s counts bytes read + written"},
                           {"bytes", c.bytes},         {"iterations", c.iterations},
                           {"gbps", c.gbps},           {"peak_gbps", c.peakGbps},
                           {"median_ms", c.medianMs},  {"min_ms", c.minMs},
                           {"max_ms", c.maxMs},        {"spread", c.spread}};
    j["warmup"] = run.warmup;
    j["iterations"] = run.iterations;
    j["meets_run_minimums"] = run.meetsRunMinimums;
    j["definitions"] = {
        {"spread", "(p90 - p10) / median of the timed runs"},
        {"tflops", "problem flops (2*M*N*K, bias not counted) / median time"},
        {"gbps", "min_bytes (fp32 input + weights + bias + output, each once) / median time"},
        {"x_floor", "median time / (min_bytes / copy bandwidth)"},
        {"count", "how often the shape runs in one pass of its network (shapes.json; 1 if not given)"}};
    j["results"] = ordered_json::array();
    for (const ShapeResult& r : results) j["results"].push_back(resultJson(r));

    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp);
        f << j.dump(2) << "\n";
        if (!f) throw Error(Error::Kind::Io, "cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw Error(Error::Kind::Io, "cannot rename " + tmp + " to " + path);
}

}  // namespace vkconv::bench
