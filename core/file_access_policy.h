// Where graphs may touch files in this process: a server that runs graphs
// from other processes confines its file-touching ops (Save/Restore,
// ReadFile, the readers) to a few directories (`actorflow server
// --allowed_dirs`), so that a client cannot read /etc/passwd or write over
// the server's own files. Unrestricted until a server sets it. No CAF here.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace af {

// Confines later file access to `directories` (each made absolute and
// resolved through symlinks now); an empty list lifts the restriction.
// INVALID_ARGUMENT if one does not exist or is not a directory.
Status SetAllowedDirectories(const std::vector<std::string>& directories);
// The resolved directories in force (empty: unrestricted).
std::vector<std::string> AllowedDirectories();

// OK if `path` (a file to read, or one to create) lies inside an allowed
// directory once made absolute, `..` removed and existing symlinks
// resolved; PERMISSION_DENIED naming the path, what it resolves to and the
// allowed directories otherwise. A symlink created after the check is not
// caught (the check is not atomic with the open).
Status CheckFileAccess(const std::string& path);

// What `actorflow server` allows without --allowed_dirs: its working
// directory and the temporary directory ($TMPDIR, else /tmp).
std::vector<std::string> DefaultServerDirectories();

}  // namespace af
