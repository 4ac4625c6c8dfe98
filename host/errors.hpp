// Errors the host reports to the user: typed, each mapped to a message and an exit code by main.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace rbmc {

// A scenario that cannot be run, located in its file: "file:line:column: key 'a.b': message".
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, std::uint32_t line, std::uint32_t column, std::string key_path,
                const std::string& message)
      : std::runtime_error(format(file, line, column, key_path, message)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        key_path_(std::move(key_path)) {}

  const std::string& file() const { return file_; }
  std::uint32_t line() const { return line_; }
  std::uint32_t column() const { return column_; }
  const std::string& key_path() const { return key_path_; }

 private:
  static std::string format(const std::string& file, std::uint32_t line, std::uint32_t column,
                            const std::string& key_path, const std::string& message) {
    std::string s = file;
    if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(column);
    s += ": ";
    if (!key_path.empty()) s += "key '" + key_path + "': ";
    return s + message;
  }

  std::string file_;
  std::uint32_t line_, column_;
  std::string key_path_;
};

// A command-line request that cannot be honoured (an existing output file, a bad flag value).
class UsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// rbmc compare judged two results files different (not an error in the program).
class ComparisonFailed : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writing or reading a results file failed (full disk, permissions, a file that is not ours).
class Hdf5Error : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A CUDA runtime call failed.
class CudaError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --backend cuda on a build without the CUDA toolkit.
class NotBuiltWithCuda : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace rbmc
