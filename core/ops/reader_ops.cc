// Reader ops (whitepaper §4.5, input operation nodes): ops that make a
// reader resource and the ops that read records through it, with
// TensorFlow's names, inputs, attrs and defaults. The TF1 names pass
// handles as Ref(string) [container, name]; the V2 names as resources.
//
// IdxRecordReader(V2) is an Actorflow extension (docs/decisions.md): it reads
// the IDX files of (Fashion-)MNIST.
#include "core/op_registry.h"
#include "core/shape_inference.h"

namespace af {
namespace {

// A TF1 handle: a vector of two strings.
Status TwoElementOutput(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({2}));
  return Status::OK();
}

Status CheckTwoElementVector(InferenceContext* c, int input) {
  PartialTensorShape s;
  AF_RETURN_IF_ERROR(c->WithRank(input, 1, &s));
  if (s.dim_size(0) >= 0 && s.dim_size(0) != 2)
    return c->InvalidArgument("input ", input, " must be a handle of 2 elements, got shape ",
                              s.DebugString());
  return Status::OK();
}

// TF1 verbs: every input a two-element handle, every output a scalar.
Status TwoElementVectorAndScalarOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) AF_RETURN_IF_ERROR(CheckTwoElementVector(c, i));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape({}));
  return Status::OK();
}

Status ScalarInputsAndOutputs(InferenceContext* c) {
  PartialTensorShape s;
  for (int i = 0; i < c->num_inputs(); ++i) AF_RETURN_IF_ERROR(c->WithRank(i, 0, &s));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape({}));
  return Status::OK();
}

Status ReadUpToShape(InferenceContext* c, bool v2) {
  PartialTensorShape s;
  if (v2) {
    AF_RETURN_IF_ERROR(c->WithRank(0, 0, &s));
    AF_RETURN_IF_ERROR(c->WithRank(1, 0, &s));
  } else {
    AF_RETURN_IF_ERROR(CheckTwoElementVector(c, 0));
    AF_RETURN_IF_ERROR(CheckTwoElementVector(c, 1));
  }
  AF_RETURN_IF_ERROR(c->WithRank(2, 0, &s));
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, PartialTensorShape({-1}));
  return Status::OK();
}

Status RestoreStateShape(InferenceContext* c, bool v2) {
  PartialTensorShape s;
  if (v2) {
    AF_RETURN_IF_ERROR(c->WithRank(0, 0, &s));
  } else {
    AF_RETURN_IF_ERROR(CheckTwoElementVector(c, 0));
  }
  return c->WithRank(1, 0, &s);
}

}  // namespace

// Reader-making ops --------------------------------------------------------

REGISTER_OP("WholeFileReader")
    .Output("reader_handle: Ref(string)")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("A reader whose records are whole files: key = filename, value = contents.");

