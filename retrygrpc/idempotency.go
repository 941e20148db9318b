package retrygrpc

import (
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// descriptorLevels caches, per full method, whether its proto declares it idempotent
// (idempotency_level IDEMPOTENT or NO_SIDE_EFFECTS), as read from protoregistry.GlobalFiles,
// where generated code registers its files. Only registered methods are cached, so the map is
// bounded by the program's protos; a method whose descriptor is not registered is not
// idempotent.
var descriptorLevels sync.Map // full method -> bool

// idempotentByDescriptor reports whether the proto of method ("/pkg.Service/Method")
// declares it idempotent. It is safe for concurrent use.
func idempotentByDescriptor(method string) bool {
	if v, ok := descriptorLevels.Load(method); ok {
		return v.(bool)
	}
	name := protoreflect.FullName(strings.Replace(strings.TrimPrefix(method, "/"), "/", ".", 1))
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
	m, ok := d.(protoreflect.MethodDescriptor)
	if err != nil || !ok {
		return false
	}
	idempotent := false
	if o, ok := m.Options().(*descriptorpb.MethodOptions); ok {
		level := o.GetIdempotencyLevel()
		idempotent = level == descriptorpb.MethodOptions_IDEMPOTENT || level == descriptorpb.MethodOptions_NO_SIDE_EFFECTS
	}
	descriptorLevels.Store(method, idempotent)
	return idempotent
}
