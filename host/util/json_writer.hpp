// A small JSON writer for the commands' --json output: objects, arrays, strings (escaped), numbers
// (non-finite ones as null) and booleans, written as they come.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace rbmc {

class JsonWriter {
 public:
  explicit JsonWriter(std::FILE* out) : out_(out) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(const std::string& k) {
    separate();
    write_string(k);
    std::fputc(':', out_);
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(const std::string& s) {
    separate();
    write_string(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double x) {
    separate();
    if (std::isfinite(x)) std::fprintf(out_, "%.17g", x);
    else std::fputs("null", out_);
    return *this;
  }
  JsonWriter& value(unsigned long long x) {
    separate();
    std::fprintf(out_, "%llu", x);
    return *this;
  }
  JsonWriter& value(bool b) {
    separate();
    std::fputs(b ? "true" : "false", out_);
    return *this;
  }
  template <class T>
  JsonWriter& field(const std::string& k, const T& v) {
    key(k);
    return value(v);
  }
  void finish() { std::fputc('\n', out_); }

 private:
  JsonWriter& open(char c) {
    separate();
    std::fputc(c, out_);
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    std::fputc(c, out_);
    first_.pop_back();
    return *this;
  }
  // A comma before every member but the first of its container, none after a key.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) std::fputc(',', out_);
      first_.back() = false;
    }
  }
  void write_string(const std::string& s) {
    std::fputc('"', out_);
    for (const unsigned char c : s) {
      if (c == '"' || c == '\\') std::fprintf(out_, "\\%c", c);
      else if (c == '\n') std::fputs("\\n", out_);
      else if (c < 0x20) std::fprintf(out_, "\\u%04x", c);
      else std::fputc(c, out_);
    }
    std::fputc('"', out_);
  }

  std::FILE* out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace rbmc
