// TensorFlow's MergeV2Checkpoints: a sharded save writes one bundle per
// device (PREFIX_temp/part-00000-of-00002 ...), and merging renames their
// data files to DEST.data-0000k-of-0000n and writes one DEST.index listing
// every tensor with its new shard id. A partitioned variable whose slices
// were saved by several devices gets one full entry listing them all.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace af::bundle {

// NOT_FOUND for a missing input unless allow_missing_files (then it is
// skipped; NOT_FOUND still if every input is missing); INVALID_ARGUMENT for
// a tensor saved by two inputs (slices of one variable excepted, if they
// agree on dtype and full shape). With delete_old_dirs the inputs'
// directories are removed once empty (failures there are ignored, as
// TensorFlow ignores them).
Status MergeBundles(const std::vector<std::string>& prefixes, const std::string& dest,
                    bool delete_old_dirs, bool allow_missing_files);

}  // namespace af::bundle
