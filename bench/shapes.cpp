// Reading bench/shapes.json. The format is described in the file's own "comment".
#include "shapes.hpp"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/json_limits.hpp"
#include "vkconv/error.hpp"

#ifndef VKCONV_BENCH_SHAPES_SOURCE
#define VKCONV_BENCH_SHAPES_SOURCE ""
#endif

namespace vkconv::bench {

namespace {

using nlohmann::json;

bool fileExists(const std::string& path) { return !path.empty() && std::ifstream(path).good(); }

// From /proc/self/exe, else (no /proc, e.g. in a bare chroot) from argv[0].
std::string executableDir(const std::string& argv0) {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    const std::string exe = n > 0 ? std::string(buf, size_t(n)) : argv0;
    const size_t slash = exe.rfind('/');
    return slash == std::string::npos ? "" : exe.substr(0, slash);
}

// An int, or [h, w]; `fallback` when absent.
std::pair<int64_t, int64_t> readPair(const json& shape, const std::string& where, const char* field,
                                     int64_t fallback) {
    if (!shape.contains(field)) return {fallback, fallback};
    const json& v = shape.at(field);
    if (v.is_number_integer()) return {v.get<int64_t>(), v.get<int64_t>()};
    if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer())
        return {v[0].get<int64_t>(), v[1].get<int64_t>()};
    throw invalidArgument(where + "." + field, detail::jsonExcerpt(v), "expected an integer or [h, w]");
}

int64_t readInt(const json& shape, const std::string& where, const char* field) {
    if (!shape.contains(field) || !shape.at(field).is_number_integer())
        throw invalidArgument(where + "." + field, shape.contains(field) ? detail::jsonExcerpt(shape.at(field)) : "missing",
                              "expected an integer");
    return shape.at(field).get<int64_t>();
}

BenchShape readShape(const json& s, const std::string& suite, int64_t cpuBatch) {
    BenchShape shape;
    shape.suite = suite;
    if (!s.contains("name") || !s.at("name").is_string())
        throw invalidArgument("suites." + suite + " shape", detail::jsonExcerpt(s), "has no \"name\"");
    shape.name = s.at("name").get<std::string>();
    const std::string where = shape.name;
    ConvProblem& p = shape.problem;
    p.batch = readInt(s, where, "batch");
    p.inChannels = readInt(s, where, "in_channels");
    p.height = readInt(s, where, "height");
    p.width = readInt(s, where, "width");
    p.outChannels = readInt(s, where, "out_channels");
    std::tie(p.kernelH, p.kernelW) = readPair(s, where, "kernel", -1);
    if (p.kernelH < 0) throw invalidArgument(where + ".kernel", "missing", "expected an integer or [h, w]");
    std::tie(p.strideH, p.strideW) = readPair(s, where, "stride", 1);
    std::tie(p.padH, p.padW) = readPair(s, where, "padding", 0);
    std::tie(p.dilationH, p.dilationW) = readPair(s, where, "dilation", 1);
    p.groups = s.contains("groups") ? readInt(s, where, "groups") : 1;
    p.bias = s.value("bias", true);
    shape.cpuBatch = s.contains("cpu_batch") ? readInt(s, where, "cpu_batch") : cpuBatch;
    shape.latency = s.value("latency", false);
    shape.count = s.contains("count") ? readInt(s, where, "count") : 1;
    if (shape.count < 1) throw invalidArgument(where + ".count", std::to_string(shape.count), "must be >= 1");
    shape.note = s.value("note", std::string());
    try {
        p.validate();
    } catch (const Error& e) {
        throw invalidArgument("shape " + where, p.str(), e.what());
    }
    return shape;
}

std::string names(const std::vector<std::string>& list) {
    std::string out;
    for (const auto& n : list) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

std::string findShapesFile(const std::string& explicitPath, const std::string& argv0) {
    if (!explicitPath.empty()) {
        if (!fileExists(explicitPath))
            throw Error(Error::Kind::Io, "shapes file " + explicitPath + " cannot be read");
        return explicitPath;
    }
    const std::string nextToExe = executableDir(argv0) + "/shapes.json";
    if (fileExists(nextToExe)) return nextToExe;
    if (fileExists(VKCONV_BENCH_SHAPES_SOURCE)) return VKCONV_BENCH_SHAPES_SOURCE;
    throw Error(Error::Kind::Io, "no shapes.json next to the executable (" + nextToExe +
                                     ") nor at " + VKCONV_BENCH_SHAPES_SOURCE +
                                     "; pass --shapes FILE (bench/shapes.json in the source tree)");
}

ShapeCatalog loadShapes(const std::string& path) {
    const std::string text = detail::readJsonFile(path, "shapes file", detail::kShapesJsonLimits);
    const json doc = detail::parseJson(text, "shapes file " + path, detail::kShapesJsonLimits);
    ShapeCatalog catalog;
    catalog.path = path;
    if (!doc.is_object() || !doc.contains("suites") || !doc.at("suites").is_object())
        throw Error(Error::Kind::Io, "shapes file " + path + " has no \"suites\" object");
    try {
        catalog.gpuMinIoBytes = doc.value("gpu_min_io_bytes", uint64_t(1) << 28);
        for (const auto& [suite, body] : doc.at("suites").items()) {
            catalog.suites.push_back(suite);
            const int64_t cpuBatch = body.value("cpu_batch", int64_t(1));
            for (const json& s : body.at("shapes")) catalog.shapes.push_back(readShape(s, suite, cpuBatch));
        }
    } catch (const json::exception& e) {
        throw Error(Error::Kind::Io, "shapes file " + path + ": " + e.what());
    }
    for (size_t i = 0; i < catalog.shapes.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (catalog.shapes[i].name == catalog.shapes[j].name)
                throw invalidArgument("shape name", catalog.shapes[i].name, "appears twice in " + path);
    return catalog;
}

std::vector<BenchShape> suiteShapes(const ShapeCatalog& catalog, const std::string& suite) {
    std::vector<BenchShape> out;
    for (const auto& s : catalog.shapes)
        if (s.suite == suite) out.push_back(s);
    if (out.empty())
        throw invalidArgument("suite", suite, "unknown; " + catalog.path + " has " + names(catalog.suites));
    return out;
}

BenchShape shapeByName(const ShapeCatalog& catalog, const std::string& name) {
    for (const auto& s : catalog.shapes)
        if (s.name == name) return s;
    throw invalidArgument("shape", name, "unknown; --list shows the shapes in " + catalog.path);
}

std::string shortProblem(const ConvProblem& p) {
    auto pair = [](int64_t a, int64_t b) {
        return a == b ? std::to_string(a) : std::to_string(a) + "," + std::to_string(b);
    };
    std::ostringstream s;
    s << "N" << p.batch << " C" << p.inChannels << " " << p.height << "x" << p.width << " K"
      << p.outChannels << " k" << p.kernelH << "x" << p.kernelW;
    if (p.strideH != 1 || p.strideW != 1) s << " s" << pair(p.strideH, p.strideW);
    if (p.padH != 0 || p.padW != 0) s << " p" << pair(p.padH, p.padW);
    if (p.dilationH != 1 || p.dilationW != 1) s << " d" << pair(p.dilationH, p.dilationW);
    if (p.groups != 1) s << " g" << p.groups;
    if (!p.bias) s << " nobias";
    return s.str();
}

}  // namespace vkconv::bench
