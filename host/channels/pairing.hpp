// Owner pairing codes (CH-2): 8 characters from a 32-letter alphabet without 0, O, 1 and I, single
// use, one hour by default, stored only as a hash bound to the channel, and attempt-limited: after
// kMaxAttempts wrong codes the channel refuses every code — the right one too — for kLockout.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace coffer::channels {

inline constexpr std::string_view kCodeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
inline constexpr std::size_t kCodeLength = 8;
inline constexpr std::chrono::seconds kCodeLifetime{3600};
inline constexpr int kMaxAttempts = 5;
inline constexpr std::chrono::seconds kLockout{3600};

// A fresh code (getrandom(); 256 is a multiple of 32, so every letter is equally likely).
std::string new_code();
// The text of a message when it has the shape of a code (8 letters of any case, spaces around
// ignored), upper-cased; empty otherwise. Only such messages count as pairing attempts.
std::string code_candidate(std::string_view text);
// What is stored: hex(sha256("coffer-pairing\0" channel_uid "\0" code)).
std::string code_hash(std::string_view channel_uid, std::string_view code);

}  // namespace coffer::channels
