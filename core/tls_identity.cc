#include "core/tls_identity.h"

#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "core/atomic_file_writer.h"
#include "core/cluster_secret.h"

namespace af {
namespace {

// Labels keep the derived keys apart from the handshake's proofs, which
// use the same secret.
constexpr std::string_view kCaKeyLabel = "actorflow-tls-ca-key";
constexpr std::string_view kCaNameLabel = "actorflow-tls-ca-name";
constexpr int kEd25519KeyBytes = 32;
// The CA certificate is the same in every process of a cluster (Ed25519
// signatures are deterministic): fixed serial and validity.
constexpr long kCaSerial = 1;
constexpr time_t kCaNotBefore = 946684800;   // 2000-01-01
constexpr time_t kCaNotAfter = 4102444800;   // 2100-01-01
// A process's own certificate outlives any job; a stolen key file stops
// working after this.
constexpr long kLeafLifetimeSeconds = 90L * 24 * 3600;
constexpr long kClockSkewSeconds = 24L * 3600;

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

PkeyPtr CaKey(const std::string& secret) {
  const std::string seed = HmacSha256(secret, kCaKeyLabel);
  return PkeyPtr(EVP_PKEY_new_raw_private_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(seed.data()),
      kEd25519KeyBytes));
}

PkeyPtr NewKey() {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  if (ctx && EVP_PKEY_keygen_init(ctx) == 1) EVP_PKEY_keygen(ctx, &key);
  EVP_PKEY_CTX_free(ctx);
  return PkeyPtr(key);
}

bool AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  const bool added = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return added;
}

bool SetName(X509_NAME* name, const std::string& common_name) {
  return X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                    reinterpret_cast<const unsigned char*>(common_name.c_str()),
                                    -1, -1, 0) == 1;
}

// A certificate for `subject_key`, signed by `issuer_key` (the same key and
// name for the self-signed CA).
X509Ptr MakeCertificate(EVP_PKEY* subject_key, const std::string& subject_name,
                        EVP_PKEY* issuer_key, X509* issuer, const std::string& issuer_name,
                        long serial, time_t not_before, time_t not_after, bool is_ca) {
  X509Ptr cert(X509_new());
  if (!cert) return nullptr;
  X509* x = cert.get();
  bool ok = X509_set_version(x, 2) == 1 && ASN1_INTEGER_set(X509_get_serialNumber(x), serial) == 1 &&
            ASN1_TIME_set(X509_getm_notBefore(x), not_before) != nullptr &&
            ASN1_TIME_set(X509_getm_notAfter(x), not_after) != nullptr &&
            X509_set_pubkey(x, subject_key) == 1 && SetName(X509_get_subject_name(x), subject_name);
  X509_NAME* issuer_x509_name = X509_NAME_new();
  ok = ok && issuer_x509_name && SetName(issuer_x509_name, issuer_name) &&
       X509_set_issuer_name(x, issuer_x509_name) == 1;
  X509_NAME_free(issuer_x509_name);
  if (is_ca) {
    ok = ok && AddExtension(x, x, NID_basic_constraints, "critical,CA:TRUE") &&
         AddExtension(x, x, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    ok = ok && AddExtension(x, issuer, NID_basic_constraints, "critical,CA:FALSE") &&
         AddExtension(x, issuer, NID_key_usage, "critical,digitalSignature") &&
         AddExtension(x, issuer, NID_ext_key_usage, "serverAuth,clientAuth");
  }
  // Ed25519 signs the whole message: no separate digest.
  ok = ok && X509_sign(x, issuer_key, nullptr) > 0;
  return ok ? std::move(cert) : nullptr;
}

std::string CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return "";
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string PrivateKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return "";
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

Status WriteAtomically(const std::string& path, const std::string& text) {
  std::unique_ptr<AtomicFileWriter> writer;
  AF_RETURN_IF_ERROR(AtomicFileWriter::Create(path, &writer));
  AF_RETURN_IF_ERROR(writer->Append(text.data(), text.size()));
  return writer->Commit();
}

// The process's identity: one directory and one key for its lifetime.
struct ProcessIdentity {
  std::mutex mu;  // guards files, key and secret_digest
  TlsIdentityFiles files;
  PkeyPtr key;
  std::string secret_digest;  // of the secret the certificates are for
};

ProcessIdentity& Identity() {
  static ProcessIdentity* identity = new ProcessIdentity;  // outlives exit handlers
  return *identity;
}

void RemoveIdentityDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(Identity().files.directory, ignored);
}

