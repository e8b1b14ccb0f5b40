#include "base/Gzip.hpp"

#include "base/Errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <zlib.h>

namespace colocsim {

namespace {

gzFile gz(void* f)
{
  return static_cast<gzFile>(f);
}

std::string gz_message(void* f)
{
  int code = Z_OK;
  const char* msg = gzerror(gz(f), &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return msg != nullptr ? msg : "unknown zlib error";
}

} // namespace

bool has_gzip_magic(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  if (!in.read(reinterpret_cast<char*>(magic), 2)) return false;
  return magic[0] == 0x1f && magic[1] == 0x8b;
}

GzipInBuf::~GzipInBuf()
{
  close();
}

bool GzipInBuf::open(const std::string& path)
{
  close();
  error_.clear();
  path_ = path;
  // gzopen blocks on a FIFO until something writes to it, and a device never ends: regular files only.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    error_ = "not a regular file";
    return false;
  }
  file_ = gzopen(path.c_str(), "rb");
  if (file_ == nullptr) return false;
  gzbuffer(gz(file_), 1 << 17);
  setg(buffer_.data(), buffer_.data(), buffer_.data());
  return true;
}

void GzipInBuf::close()
{
  if (file_ != nullptr) gzclose(gz(file_));
  file_ = nullptr;
  setg(nullptr, nullptr, nullptr);
}

GzipInBuf::int_type GzipInBuf::underflow()
{
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (file_ == nullptr) return traits_type::eof();
  if (!error_.empty()) fail();
  const int n = gzread(gz(file_), buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (n < 0) {
    error_ = gz_message(file_);
    fail();
  }
  if (n == 0) {
    // gzread returns 0 both at a clean end and at a gzip stream cut short (zlib checks the end-of-stream
    // block and the CRC-32 and length trailer before a clean end); gzerror tells them apart.
    int code = Z_OK;
    gzerror(gz(file_), &code);
    if (code != Z_OK) {
      error_ = gz_message(file_);
      fail();
    }
    return traits_type::eof();
  }
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

void GzipInBuf::fail() const
{
  throw InputError(SourceLocation{path_}, "",
                   "gzip data cut short or corrupt (zlib: " + error_ +
                       "); expected a complete gzip file (gzip -t checks one) or a plain file");
}

GzipIfstream::GzipIfstream() : std::istream(nullptr)
{
  rdbuf(&buf_);
}

GzipIfstream::GzipIfstream(const std::string& path) : GzipIfstream()
{
  open(path);
}

bool GzipIfstream::open(const std::string& path)
{
  clear();
  if (!buf_.open(path)) setstate(std::ios::failbit);
  return buf_.is_open();
}

GzipOutBuf::~GzipOutBuf()
{
  close();
}

bool GzipOutBuf::open(const std::string& path)
{
  close();
  error_.clear();
  file_ = gzopen(path.c_str(), "wb6");
  if (file_ == nullptr) {
    error_ = errno != 0 ? std::strerror(errno) : "cannot create the file";
    return false;
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return true;
}

bool GzipOutBuf::flush_buffer()
{
  const auto n = static_cast<unsigned>(pptr() - pbase());
  if (n == 0) return true;
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  if (file_ == nullptr) return false;
  if (gzwrite(gz(file_), buffer_.data(), n) != static_cast<int>(n)) {
    if (error_.empty()) error_ = gz_message(file_);
    return false;
  }
  return true;
}

GzipOutBuf::int_type GzipOutBuf::overflow(int_type ch)
{
  if (!flush_buffer()) return traits_type::eof();
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  *pptr() = traits_type::to_char_type(ch);
  pbump(1);
  return ch;
}

std::streamsize GzipOutBuf::xsputn(const char* s, std::streamsize n)
{
  std::streamsize done = 0;
  while (done < n) {
    const std::streamsize room = epptr() - pptr();
    if (room == 0) {
      if (!flush_buffer()) return done;
      continue;
    }
    const std::streamsize take = std::min(room, n - done);
    std::memcpy(pptr(), s + done, static_cast<std::size_t>(take));
    pbump(static_cast<int>(take));
    done += take;
  }
  return done;
}

int GzipOutBuf::sync()
{
  return flush_buffer() ? 0 : -1;
}

bool GzipOutBuf::close()
{
  if (file_ == nullptr) return error_.empty();
  bool ok = flush_buffer();
  const int rc = gzclose(gz(file_));
  file_ = nullptr;
  setp(nullptr, nullptr);
  if (rc != Z_OK) {
    if (error_.empty()) error_ = rc == Z_ERRNO ? std::strerror(errno) : "zlib could not finish the file";
    ok = false;
  }
  return ok && error_.empty();
}

GzipOfstream::GzipOfstream() : std::ostream(nullptr)
{
  rdbuf(&buf_);
}

GzipOfstream::GzipOfstream(const std::string& path) : GzipOfstream()
{
  open(path);
}

bool GzipOfstream::open(const std::string& path)
{
  clear();
  if (!buf_.open(path)) setstate(std::ios::failbit);
  return buf_.is_open();
}

bool GzipOfstream::close()
{
  const bool ok = buf_.close();
  if (!ok) setstate(std::ios::badbit);
  return ok;
}

} // namespace colocsim
