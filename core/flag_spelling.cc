#include "core/flag_spelling.h"

#include <cstring>
#include <string>

#include "core/logging.h"

namespace af {

void SnakeCaseFlags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    char* arg = argv[i];
    if (std::strcmp(arg, "--") == 0) return;
    if (std::strncmp(arg, "--", 2) != 0) continue;
    char* name_end = std::strchr(arg, '=');
    if (name_end == nullptr) name_end = arg + std::strlen(arg);
    const std::string old_name(arg, name_end);
    bool changed = false;
    for (char* c = arg + 2; c < name_end; ++c) {
      if (*c == '-') {
        *c = '_';
        changed = true;
      }
    }
    if (changed) {
      AF_LOG(WARNING) << old_name << " is spelled " << std::string(arg, name_end)
                      << " now; the hyphenated spelling goes in a later release";
    }
  }
}

}  // namespace af
