package remotecache

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The REAPI messages, decoded by the protobuf library from their upstream
// definitions (testdata/remote_execution.proto, copied from
// bazelbuild/remote-apis), not by kiln's own reader: what kiln writes must
// be what any REAPI server parses.

var (
	protoField   = regexp.MustCompile(`^(repeated )?([A-Za-z0-9_.]+) ([a-z_]+) = ([0-9]+)( \[.*\])?;$`)
	protoScalars = map[string]descriptorpb.FieldDescriptorProto_Type{
		"string": descriptorpb.FieldDescriptorProto_TYPE_STRING,
		"bytes":  descriptorpb.FieldDescriptorProto_TYPE_BYTES,
		"bool":   descriptorpb.FieldDescriptorProto_TYPE_BOOL,
		"int32":  descriptorpb.FieldDescriptorProto_TYPE_INT32,
		"int64":  descriptorpb.FieldDescriptorProto_TYPE_INT64,
	}
)

const reapiPackage = "build.bazel.remote.execution.v2"

// parseProto reads the messages of the testdata file: message blocks of
// scalar and message fields, reserved numbers, options in brackets. A
// message type it references but does not define (NodeProperties,
// ExecutedActionMetadata) is declared empty: kiln writes none, and their
// fields, from a server, stay unknown to this test.
func parseProto(t *testing.T) *descriptorpb.FileDescriptorProto {
	t.Helper()
	src, err := os.ReadFile("testdata/remote_execution.proto")
	if err != nil {
		t.Fatal(err)
	}
	file := &descriptorpb.FileDescriptorProto{Name: proto.String("remote_execution.proto"), Package: proto.String(reapiPackage), Syntax: proto.String("proto3")}
	var msg *descriptorpb.DescriptorProto
	defined, used := map[string]bool{}, map[string]bool{}
	for n, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "syntax") || strings.HasPrefix(line, "package") || strings.HasPrefix(line, "reserved"):
		case strings.HasPrefix(line, "message "):
			name := strings.TrimSuffix(strings.TrimPrefix(line, "message "), " {")
			msg = &descriptorpb.DescriptorProto{Name: proto.String(name)}
			file.MessageType = append(file.MessageType, msg)
			defined[name] = true
		case line == "}":
			msg = nil
		default:
			m := protoField.FindStringSubmatch(line)
			if m == nil || msg == nil {
				t.Fatalf("remote_execution.proto:%d: cannot read %q", n+1, line)
			}
			num, _ := strconv.Atoi(m[4])
			f := &descriptorpb.FieldDescriptorProto{Name: proto.String(m[3]), JsonName: proto.String(m[3]), Number: proto.Int32(int32(num)), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}
			if m[1] != "" {
				f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
			}
			if typ, ok := protoScalars[m[2]]; ok {
				f.Type = typ.Enum()
			} else {
				f.Type = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
				f.TypeName = proto.String("." + reapiPackage + "." + m[2])
				used[m[2]] = true
			}
			msg.Field = append(msg.Field, f)
		}
	}
	for name := range used {
		if !defined[name] {
			file.MessageType = append(file.MessageType, &descriptorpb.DescriptorProto{Name: proto.String(name)})
		}
	}
	return file
}

// reapi returns the message types of the testdata file by name.
func reapi(t *testing.T) map[string]protoreflect.MessageType {
	t.Helper()
	fd, err := protodesc.NewFile(parseProto(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]protoreflect.MessageType{}
	msgs := fd.Messages()
	for i := range msgs.Len() {
		types[string(msgs.Get(i).Name())] = dynamicpb.NewMessageType(msgs.Get(i))
	}
	return types
}

// decodeREAPI parses b as the message called name and checks that kiln
// wrote it as the REAPI asks of a message whose digest is taken: no field
// the definition lacks, anywhere, and the canonical encoding (the protobuf
// library writes the same bytes again: fields in tag order, no defaults,
// nothing repeated).
func decodeREAPI(t *testing.T, types map[string]protoreflect.MessageType, name string, b []byte) protoreflect.Message {
	t.Helper()
	m := types[name].New()
	if err := proto.Unmarshal(b, m.Interface()); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	noUnknown(t, name, m)
	again, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, b) {
		t.Errorf("%s is not in canonical form:\n kiln  %x\n proto %x", name, b, again)
	}
	return m
}

func noUnknown(t *testing.T, where string, m protoreflect.Message) {
	t.Helper()
	if len(m.GetUnknown()) > 0 {
		t.Errorf("%s holds fields the REAPI does not define: %x", where, m.GetUnknown())
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			for i := range v.List().Len() {
				noUnknown(t, where+"."+string(fd.Name()), v.List().Get(i).Message())
			}
			return true
		}
		noUnknown(t, where+"."+string(fd.Name()), v.Message())
		return true
	})
}

// get reads a field of m by its REAPI name.
func get(m protoreflect.Message, name string) protoreflect.Value {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic("no field " + name + " in " + string(m.Descriptor().Name()))
	}
	return m.Get(fd)
}

func list(m protoreflect.Message, name string) []protoreflect.Message {
	l := get(m, name).List()
	out := make([]protoreflect.Message, l.Len())
	for i := range out {
		out[i] = l.Get(i).Message()
	}
	return out
}

func digestField(m protoreflect.Message, name string) digest {
	d := get(m, name).Message()
	return digest{Hash: get(d, "hash").String(), Size: get(d, "size_bytes").Int()}
}

// TestProtoExcerptIsREAPI pins the numbers kiln's encoder uses to the
// upstream definitions the tests decode with.
func TestProtoExcerptIsREAPI(t *testing.T) {
	types := reapi(t)
	for _, tc := range []struct {
		msg, field string
		num        int
	}{
		{"Digest", "hash", digestHash}, {"Digest", "size_bytes", digestSize},
		{"FileNode", "name", fileNodeName}, {"FileNode", "digest", fileNodeDigest}, {"FileNode", "is_executable", fileNodeExec},
		{"DirectoryNode", "name", dirNodeName}, {"DirectoryNode", "digest", dirNodeDigest},
		{"SymlinkNode", "name", symlinkName}, {"SymlinkNode", "target", symlinkTarget},
		{"Directory", "files", directoryFiles}, {"Directory", "directories", directoryDirs}, {"Directory", "symlinks", directorySymlinks},
		{"Tree", "root", treeRoot}, {"Tree", "children", treeChildren},
		{"OutputFile", "path", outputFilePath}, {"OutputFile", "digest", outputFileDigest}, {"OutputFile", "is_executable", outputFileExec},
		{"OutputDirectory", "path", outputDirPath}, {"OutputDirectory", "tree_digest", outputDirTree},
		{"OutputDirectory", "is_topologically_sorted", outputDirSorted}, {"OutputDirectory", "root_directory_digest", outputDirRoot},
		{"ActionResult", "output_files", resultFiles}, {"ActionResult", "output_directories", resultDirs},
	} {
		fd := types[tc.msg].Descriptor().Fields().ByName(protoreflect.Name(tc.field))
		if fd == nil || int(fd.Number()) != tc.num {
			t.Errorf("%s.%s: kiln writes field %d, the REAPI defines %v", tc.msg, tc.field, tc.num, fd)
		}
	}
}
