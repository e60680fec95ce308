// The .npy format: magic "\x93NUMPY", a version (major, minor), a little-endian header length
// (2 bytes in 1.0, 4 bytes in 2.0/3.0), then a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and a newline,
// then the raw data.
#include "npy.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "runtime/cache_files.hpp"
#include "vkconv/error.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.cpp copies '<f4' data as is, so it needs a little-endian host"
#endif

namespace vkconv::cli {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

Error ioError(const std::string& path, const std::string& why) {
    return Error(Error::Kind::Io, path + ": " + why);
}

// One value of the header dict: a string, a bool, or a tuple of integers.
struct HeaderValue {
    enum class Kind { String, Bool, Tuple } kind = Kind::String;
    std::string text;
    bool flag = false;
    std::vector<int64_t> tuple;
};

// A parser for exactly the dict literals NumPy writes (and hand-written equivalents).
class HeaderParser {
public:
    HeaderParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

    std::map<std::string, HeaderValue> parseDict() {
        std::map<std::string, HeaderValue> dict;
        expect('{');
        while (!tryConsume('}')) {
            std::string key = parseString();
            expect(':');
            dict[key] = parseValue();
            if (!tryConsume(',')) {
                expect('}');
                break;
            }
        }
        skipSpace();
        if (pos_ != s_.size()) fail("unexpected text after the header dict");
        return dict;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw ioError(path_, "malformed .npy header (" + why + " at offset " +
                                 std::to_string(pos_) + "): " + printable());
    }

    std::string printable() const {
        std::string out;
        for (char c : s_)
            if (std::isprint(static_cast<unsigned char>(c))) out += c;
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out.size() > 120 ? out.substr(0, 120) + "..." : out;
    }

    void skipSpace() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    bool tryConsume(char c) {
        skipSpace();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!tryConsume(c)) fail(std::string("expected '") + c + "'");
    }

    std::string parseString() {
        skipSpace();
        if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) fail("expected a string");
        const char quote = s_[pos_++];
        const size_t end = s_.find(quote, pos_);
        if (end == std::string::npos) fail("unterminated string");
        std::string out = s_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return out;
    }

    int64_t parseInt() {
        skipSpace();
        const size_t start = pos_;
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
        if (pos_ == start) fail("expected a non-negative integer");
        if (pos_ < s_.size() && (s_[pos_] == 'L' || s_[pos_] == 'l')) ++pos_;  // Python 2 longs
        const std::string digits = s_.substr(start, pos_ - start);
        if (digits.size() > 18) fail("dimension " + digits + " is too large");
        return std::stoll(digits);
    }

    HeaderValue parseValue() {
        skipSpace();
        HeaderValue v;
        if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"')) {
            v.kind = HeaderValue::Kind::String;
            v.text = parseString();
        } else if (s_.compare(pos_, 4, "True") == 0 || s_.compare(pos_, 5, "False") == 0) {
            v.kind = HeaderValue::Kind::Bool;
            v.flag = s_[pos_] == 'T';
            pos_ += v.flag ? 4 : 5;
        } else if (pos_ < s_.size() && s_[pos_] == '[') {
            // A structured dtype's descr: a list of fields. Kept as its text, which the dtype
            // check then names and refuses.
            const size_t start = pos_;
            int depth = 0;
            do {
                if (s_[pos_] == '[' || s_[pos_] == '(') ++depth;
                if (s_[pos_] == ']' || s_[pos_] == ')') --depth;
                ++pos_;
            } while (pos_ < s_.size() && depth > 0);
            if (depth != 0) fail("unterminated list");
            v.kind = HeaderValue::Kind::String;
            v.text = s_.substr(start, pos_ - start);
        } else if (tryConsume('(')) {
            v.kind = HeaderValue::Kind::Tuple;
            while (!tryConsume(')')) {
                v.tuple.push_back(parseInt());
                if (!tryConsume(',')) {
                    expect(')');
                    break;
                }
            }
        } else {
            fail("expected a string, True/False or a tuple");
        }
        return v;
    }

    const std::string& s_;
    const std::string& path_;
    size_t pos_ = 0;
};

