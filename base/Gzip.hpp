#pragma once
// gzip files as standard streams (zlib): one reader that takes a gzip file or a plain file alike, and one
// writer whose close() says whether every byte reached the disk. Used for compressed outputs
// (`outputs.compress: gzip`) and for bundled data kept compressed (the openb pod lists).
#include <array>
#include <istream>
#include <ostream>
#include <streambuf>
#include <string>

namespace colocsim {

/// True when the file starts with gzip's two magic bytes (0x1f 0x8b). False when it cannot be read.
bool has_gzip_magic(const std::string& path);

/// A read buffer over zlib's gzread: a gzip file is decompressed, any other file is read as it is. A gzip
/// stream cut short (no end-of-stream block, or no CRC-32 and length trailer) or corrupt (a bad CRC or
/// length) is never a quiet end of the data: the read that meets it throws InputError naming the file, with
/// zlib's message in error(). Through an istream (GzipIfstream) that throw sets badbit and ends the read;
/// a reader of the buffer itself (sgetn) gets the InputError.
class GzipInBuf final : public std::streambuf {
public:
  GzipInBuf() = default;
  ~GzipInBuf() override;
  GzipInBuf(const GzipInBuf&) = delete;
  GzipInBuf& operator=(const GzipInBuf&) = delete;
  /// false when the file cannot be opened, or is not a regular file (a FIFO would block, a device not end;
  /// error() then says so)
  bool open(const std::string& path);
  bool is_open() const { return file_ != nullptr; }
  /// Empty, or zlib's message for the read error (a truncated or corrupt gzip file).
  const std::string& error() const { return error_; }
  void close();

protected:
  int_type underflow() override;

private:
  [[noreturn]] void fail() const; ///< throws the InputError for error_
  void* file_ = nullptr;          // gzFile, kept opaque so that users of this header need no zlib.h
  std::array<char, 1 << 16> buffer_{};
  std::string error_, path_;
};

/// An input stream over GzipInBuf: `GzipIfstream in(path); if (!in.is_open()) ...; std::getline(in, line)`.
/// A gzip stream cut short or corrupt sets badbit and leaves zlib's message in error(): a reader checks
/// `bad()` (or error()) after its loop, or it takes the lines before the damage for the whole file.
class GzipIfstream final : public std::istream {
public:
  GzipIfstream();
  explicit GzipIfstream(const std::string& path);
  bool open(const std::string& path);
  bool is_open() const { return buf_.is_open(); }
  const std::string& error() const { return buf_.error(); }

private:
  GzipInBuf buf_;
};

/// A write buffer over zlib's gzwrite (compression level 6, zlib's default).
class GzipOutBuf final : public std::streambuf {
public:
  GzipOutBuf() = default;
  ~GzipOutBuf() override;
  GzipOutBuf(const GzipOutBuf&) = delete;
  GzipOutBuf& operator=(const GzipOutBuf&) = delete;
  bool open(const std::string& path); ///< false when the file cannot be created
  bool is_open() const { return file_ != nullptr; }
  /// Flushes, writes the gzip trailer and closes the file; false when any write or the close failed (a full
  /// disk), with the reason in error(). Idempotent.
  bool close();
  const std::string& error() const { return error_; }

protected:
  int_type overflow(int_type ch) override;
  int sync() override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

private:
  bool flush_buffer();
  void* file_ = nullptr; // gzFile
  std::array<char, 1 << 16> buffer_{};
  std::string error_;
};

/// An output stream over GzipOutBuf. close() must be called, and checked, to learn that the file is complete:
/// the destructor closes too, but cannot report a failure.
class GzipOfstream final : public std::ostream {
public:
  GzipOfstream();
  explicit GzipOfstream(const std::string& path);
  bool open(const std::string& path);
  bool is_open() const { return buf_.is_open(); }
  bool close(); ///< false (and badbit set) when a write or the close failed; see error()
  const std::string& error() const { return buf_.error(); }

private:
  GzipOutBuf buf_;
};

} // namespace colocsim
