"""Emits WireSamples.pb.swift for DashportMessagesTests: reference encodings the Swift code must match.

- `full`: for every message (nested ones too), one value with every field set (repeated fields with
  two elements, negative and large numbers, non-ASCII strings; one sample per member of the largest
  oneof), and the bytes Google's Python protobuf runtime encodes it as. The Swift value must encode
  to exactly those bytes and decode from them to itself.
- `empty`: `X()` for every message, and the bytes a strict proto2 writer must produce for it: every
  required field present with its zero (or default) value, written by the small encoder below.
"""

from google.protobuf import descriptor_pool, message_factory

from .model import F, GeneratorError, swift_identifier

VARINT_TYPES = {F.TYPE_INT32, F.TYPE_INT64, F.TYPE_UINT32, F.TYPE_UINT64, F.TYPE_SINT32, F.TYPE_SINT64,
                F.TYPE_BOOL, F.TYPE_ENUM}
FIXED32 = {F.TYPE_FIXED32, F.TYPE_SFIXED32, F.TYPE_FLOAT}
FIXED64 = {F.TYPE_FIXED64, F.TYPE_SFIXED64, F.TYPE_DOUBLE}
SIGNED = {F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32, F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64}
WIDE = {F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64}


def varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def swift_bytes(data, indent):
    if not data:
        return "[]"
    hexes = [f"0x{b:02x}" for b in data]
    rows = [", ".join(hexes[i:i + 16]) for i in range(0, len(hexes), 16)]
    return "[\n" + ",\n".join(f"{indent}    {r}" for r in rows) + f",\n{indent}]"


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class SampleEmitter:
    def __init__(self, registry, request, proto_root):
        self.reg = registry
        self.proto_root = proto_root
        self.pool = descriptor_pool.DescriptorPool()
        for fp in request.proto_file:
            self.pool.Add(fp)
        self.factory = message_factory.MessageFactory(self.pool)

    def python_class(self, message):
        descriptor = self.pool.FindMessageTypeByName(message.full_name[1:])
        if hasattr(message_factory, "GetMessageClass"):
            return message_factory.GetMessageClass(descriptor)
        return self.factory.GetPrototype(descriptor)

    # MARK: values with every field set

    def scalar(self, f, salt):
        n = f.number + 100 * salt
        t = f.type
        if f.is_enum:
            cases = self.reg.enums[f.type_name].cases
            number = cases[(len(cases) - 1 - salt) % len(cases)][1]
            return number, f"{self.reg.swift_type(f)}(rawValue: {number})"
        if t in SIGNED:
            v = (n * (10 ** 12 if t in WIDE else 1009) + 7) * (-1 if n % 2 else 1)
        elif t in (F.TYPE_UINT32, F.TYPE_FIXED32):
            v = 4_000_000_000 + n
        elif t in (F.TYPE_UINT64, F.TYPE_FIXED64):
            v = (1 << 63) + n
        elif t == F.TYPE_BOOL:
            return n % 2 == 1, "true" if n % 2 == 1 else "false"
        elif t in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
            v = n + (0.25 if t == F.TYPE_FLOAT else 0.125)
        elif t == F.TYPE_STRING:
            text = f"f{n} é ✓"
            return text, swift_string(text)
        elif t == F.TYPE_BYTES:
            data = bytes([n % 256, 0, 255, 128])
            return data, "[" + ", ".join(str(b) for b in data) + "]"
        else:
            raise GeneratorError(f"no sample for field type {t}")
        return v, str(v)

    def variants(self, m):
        return max([len(o.fields) for o in m.oneofs] + [1])

    def full(self, m, variant, salt, depth=0):
        """(python message, Swift expression) with every field set."""
        if depth > 8:
            raise GeneratorError(f"{m.full_name}: recursive messages are not supported by samples")
        py = self.python_class(m)()
        args = []
        for f in m.plain_fields:
            if f.repeated:
                items = [self.field_value(f, salt + k, depth) for k in (0, 1)]
                target = getattr(py, f.proto.name)
                for pv, _ in items:
                    if f.is_message:
                        target.add().CopyFrom(pv)
                    else:
                        target.append(pv)
                args.append((f.swift_name, "[" + ", ".join(s for _, s in items) + "]"))
            else:
                pv, sv = self.field_value(f, salt, depth)
                self.set_single(py, f, pv)
                args.append((f.swift_name, sv))
        for o in m.oneofs:
            f = o.fields[variant % len(o.fields)]
            pv, sv = self.field_value(f, salt, depth)
            self.set_single(py, f, pv)
            args.append((o.swift_name, f".{swift_identifier(f.swift_name)}({sv})"))
        return py, self.construct(m, args)

    def field_value(self, f, salt, depth):
        if f.is_message:
            sub = self.reg.messages[f.type_name]
            return self.full(sub, salt, salt, depth + 1)
        return self.scalar(f, salt)

    @staticmethod
    def set_single(py, f, value):
        if f.is_message:
            getattr(py, f.proto.name).SetInParent()
            getattr(py, f.proto.name).MergeFrom(value)
        else:
            setattr(py, f.proto.name, value)

    @staticmethod
    def construct(m, args):
        if not args:
            return f"{m.swift_name}()"
        return f"{m.swift_name}(" + ", ".join(f"{n}: {v}" for n, v in args) + ")"

    # MARK: strict writer reference for X()

    def empty_bytes(self, m):
        out = bytearray()
        for f in sorted(m.plain_fields, key=lambda f: f.number):
            if not f.required:
                continue
            if f.type in VARINT_TYPES:
                out += varint(f.number << 3) + self.default_varint(f)
            elif f.type in FIXED32:
                out += varint(f.number << 3 | 5) + bytes(4)
            elif f.type in FIXED64:
                out += varint(f.number << 3 | 1) + bytes(8)
            elif f.type in (F.TYPE_STRING, F.TYPE_BYTES):
                out += varint(f.number << 3 | 2) + b"\x00"
            elif f.is_message:
                sub = self.empty_bytes(self.reg.messages[f.type_name])
                out += varint(f.number << 3 | 2) + varint(len(sub)) + sub
        return bytes(out)

    def default_varint(self, f):
        if not f.has_default:
            return b"\x00"
        if f.is_enum:
            return varint(self.reg.enums[f.type_name].case_for_proto_value(f.default_value)[1])
        if f.type == F.TYPE_BOOL:
            return varint(1 if f.default_value == "true" else 0)
        value = int(f.default_value)
        if f.type in (F.TYPE_SINT32, F.TYPE_SINT64):
            value = (value << 1) ^ (value >> 63)
        return varint(value)

    # MARK: file

    def file(self, file_names):
        messages = [m for name in file_names for m in self.reg.all_messages_of(name)]
        out = [
            "// DO NOT EDIT. Generated by tools/generate/protoc-gen-dashport-swift (mode=samples) from "
            f"{self.proto_root}/*.proto",
            "// swift-format-ignore-file",
            "// Regenerate with tools/regenerate. The bytes of `full` were encoded by Google's Python protobuf",
            "// runtime; the bytes of `empty` by the strict-writer reference in tools/generate/dashport_swift/samples.py.",
            "",
            "import DashportMessages",
            "",
            "enum WireSamples {",
        ]
        full_names, empty_names, funcs = [], [], []
        for m in messages:
            for variant in range(self.variants(m)):
                py, swift = self.full(m, variant, 0)
                label = m.full_name[1:] + (f" #{variant}" if self.variants(m) > 1 else "")
                fn = f"full{len(full_names)}"
                full_names.append(fn)
                funcs.append(self.sample_func(fn, label, swift, py.SerializeToString()))
            empty = self.empty_bytes(m)
            self.python_class(m)().ParseFromString(empty)  # raises if the reference is not protobuf
            fn = f"empty{len(empty_names)}"
            empty_names.append(fn)
            funcs.append(self.sample_func(fn, m.full_name[1:] + " (empty)", f"{m.swift_name}()", empty))
        out.append("    /// Every message with every field set, and its reference encoding.")
        out.append("    static let full: [WireSample] = [" + ", ".join(f"{n}()" for n in full_names) + "]")
        out.append("")
        out.append("    /// Every message as `X()`, and the bytes a strict writer produces for it.")
        out.append("    static let empty: [WireSample] = [" + ", ".join(f"{n}()" for n in empty_names) + "]")
        for fn in funcs:
            out += [""] + fn
        out.append("}")
        return "\n".join(out) + "\n"

    @staticmethod
    def sample_func(name, label, swift, data):
        return [
            f"    private static func {name}() -> WireSample {{",
            "        WireSample(",
            f"            name: {swift_string(label)},",
            f"            message: {swift},",
            f"            bytes: {swift_bytes(data, '            ')}",
            "        )",
            "    }",
        ]