uint32_t littleEndian(const unsigned char* p, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

}  // namespace

std::string shapeString(const std::vector<int64_t>& shape) {
    std::ostringstream s;
    s << "(";
    for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
    if (shape.size() == 1) s << ",";
    s << ")";
    return s.str();
}

NpyArray readNpy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ioError(path, std::string("cannot open: ") + std::strerror(errno));
    in.seekg(0, std::ios::end);
    const std::streamoff fileSize = in.tellg();
    in.seekg(0, std::ios::beg);
    if (fileSize < 0) throw ioError(path, "cannot determine the file size");

    unsigned char prefix[12] = {};
    const size_t prefixRead = in.read(reinterpret_cast<char*>(prefix), 10) ? 10 : size_t(in.gcount());
    if (prefixRead < 10 || std::memcmp(prefix, kMagic, kMagicSize) != 0)
        throw ioError(path, "not a NumPy .npy file (no \\x93NUMPY magic)");
    const int major = prefix[6], minor = prefix[7];
    uint32_t headerLength = 0;
    size_t prefixSize = 0;
    if (major == 1) {
        headerLength = littleEndian(prefix + 8, 2);
        prefixSize = 10;
    } else if (major == 2 || major == 3) {
        if (!in.read(reinterpret_cast<char*>(prefix + 10), 2))
            throw ioError(path, "truncated .npy header");
        headerLength = littleEndian(prefix + 8, 4);
        prefixSize = 12;
    } else {
        throw ioError(path, "unsupported .npy version " + std::to_string(major) + "." +
                                std::to_string(minor) + " (1.0, 2.0 and 3.0 are read)");
    }
    // NumPy itself reads headers of at most 10,000 bytes by default; a length far past that is
    // not a header vkconv could need, and is not allocated.
    constexpr uint32_t kMaxHeaderBytes = 1u << 16;
    if (headerLength > kMaxHeaderBytes)
        throw ioError(path, "malformed .npy header (header length " + std::to_string(headerLength) +
                                " bytes, more than the " + std::to_string(kMaxHeaderBytes) + " vkconv reads)");
    if (std::streamoff(prefixSize) + std::streamoff(headerLength) > fileSize)
        throw ioError(path, "truncated .npy header (header length " + std::to_string(headerLength) +
                                " runs past the end of the " + std::to_string(fileSize) +
                                "-byte file)");
    std::string header(headerLength, '\0');
    in.read(&header[0], headerLength);
    if (!in) throw ioError(path, "truncated .npy header");

    const auto dict = HeaderParser(header, path).parseDict();
    auto field = [&](const char* key, HeaderValue::Kind kind) -> const HeaderValue& {
        auto it = dict.find(key);
        if (it == dict.end()) throw ioError(path, std::string("the .npy header has no '") + key + "'");
        if (it->second.kind != kind)
            throw ioError(path, std::string("the .npy header's '") + key + "' has the wrong type");
        return it->second;
    };
    const std::string& descr = field("descr", HeaderValue::Kind::String).text;
    if (descr != "<f4" && descr != "<f2" && descr != "<u2") {
        std::string shown;  // a damaged header's bytes are not printed as they are
        for (const unsigned char c : descr.substr(0, 80)) shown += std::isprint(c) ? char(c) : '?';
        throw invalidArgument(path + ": dtype", "'" + shown + "'",
                              "expected float32 ('<f4'), float16 ('<f2') or bfloat16 bit patterns ('<u2'); convert "
                              "with .astype('<f4')");
    }
    const DataType dtype = descr == "<f2" ? DataType::F16 : descr == "<u2" ? DataType::BF16 : DataType::F32;
    const uint64_t elementSize = elementBytes(dtype);
    if (field("fortran_order", HeaderValue::Kind::Bool).flag)
        throw invalidArgument(path + ": fortran_order", "True",
                              "expected C order; convert with numpy.ascontiguousarray()");

    NpyArray array;
    array.dtype = dtype;
    array.shape = field("shape", HeaderValue::Kind::Tuple).tuple;
    const uint64_t dataBytes = uint64_t(fileSize) - prefixSize - headerLength;
    uint64_t elements = 1;
    const bool empty = std::find(array.shape.begin(), array.shape.end(), int64_t(0)) != array.shape.end();
    for (int64_t d : empty ? std::vector<int64_t>{0} : array.shape) {
        // Any dimension that makes the product exceed the data present is an error; checking
        // before multiplying keeps the product from overflowing.
        if (d != 0 && elements > dataBytes / elementSize / uint64_t(d))
            throw ioError(path, "truncated: shape " + shapeString(array.shape) + " needs more than the " +
                                    std::to_string(dataBytes) + " data bytes present");
        elements *= uint64_t(d);
    }
    const uint64_t wantBytes = elements * elementSize;
    if (dataBytes < wantBytes)
        throw ioError(path, "truncated: shape " + shapeString(array.shape) + " needs " +
                                std::to_string(wantBytes) + " data bytes, the file has " +
                                std::to_string(dataBytes));
    if (dataBytes > wantBytes)
        throw ioError(path, "has " + std::to_string(dataBytes - wantBytes) +
                                " bytes after the data of shape " + shapeString(array.shape));
    array.data.resize(elements);
    if (dtype == DataType::F32) {
        if (elements && !in.read(reinterpret_cast<char*>(array.data.data()), std::streamsize(wantBytes)))
            throw ioError(path, "read failed");
        return array;
    }
    std::vector<uint16_t> half(elements);
    if (elements && !in.read(reinterpret_cast<char*>(half.data()), std::streamsize(wantBytes)))
        throw ioError(path, "read failed");
    for (uint64_t i = 0; i < elements; ++i)  // exact either way
        array.data[i] = dtype == DataType::BF16 ? floatFromBfloat16(half[i]) : floatFromHalf(half[i]);
    return array;
}

void writeNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data, DataType dtype) {
    std::string dict = std::string("{'descr': '") +
                       (dtype == DataType::F16 ? "<f2" : dtype == DataType::BF16 ? "<u2" : "<f4") +
                       "', 'fortran_order': False, 'shape': " + shapeString(shape) + ", }";
    // NumPy pads magic + length + dict + '\n' to a multiple of 64 bytes, so the data is aligned.
    const size_t unpadded = kMagicSize + 2 + 2 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    if (dict.size() > std::numeric_limits<uint16_t>::max())
        throw ioError(path, "shape too long for a version 1.0 header");

    uint64_t elements = 1;
    for (int64_t d : shape) elements *= uint64_t(d);
    const unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                      static_cast<unsigned char>(dict.size() & 0xff),
                                      static_cast<unsigned char>(dict.size() >> 8)};
    // fp16 values are the fp32 ones rounded (exact where they came from an f16 tensor).
    std::vector<uint16_t> half;
    if (dtype != DataType::F32)
        for (uint64_t i = 0; i < elements; ++i)
            half.push_back(dtype == DataType::BF16 ? bfloat16FromFloat(data[i]) : halfFromFloat(data[i]));
    const void* bytes = dtype != DataType::F32 ? static_cast<const void*>(half.data()) : data;
    // A temporary file renamed over `path`: a failed write (a full disk) leaves the previous
    // file as it was, never a truncated one.
    try {
        detail::writeFileAtomically(path,
                                    {{prefix, sizeof prefix}, {dict.data(), dict.size()}, {bytes, elements * elementBytes(dtype)}},
                                    /*createFolder=*/false);
    } catch (const Error& e) {
        throw ioError(path, std::string("not written (") + e.what() + "); any previous file is unchanged");
    }
}

}  // namespace vkconv::cli
