// Keeps libcaf_openssl from closing healthy TLS connections after another
// one failed (actors/transport/openssl_error_queue.cc says how). Referencing this
// function links the fix into every program that uses cluster TLS.
#pragma once

namespace af::actors {

bool OpensslErrorQueueGuardLinked();

}  // namespace af::actors
