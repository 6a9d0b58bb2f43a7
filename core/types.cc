#include "core/types.h"

#include <cstring>

namespace af {
namespace {

struct TypeInfo {
  DataType type;
  const char* name;
  int size;
};

constexpr TypeInfo kTypes[] = {
    {DT_FLOAT, "float", 4},        {DT_DOUBLE, "double", 8},
    {DT_INT32, "int32", 4},        {DT_UINT8, "uint8", 1},
    {DT_INT16, "int16", 2},        {DT_INT8, "int8", 1},
    {DT_STRING, "string", 0},      {DT_COMPLEX64, "complex64", 8},
    {DT_INT64, "int64", 8},        {DT_BOOL, "bool", 1},
    {DT_QINT8, "qint8", 1},        {DT_QUINT8, "quint8", 1},
    {DT_QINT32, "qint32", 4},      {DT_BFLOAT16, "bfloat16", 2},
    {DT_QINT16, "qint16", 2},      {DT_QUINT16, "quint16", 2},
    {DT_UINT16, "uint16", 2},      {DT_COMPLEX128, "complex128", 16},
    {DT_HALF, "half", 2},          {DT_RESOURCE, "resource", 0},
    {DT_VARIANT, "variant", 0},    {DT_UINT32, "uint32", 4},
    {DT_UINT64, "uint64", 8},
};

const TypeInfo* Find(DataType dt) {
  for (const auto& info : kTypes)
    if (info.type == dt) return &info;
  return nullptr;
}

}  // namespace

std::string DataTypeString(DataType dt) {
  if (IsRefType(dt)) {
    const TypeInfo* info = Find(BaseType(dt));
    if (info) return std::string(info->name) + "_ref";
  }
  const TypeInfo* info = Find(dt);
  if (info) return info->name;
  return "unknown dtype enum (" + std::to_string(static_cast<int>(dt)) + ")";
}

bool DataTypeFromString(std::string_view name, DataType* out) {
  bool ref = false;
  if (name.size() > 4 && name.substr(name.size() - 4) == "_ref") {
    ref = true;
    name.remove_suffix(4);
  }
  std::string lower;
  if (name.substr(0, 3) == "DT_") {
    for (char c : name.substr(3)) lower.push_back(static_cast<char>(std::tolower(c)));
    if (lower.size() > 4 && lower.substr(lower.size() - 4) == "_ref") {
      ref = true;
      lower.resize(lower.size() - 4);
    }
    name = lower;
  }
  for (const auto& info : kTypes) {
    if (name == info.name) {
      *out = ref ? MakeRefType(info.type) : info.type;
      return true;
    }
  }
  return false;
}

std::ostream& operator<<(std::ostream& os, DataType dt) { return os << DataTypeString(dt); }

bool IsValidDataType(int value) {
  if (value > kDataTypeRefOffset) value -= kDataTypeRefOffset;
  return Find(static_cast<DataType>(value)) != nullptr;
}

int DataTypeSize(DataType dt) {
  const TypeInfo* info = Find(BaseType(dt));
  return info ? info->size : 0;
}

bool DataTypeIsFloating(DataType dt) {
  dt = BaseType(dt);
  return dt == DT_HALF || dt == DT_BFLOAT16 || dt == DT_FLOAT || dt == DT_DOUBLE;
}

bool DataTypeIsInteger(DataType dt) {
  switch (BaseType(dt)) {
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsComplex(DataType dt) {
  dt = BaseType(dt);
  return dt == DT_COMPLEX64 || dt == DT_COMPLEX128;
}

bool DataTypeIsQuantized(DataType dt) {
  switch (BaseType(dt)) {
    case DT_QINT8: case DT_QUINT8: case DT_QINT16: case DT_QUINT16: case DT_QINT32:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsNumeric(DataType dt) {
  return DataTypeIsFloating(dt) || DataTypeIsInteger(dt) ||
         DataTypeIsComplex(dt) || DataTypeIsQuantized(dt);
}

float HalfToFloat(half h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf or nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal half: normalize into a float.
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    mant &= 0x3ffu;
    bits = sign | (exp << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

half FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  half h;
  if (abs >= 0x7f800000u) {  // inf or nan
    h.bits = sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);
    return h;
  }
  if (abs >= 0x477ff000u) {  // rounds to beyond the largest half
    h.bits = sign | 0x7c00u;
    return h;
  }
  if (abs < 0x38800000u) {  // subnormal or zero in half
    // Shift with round-to-nearest-even on the dropped bits.
    const int shift = 126 - static_cast<int>(abs >> 23);  // >= 14
    if (shift > 24) {
      h.bits = sign;
      return h;
    }
    uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t total_shift = static_cast<uint32_t>(shift);
    uint32_t result = mant >> total_shift;
    const uint32_t rem = mant & ((1u << total_shift) - 1);
    const uint32_t halfway = 1u << (total_shift - 1);
    if (rem > halfway || (rem == halfway && (result & 1u))) ++result;
    h.bits = sign | static_cast<uint16_t>(result);
    return h;
  }
  uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);  // nearest even
  rounded -= 0x38000000u;  // rebias exponent 127 -> 15
  h.bits = sign | static_cast<uint16_t>(rounded >> 13);
  return h;
}

float BFloat16ToFloat(bfloat16 b) {
  const uint32_t bits = static_cast<uint32_t>(b.bits) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bfloat16 FloatToBFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  bfloat16 b;
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // nan stays a quiet nan
    b.bits = static_cast<uint16_t>((x >> 16) | 0x40u);
    return b;
  }
  x += 0x7fffu + ((x >> 16) & 1u);
  b.bits = static_cast<uint16_t>(x >> 16);
  return b;
}

}  // namespace af
