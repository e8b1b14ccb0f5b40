#pragma once
// A vector of trivially copyable values that keeps its first N in place and only a longer one on the heap.
// The device physics keeps three per device (its residents, where each resident's physics is, the power
// attributed to each): with std::vector each was a heap block of its own, so reading a device's residents
// cost three cache misses beyond the device's record, and a run on 127,488 devices held 3 small heap blocks
// per device used (BENCHMARKS.md, A million jobs). With N at the usual co-location (2), they sit in the
// record.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace colocsim {

template <class T, std::uint32_t N> class SmallVec {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T> && N >= 1,
                "SmallVec holds trivially copyable values, at least one in place");

public:
  SmallVec() = default;
  SmallVec(const SmallVec& o) { append(o.begin(), o.size_); }
  SmallVec(SmallVec&& o) noexcept { take(o); }
  SmallVec& operator=(const SmallVec& o)
  {
    if (this != &o) {
      size_ = 0;
      append(o.begin(), o.size_);
    }
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept
  {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  T* data() { return on_heap() ? u_.heap : u_.local; }
  const T* data() const { return on_heap() ? u_.heap : u_.local; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return cap_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }

  void push_back(const T& v)
  {
    if (size_ == cap_) {
      const T copy = v; // v may be an element of this vector
      grow(static_cast<std::size_t>(cap_) * 2);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = v;
  }
  /// Removes the element at `it`, keeping the order of the others; returns the position after it.
  T* erase(T* it)
  {
    T* last = end();
    if (it + 1 < last)
      std::memmove(static_cast<void*>(it), it + 1, static_cast<std::size_t>(last - it - 1) * sizeof(T));
    --size_;
    return it;
  }

private:
  bool on_heap() const { return cap_ > N; }
  void append(const T* from, std::uint32_t n)
  {
    if (n > cap_) grow(n);
    if (n > 0) std::memcpy(static_cast<void*>(data()), from, static_cast<std::size_t>(n) * sizeof(T));
    size_ = n;
  }
  void grow(std::size_t want)
  {
    if (want > UINT32_MAX) throw std::length_error("SmallVec: more than 2^32 - 1 elements");
    const auto cap = static_cast<std::uint32_t>(std::max<std::size_t>(want, N + 1));
    T* heap = static_cast<T*>(::operator new(static_cast<std::size_t>(cap) * sizeof(T)));
    if (size_ > 0) std::memcpy(static_cast<void*>(heap), data(), static_cast<std::size_t>(size_) * sizeof(T));
    release();
    u_.heap = heap;
    cap_ = cap;
  }
  void release()
  {
    if (on_heap()) ::operator delete(u_.heap); // unsized: clang without -fsized-deallocation has no other
    cap_ = N;
  }
  /// Takes o's elements (its heap block, or a copy of its in-place ones); o is left empty.
  void take(SmallVec& o)
  {
    size_ = o.size_;
    cap_ = o.cap_;
    if (o.on_heap())
      u_.heap = o.u_.heap;
    else if (size_ > 0)
      std::memcpy(static_cast<void*>(u_.local), o.u_.local, static_cast<std::size_t>(size_) * sizeof(T));
    o.size_ = 0;
    o.cap_ = N;
  }

  union Storage {
    T local[N];
    T* heap;
  } u_{};
  std::uint32_t size_ = 0, cap_ = N;
};

} // namespace colocsim
