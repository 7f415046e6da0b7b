#include "cli_format.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli_device.hpp"  // ToolError

namespace fattn::cli {
namespace {

constexpr double kBytesPerKiB = 1024.0;
constexpr double kMicrosecondsPerMillisecond = 1e3;
constexpr double kMillisecondsPerSecond = 1e3;

// Display width of a UTF-8 string (µ, ×, … count as one column).
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void Table::print(std::FILE* stream) const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) width[c] = display_width(headers_[c]);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - display_width(row[c]), ' ');
      line += c == 0 ? row[c] + pad : "  " + pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::fprintf(stream, "%s\n", line.c_str());
  };
  print_row(headers_);
  std::size_t total = 0;
  for (std::size_t c = 0; c < width.size(); ++c) total += width[c] + (c ? 2 : 0);
  std::string rule;
  for (std::size_t i = 0; i < total; ++i) rule += "─";
  std::fprintf(stream, "%s\n", rule.c_str());
  for (const auto& row : rows_) print_row(row);
}

std::string format_fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string format_milliseconds(double ms) {
  if (!std::isfinite(ms)) return "—";
  if (ms < 1.0) return format_fixed(ms * kMicrosecondsPerMillisecond, 1) + " µs";
  if (ms < kMillisecondsPerSecond) return format_fixed(ms, ms < 10.0 ? 2 : 1) + " ms";
  return format_fixed(ms / kMillisecondsPerSecond, 2) + " s";
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= kBytesPerKiB && unit + 1 < static_cast<int>(std::size(kUnits))) {
    bytes /= kBytesPerKiB;
    ++unit;
  }
  return (unit == 0 ? format_fixed(bytes, 0) : format_fixed(bytes, bytes < 10 ? 2 : 1)) + " " + kUnits[unit];
}

std::string format_error(double relative_error) {
  if (std::isnan(relative_error)) return "nan";
  if (std::isinf(relative_error)) return "inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1e", relative_error);
  return buffer;
}

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) != 0; }

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_in_scope_.back()) text_ += ',';
  first_in_scope_.back() = false;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  text_ += '{';
  first_in_scope_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  first_in_scope_.pop_back();
  text_ += '}';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  text_ += '[';
  first_in_scope_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  first_in_scope_.pop_back();
  text_ += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  value(name);
  text_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  text_ += '"';
  for (char c : text) {
    switch (c) {
      case '"':
        text_ += "\\\"";
        break;
      case '\\':
        text_ += "\\\\";
        break;
      case '\n':
        text_ += "\\n";
        break;
      case '\t':
        text_ += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          text_ += escaped;
        } else {
          text_ += c;
        }
    }
  }
  text_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.9g", number);
  text_ += buffer;
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  before_value();
  text_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  text_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  text_ += "null";
  return *this;
}

void write_text_file(const std::string& path, std::string_view text) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) throw ToolError("cannot write " + path);
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
}

}  // namespace fattn::cli
