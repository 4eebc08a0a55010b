// coffer::core::Result<T> — a value or an Error; errors as values at boundaries.
#pragma once

#include "core/error.hpp"

#include <cassert>
#include <utility>
#include <variant>

namespace coffer::core {

template <typename T> class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }
    T& value() & { assert(ok()); return std::get<0>(v_); }
    const T& value() const& { assert(ok()); return std::get<0>(v_); }
    T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    const Error& error() const& { assert(!ok()); return std::get<1>(v_); }
    Error&& error() && { assert(!ok()); return std::get<1>(std::move(v_)); }

private:
    std::variant<T, Error> v_;
};

struct Unit {};

template <> class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : err_(std::move(error)), failed_(true) {}
    bool ok() const noexcept { return !failed_; }
    explicit operator bool() const noexcept { return ok(); }
    const Error& error() const& { assert(failed_); return err_; }
    Error&& error() && { assert(failed_); return std::move(err_); }

private:
    Error err_;
    bool failed_ = false;
};

}  // namespace coffer::core