REGISTER_OP("WholeFileReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("A reader whose records are whole files: key = filename, value = contents.");

REGISTER_OP("TextLineReader")
    .Output("reader_handle: Ref(string)")
    .Attr("skip_header_lines: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("A reader of the lines of text files (split at '\\n'); key = \"<file>:<line>\".");

REGISTER_OP("TextLineReaderV2")
    .Output("reader_handle: resource")
    .Attr("skip_header_lines: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("A reader of the lines of text files (split at '\\n'); key = \"<file>:<line>\".");

REGISTER_OP("FixedLengthRecordReader")
    .Output("reader_handle: Ref(string)")
    .Attr("header_bytes: int = 0")
    .Attr("record_bytes: int")
    .Attr("footer_bytes: int = 0")
    .Attr("hop_bytes: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("A reader of fixed-length records between a header and a footer.");

REGISTER_OP("FixedLengthRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("header_bytes: int = 0")
    .Attr("record_bytes: int")
    .Attr("footer_bytes: int = 0")
    .Attr("hop_bytes: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("encoding: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("A reader of fixed-length records; encoding \"ZLIB\" or \"GZIP\" decompresses.");

REGISTER_OP("TFRecordReader")
    .Output("reader_handle: Ref(string)")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("compression_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("A reader of TFRecord files, CRCs checked; key = \"<file>:<offset>\".");

REGISTER_OP("TFRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("compression_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("A reader of TFRecord files, CRCs checked; key = \"<file>:<offset>\".");

REGISTER_OP("IdentityReader")
    .Output("reader_handle: Ref(string)")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("A reader that outputs each dequeued work string as both key and value.");

REGISTER_OP("IdentityReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("A reader that outputs each dequeued work string as both key and value.");

REGISTER_OP("IdxRecordReader")
    .Output("reader_handle: Ref(string)")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(TwoElementOutput)
    .Doc("Actorflow extension: one record per item of an IDX file (MNIST), gzip or not; "
         "key = \"<file>:<index>\", value = the item's raw bytes.");

REGISTER_OP("IdxRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape)
    .Doc("Actorflow extension: one record per item of an IDX file (MNIST), gzip or not; "
         "key = \"<file>:<index>\", value = the item's raw bytes.");

// Ops that use a reader -----------------------------------------------------

REGISTER_OP("ReaderRead")
    .Input("reader_handle: Ref(string)")
    .Input("queue_handle: Ref(string)")
    .Output("key: string")
    .Output("value: string")
    .SetShapeFn(TwoElementVectorAndScalarOutputs)
    .Doc("The next record; dequeues the next filename when the current file is done.");

REGISTER_OP("ReaderReadV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Output("key: string")
    .Output("value: string")
    .SetShapeFn(ScalarInputsAndOutputs)
    .Doc("The next record; dequeues the next filename when the current file is done.");

REGISTER_OP("ReaderReadUpTo")
    .Input("reader_handle: Ref(string)")
    .Input("queue_handle: Ref(string)")
    .Input("num_records: int64")
    .Output("keys: string")
    .Output("values: string")
    .SetShapeFn([](InferenceContext* c) { return ReadUpToShape(c, false); })
    .Doc("Up to num_records records, all from one file (fewer at its end).");

REGISTER_OP("ReaderReadUpToV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Input("num_records: int64")
    .Output("keys: string")
    .Output("values: string")
    .SetShapeFn([](InferenceContext* c) { return ReadUpToShape(c, true); })
    .Doc("Up to num_records records, all from one file (fewer at its end).");

REGISTER_OP("ReaderNumRecordsProduced")
    .Input("reader_handle: Ref(string)")
    .Output("records_produced: int64")
    .SetShapeFn(TwoElementVectorAndScalarOutputs)
    .Doc("How many records the reader has produced.");

REGISTER_OP("ReaderNumRecordsProducedV2")
    .Input("reader_handle: resource")
    .Output("records_produced: int64")
    .SetShapeFn(ScalarInputsAndOutputs)
    .Doc("How many records the reader has produced.");

REGISTER_OP("ReaderNumWorkUnitsCompleted")
    .Input("reader_handle: Ref(string)")
    .Output("units_completed: int64")
    .SetShapeFn(TwoElementVectorAndScalarOutputs)
    .Doc("How many work units (files) the reader has finished.");

REGISTER_OP("ReaderNumWorkUnitsCompletedV2")
    .Input("reader_handle: resource")
    .Output("units_completed: int64")
    .SetShapeFn(ScalarInputsAndOutputs)
    .Doc("How many work units (files) the reader has finished.");

REGISTER_OP("ReaderSerializeState")
    .Input("reader_handle: Ref(string)")
    .Output("state: string")
    .SetShapeFn(TwoElementVectorAndScalarOutputs)
    .Doc("The reader's counters and position as a string (kernels/io/reader_state.h).");

REGISTER_OP("ReaderSerializeStateV2")
    .Input("reader_handle: resource")
    .Output("state: string")
    .SetShapeFn(ScalarInputsAndOutputs)
    .Doc("The reader's counters and position as a string (kernels/io/reader_state.h).");

REGISTER_OP("ReaderRestoreState")
    .Input("reader_handle: Ref(string)")
    .Input("state: string")
    .SetShapeFn([](InferenceContext* c) { return RestoreStateShape(c, false); })
    .Doc("Continues where a state from ReaderSerializeState was taken.");

REGISTER_OP("ReaderRestoreStateV2")
    .Input("reader_handle: resource")
    .Input("state: string")
    .SetShapeFn([](InferenceContext* c) { return RestoreStateShape(c, true); })
    .Doc("Continues where a state from ReaderSerializeState was taken.");

REGISTER_OP("ReaderReset")
    .Input("reader_handle: Ref(string)")
    .SetShapeFn(TwoElementVectorAndScalarOutputs)
    .Doc("Returns the reader to its initial state.");

REGISTER_OP("ReaderResetV2")
    .Input("reader_handle: resource")
    .SetShapeFn(ScalarInputsAndOutputs)
    .Doc("Returns the reader to its initial state.");

// Other input ops -----------------------------------------------------------

REGISTER_OP("ReadFile")
    .Input("filename: string")
    .Output("contents: string")
    .SetShapeFn(ScalarInputsAndOutputs)
    .Doc("The whole contents of a file.");

}  // namespace af
