// Output of the tools: aligned text tables, human units, and a small JSON writer (no
// dependency for something this small).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace fattn::cli {

// Columns are right-aligned except the first, which holds names.
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);
  void print(std::FILE* stream) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

std::string format_milliseconds(double ms);  // "850 µs", "12.3 ms", "1.24 s"
std::string format_bytes(double bytes);      // "0 B", "1.5 KiB", "1.00 GiB"
std::string format_fixed(double value, int decimals);
std::string format_error(double relative_error);  // "3.1e-07", "inf"

// Writes `text` to the file at `path` (replacing it); throws ToolError when it cannot be opened.
void write_text_file(const std::string& path, std::string_view text);

// True when stdout is a terminal (progress lines are drawn only there).
bool stdout_is_terminal();

// Writes JSON as it goes; commas and escaping are handled here.
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);  // non-finite numbers become null
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();
  const std::string& str() const { return text_; }

 private:
  void before_value();
  std::string text_;
  std::vector<bool> first_in_scope_{true};
  bool after_key_ = false;
};

}  // namespace fattn::cli