constexpr std::string_view kDirectoryPrefix = "actorflow-tls-";

// A process killed before its exit handlers ran leaves its directory (its
// key included) behind; the next process to make one removes those whose
// process is gone. The pid in the name says whose it is; a pid reused by a
// live process only delays the removal.
void RemoveDirectoriesOfDeadProcesses(const std::filesystem::path& temp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(temp, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kDirectoryPrefix, 0) != 0) continue;
    const size_t dash = name.find('-', kDirectoryPrefix.size());
    if (dash == std::string::npos) continue;
    const std::string pid_text = name.substr(kDirectoryPrefix.size(), dash - kDirectoryPrefix.size());
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos)
      continue;
    struct stat info;
    if (stat(entry.path().c_str(), &info) != 0 || info.st_uid != geteuid()) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
  }
}

Status CreateDirectoryAndKey(ProcessIdentity* identity) {
  const std::filesystem::path temp = std::filesystem::temp_directory_path();
  RemoveDirectoriesOfDeadProcesses(temp);
  std::string tmp = temp.string() + "/" + std::string(kDirectoryPrefix) +
                    std::to_string(getpid()) + "-XXXXXX";
  if (!mkdtemp(tmp.data())) {  // mode 0700
    return errors::Internal("TLS identity: cannot create a private directory under ",
                            temp.string());
  }
  identity->files.directory = tmp;
  identity->files.ca_certificate = tmp + "/ca.pem";
  identity->files.certificate = tmp + "/certificate.pem";
  identity->files.private_key = tmp + "/key.pem";
  std::atexit(RemoveIdentityDirectory);
  identity->key = NewKey();
  if (!identity->key) return errors::Internal("TLS identity: cannot generate an Ed25519 key");
  const std::string pem = PrivateKeyPem(identity->key.get());
  if (pem.empty()) return errors::Internal("TLS identity: cannot encode the private key");
  return WriteAtomically(identity->files.private_key, pem);
}

}  // namespace

std::string ClusterCaName(const std::string& secret) {
  return "actorflow cluster " + Hex(HmacSha256(secret, kCaNameLabel).substr(0, 4));
}

Status UseTlsIdentityFor(const std::string& secret, TlsIdentityFiles* files) {
  if (secret.empty()) return errors::InvalidArgument("a TLS identity needs a cluster secret");
  ProcessIdentity& identity = Identity();
  std::lock_guard<std::mutex> lock(identity.mu);
  const std::string digest = HmacSha256(secret, "actorflow-tls-identity");
  if (identity.secret_digest == digest) {
    *files = identity.files;
    return Status::OK();
  }
  if (!identity.key) AF_RETURN_IF_ERROR(CreateDirectoryAndKey(&identity));
  PkeyPtr ca_key = CaKey(secret);
  if (!ca_key) return errors::Internal("TLS identity: cannot derive the cluster CA's key");
  const std::string ca_name = ClusterCaName(secret);
  X509Ptr ca = MakeCertificate(ca_key.get(), ca_name, ca_key.get(), nullptr, ca_name, kCaSerial,
                               kCaNotBefore, kCaNotAfter, /*is_ca=*/true);
  std::string serial_bytes;
  AF_RETURN_IF_ERROR(RandomBytes(7, &serial_bytes));
  long serial = 0;
  for (unsigned char c : serial_bytes) serial = (serial << 8) | c;
  const time_t now = std::time(nullptr);
  X509Ptr leaf = ca ? MakeCertificate(identity.key.get(),
                                      "actorflow task " + std::to_string(getpid()), ca_key.get(),
                                      ca.get(), ca_name, serial + 2, now - kClockSkewSeconds,
                                      now + kLeafLifetimeSeconds, /*is_ca=*/false)
                    : nullptr;
  if (!ca || !leaf) return errors::Internal("TLS identity: cannot sign the certificates");
  const std::string ca_pem = CertificatePem(ca.get());
  const std::string leaf_pem = CertificatePem(leaf.get());
  if (ca_pem.empty() || leaf_pem.empty()) {
    return errors::Internal("TLS identity: cannot encode the certificates");
  }
  // Rewritten in place: CAF reads these files for every new connection.
  AF_RETURN_IF_ERROR(WriteAtomically(identity.files.ca_certificate, ca_pem));
  AF_RETURN_IF_ERROR(WriteAtomically(identity.files.certificate, leaf_pem + ca_pem));
  identity.secret_digest = digest;
  *files = identity.files;
  return Status::OK();
}

}  // namespace af
