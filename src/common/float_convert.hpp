// Scalar conversions between float and the 16-bit storage types, portable and exact
// (round-to-nearest-even). Hot loops use SIMD conversions instead; these serve the reference,
// tests and tools.
#pragma once

#include <cstdint>
#include <cstring>

#include "fattn/types.hpp"

namespace fattn::detail {

inline std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float bits_to_float(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline float bfloat16_to_float(std::uint16_t h) { return bits_to_float(std::uint32_t{h} << 16); }

inline std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

inline float float16_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_to_float(sign | 0x7f800000u | (mantissa << 13));  // inf/NaN
  if (exponent == 0) {
    if (mantissa == 0) return bits_to_float(sign);
    // Subnormal half: value = mantissa * 2^-24.
    float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return bits_to_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline std::uint16_t float_to_float16(float value) {
  const std::uint32_t bits = float_bits(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t abs_bits = bits & 0x7fffffffu;
  if (abs_bits > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (abs_bits >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (abs_bits < 0x38800000u) {
    // Result is subnormal (or zero): round abs * 2^24 to the nearest integer, ties to even.
    const float magnitude = bits_to_float(abs_bits) * 16777216.0f;
    auto truncated = static_cast<std::uint32_t>(magnitude);
    const float remainder = magnitude - static_cast<float>(truncated);
    if (remainder > 0.5f || (remainder == 0.5f && (truncated & 1u))) ++truncated;
    return static_cast<std::uint16_t>(sign | truncated);
  }
  const std::uint32_t rounding = 0xfffu + ((abs_bits >> 13) & 1u);
  const std::uint32_t rebased = abs_bits - (112u << 23) + rounding;
  return static_cast<std::uint16_t>(sign | (rebased >> 13));
}

// Element `offset` (in elements) of a buffer of `dtype`, as float.
inline float load_as_float(const void* base, DType dtype, std::int64_t offset) {
  switch (dtype) {
    case DType::float16: return float16_to_float(static_cast<const std::uint16_t*>(base)[offset]);
    case DType::bfloat16: return bfloat16_to_float(static_cast<const std::uint16_t*>(base)[offset]);
    default: return static_cast<const float*>(base)[offset];
  }
}

// Stores `value` rounded to `dtype` at element `offset`.
inline void store_from_float(void* base, DType dtype, std::int64_t offset, float value) {
  switch (dtype) {
    case DType::float16: static_cast<std::uint16_t*>(base)[offset] = float_to_float16(value); break;
    case DType::bfloat16: static_cast<std::uint16_t*>(base)[offset] = float_to_bfloat16(value); break;
    default: static_cast<float*>(base)[offset] = value; break;
  }
}

}  // namespace fattn::detail
