// `actorflow saved_model show|run`: saved_model_cli's show and run over
// TensorFlow SavedModels (and those SavedModelBuilder writes here).
#include <filesystem>
#include <map>
#include <memory>

#include "client/saved_model/loader.h"
#include "client/saved_model/reader.h"
#include "client/saved_model/signature_runner.h"
#include "core/npy.h"
#include "tools/flags.h"
#include "tools/numpy_print.h"
#include "tools/saved_model_inputs.h"
#include "tools/saved_model_show.h"
#include "tools/subcommands.h"

namespace af::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: actorflow saved_model show DIR [--tag_set TAGS [--signature_def KEY]] [--all]\n"
    "       actorflow saved_model run DIR --tag_set TAGS --signature_def KEY\n"
    "           [--inputs 'KEY=FILE.npy;...'] [--input_exprs 'KEY=[[1],[2]];...']\n"
    "           [--input_examples 'KEY=[{\"x\":[3.0]}];...'] [--outdir D [--overwrite]]\n"
    "           [--devices cpu:N]\n"
    "\n"
    "TensorFlow's saved_model_cli over a SavedModel directory (saved_model.pb and\n"
    "variables/); DIR may also be given as --dir DIR.\n"
    "\n"
    "show: with no flag, the tag sets; with --tag_set (\"serve\", \"serve,gpu\"), the\n"
    "  signature keys of that MetaGraphDef; with --signature_def too, that\n"
    "  signature's inputs and outputs (dtype, shape, tensor name) and method name;\n"
    "  --all: every signature of every tag set, and a TF 2 model's functions.\n"
    "run: loads the MetaGraphDef (restoring its variables and running its init op),\n"
    "  feeds the signature's inputs by key and prints each output as numpy does\n"
    "  (\"Result for output key y:\"); with --outdir writes D/<key>.npy instead.\n"
    "  --inputs        .npy files, KEY=FILE, ';'-separated\n"
    "  --input_exprs   Python literals (nested lists of numbers or strings),\n"
    "                  converted to the input's dtype\n"
    "  --input_examples lists of dicts of feature lists, each fed as a serialized\n"
    "                  tf.Example (floats: float_list, ints: int64_list, strings:\n"
    "                  bytes_list)\n"
    "  --overwrite     replace existing .npy files under --outdir\n"
    "An error prints the Status and exits with 1; a wrong command line exits with 2.\n";

struct SavedModelFlags {
  std::string action;  // "show" or "run"
  std::string dir, tag_set, signature_def;
  bool all = false, overwrite = false;
  std::string inputs, input_exprs, input_examples, outdir;
  int num_cpus = 1;
};

// saved_model_cli separates several values of one flag by ';'; a repeated
// flag adds to them here.
void Append(std::string* flag, const std::string& value) {
  if (!flag->empty()) *flag += ";";
  *flag += value;
}

Status ReadFlags(const Args& args, SavedModelFlags* flags) {
  if (args.empty() || (args[0] != "show" && args[0] != "run"))
    return errors::InvalidArgument("give 'show' or 'run'");
  flags->action = args[0];
  // The one positional argument is DIR; every flag but the switches takes
  // the next argument as its value unless it carries "=value".
  Args rest;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0) {
      if (!flags->dir.empty()) return errors::InvalidArgument("unexpected argument '", arg, "'");
      flags->dir = arg;
      continue;
    }
    rest.push_back(arg);
    const bool takes_value =
        arg != "--all" && arg != "--overwrite" && arg.find('=') == std::string::npos;
    if (takes_value && i + 1 < args.size()) rest.push_back(args[++i]);
  }
  std::vector<Flag> list;
  AF_RETURN_IF_ERROR(ParseFlags(rest, {"--all", "--overwrite"}, &list));
  for (const Flag& f : list) {
    if (f.name == "--dir")
      flags->dir = f.value;
    else if (f.name == "--tag_set")
      flags->tag_set = f.value;
    else if (f.name == "--signature_def")
      flags->signature_def = f.value;
    else if (f.name == "--all")
      flags->all = true;
    else if (f.name == "--overwrite")
      flags->overwrite = true;
    else if (f.name == "--inputs" && flags->action == "run")
      Append(&flags->inputs, f.value);
    else if (f.name == "--input_exprs" && flags->action == "run")
      Append(&flags->input_exprs, f.value);
    else if (f.name == "--input_examples" && flags->action == "run")
      Append(&flags->input_examples, f.value);
    else if (f.name == "--outdir" && flags->action == "run")
      flags->outdir = f.value;
    else if (f.name == "--devices" && flags->action == "run") {
      if (f.value.rfind("cpu:", 0) != 0 || !ParseInt(f.value.substr(4), 1, 256, &flags->num_cpus))
        return errors::InvalidArgument("--devices wants cpu:N (1..256), got '", f.value, "'");
    } else {
      return errors::InvalidArgument("unknown flag '", f.name, "' for saved_model ", flags->action);
    }
  }
  if (flags->dir.empty()) return errors::InvalidArgument("give the SavedModel directory");
  if (flags->action == "show" && !flags->signature_def.empty() && flags->tag_set.empty())
    return errors::InvalidArgument("--signature_def needs --tag_set");
  if (flags->action == "run") {
    if (flags->tag_set.empty() || flags->signature_def.empty())
      return errors::InvalidArgument("run needs --tag_set and --signature_def");
  }
  return Status::OK();
}

Status Show(const SavedModelFlags& flags, std::ostream& out) {
  tensorflow::SavedModel saved_model;
  AF_RETURN_IF_ERROR(ReadSavedModel(flags.dir, &saved_model));
  if (flags.all) {
    ShowAll(saved_model, out);
    return Status::OK();
  }
  if (flags.tag_set.empty()) {
    ShowTagSets(saved_model, out);
    return Status::OK();
  }
  if (flags.signature_def.empty()) return ShowSignatureKeys(saved_model, flags.tag_set, out);
  return ShowSignature(saved_model, flags.tag_set, flags.signature_def, out);
}

Status Run(const SavedModelFlags& flags, std::ostream& out) {
  tensorflow::SavedModel saved_model;
  AF_RETURN_IF_ERROR(ReadSavedModel(flags.dir, &saved_model));
  const tensorflow::MetaGraphDef* mg = nullptr;
  AF_RETURN_IF_ERROR(FindByTagSetFlag(saved_model, flags.tag_set, &mg));
  const tensorflow::SignatureDef* signature = nullptr;
  AF_RETURN_IF_ERROR(FindSignatureDef(*mg, flags.signature_def, &signature));
  std::map<std::string, Tensor> inputs;
  AF_RETURN_IF_ERROR(ParseSignatureInputs(*signature, flags.inputs, flags.input_exprs,
                                          flags.input_examples, &inputs));
  // Output files are checked before anything runs: a stateful signature
  // must not run only to have its results refused.
  namespace fs = std::filesystem;
  if (!flags.outdir.empty() && !flags.overwrite) {
    for (const auto& [key, info] : signature->outputs()) {
      const fs::path file = fs::path(flags.outdir) / (key + ".npy");
      std::error_code ec;
      if (fs::exists(file, ec))
        return errors::AlreadyExists("output file ", file.string(),
                                     " already exists; add --overwrite to overwrite it");
    }
  }
  const std::unordered_set<std::string> tags(mg->meta_info_def().tags().begin(),
                                             mg->meta_info_def().tags().end());
  SessionOptions options;
  options.num_cpu_devices = flags.num_cpus;
  options.num_gpu_devices = 0;
  SavedModelBundle bundle;
  AF_RETURN_IF_ERROR(LoadSavedModel(options, RunOptions(), flags.dir, tags, &bundle));
  std::map<std::string, Tensor> outputs;
  AF_RETURN_IF_ERROR(RunSignature(bundle, flags.signature_def, inputs, {}, &outputs));
  for (const auto& [key, value] : outputs) {
    if (flags.outdir.empty()) {
      out << "Result for output key " << key << ":\n" << NumpyString(value) << "\n";
      continue;
    }
    std::error_code ec;
    fs::create_directories(flags.outdir, ec);
    const std::string path = (fs::path(flags.outdir) / (key + ".npy")).string();
    AF_RETURN_IF_ERROR(WriteNpy(path, value).WithContext("output '" + key + "'"));
    out << "Output " << key << " is saved to " << path << "\n";
  }
  return bundle.session->Close();
}

int SavedModelMain(const Args& args, std::ostream& out, std::ostream& err) {
  SavedModelFlags flags;
  Status s = ReadFlags(args, &flags);
  if (!s.ok()) {
    err << "actorflow saved_model: " << s.message() << "\n\n" << kUsage;
    return kExitUsage;
  }
  s = flags.action == "show" ? Show(flags, out) : Run(flags, out);
  if (!s.ok()) {
    err << "actorflow saved_model " << flags.action << ": " << s << "\n";
    return kExitError;
  }
  return kExitOk;
}

}  // namespace

extern const Subcommand kSavedModelCommand{"saved_model",
                                           "show or run a TensorFlow SavedModel (saved_model_cli)",
                                           kUsage, &SavedModelMain};

}  // namespace af::tools
