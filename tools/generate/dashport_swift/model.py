"""A small model of the .proto files a protoc plugin receives: names in Swift and in protoc-c's C,
field kinds and labels, defaults and comments.

Naming rules (documented in Sources/DashportMessages/DashportMessages.docc/GeneratingMessages.md):
- a proto package maps to a Swift namespace enum through the plugin parameter `namespaces`
  (`dashport.aap=AAP;dashport.media=DashportMedia`); nested messages and enums nest in Swift too;
- fields become lowerCamelCase properties; enum values lose their `<ENUM_NAME>_` prefix and become
  lowerCamelCase static members;
- C names follow protoc-c 1.4: `Dashport__Aap__KeyEvent__Key` and `dashport__aap__key_event__key__init`.
"""

from google.protobuf import descriptor_pb2 as d

F = d.FieldDescriptorProto

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
    "inout", "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static",
    "struct", "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do",
    "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while",
    "as", "Any", "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try",
    "some", "any",
}
# protoc-c appends "_" to a field named after a C or C++ keyword (`explicit` → `explicit_`).
C_KEYWORDS = set("""
    and and_eq asm auto bitand bitor bool break case catch char class compl const const_cast continue
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto
    if inline int long mutable namespace new not not_eq operator or or_eq private protected public
    register reinterpret_cast return short signed sizeof static static_cast struct switch template this
    throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
    xor_eq
""".split())
# Type names that cannot be a nested Swift type (`X.Type` is the metatype, ...).
RESERVED_TYPE_NAMES = {"Type", "Protocol", "Self", "Any"}

SCALARS = {
    # proto type: (Swift type, zero literal)
    F.TYPE_INT32: ("Int32", "0"), F.TYPE_SINT32: ("Int32", "0"), F.TYPE_SFIXED32: ("Int32", "0"),
    F.TYPE_UINT32: ("UInt32", "0"), F.TYPE_FIXED32: ("UInt32", "0"),
    F.TYPE_INT64: ("Int64", "0"), F.TYPE_SINT64: ("Int64", "0"), F.TYPE_SFIXED64: ("Int64", "0"),
    F.TYPE_UINT64: ("UInt64", "0"), F.TYPE_FIXED64: ("UInt64", "0"),
    F.TYPE_BOOL: ("Bool", "false"), F.TYPE_FLOAT: ("Float", "0"), F.TYPE_DOUBLE: ("Double", "0"),
    F.TYPE_STRING: ("String", '""'), F.TYPE_BYTES: ("[UInt8]", "[]"),
}


class GeneratorError(Exception):
    """A .proto construct this generator does not support; protoc reports it as the plugin's error."""


def camel_words(snake):
    return [w for w in snake.split("_") if w]


def lower_camel(snake):
    words = camel_words(snake.lower()) if snake.isupper() else camel_words(snake)
    if not words:
        raise GeneratorError(f"cannot name {snake!r} in Swift")
    head = words[0][0].lower() + words[0][1:]
    return head + "".join(w[0].upper() + w[1:] for w in words[1:])


def upper_camel(snake):
    name = lower_camel(snake)
    return name[0].upper() + name[1:]


def upper_snake(camel):
    out = ""
    for i, ch in enumerate(camel):
        if ch.isupper() and i > 0 and (camel[i - 1].islower() or camel[i - 1].isdigit()):
            out += "_"
        out += ch.upper()
    return out


def swift_identifier(name):
    if name[0].isdigit():
        name = "_" + name
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def c_camel(component):
    """protoc-c's ToCamel: `foo_bar` → `FooBar`, other letters kept."""
    return "".join(w[0].upper() + w[1:] for w in component.split("_") if w)


def c_lower(component):
    """protoc-c's CamelToLower: `KeyEvent` → `key_event`."""
    out = ""
    for i, ch in enumerate(component):
        if ch.isupper():
            if i > 0 and out[-1:] != "_":
                out += "_"
            out += ch.lower()
        else:
            out += ch
    return out


class Comments:
    """Leading comments of one file, by descriptor path."""

    def __init__(self, file_proto):
        self.by_path = {}
        for loc in file_proto.source_code_info.location:
            if loc.leading_comments:
                self.by_path[tuple(loc.path)] = loc.leading_comments

    def doc(self, path, indent):
        text = self.by_path.get(tuple(path))
        if not text:
            return []
        lines = text.rstrip("\n").split("\n")
        return [f"{indent}///{(' ' + l.strip()) if l.strip() else ''}" for l in lines]


class EnumModel:
    def __init__(self, proto, full_name, swift_name, c_type, path):
        self.proto, self.full_name, self.swift_name, self.c_type, self.path = proto, full_name, swift_name, c_type, path
        self.short_name = proto.name
        if self.short_name in RESERVED_TYPE_NAMES:
            raise GeneratorError(f"enum {full_name}: {self.short_name!r} cannot be a Swift type name")
        prefix = upper_snake(self.short_name) + "_"
        self.cases = []  # (swift case name, number, proto value name, index)
        seen_numbers, seen_names = set(), set()
        for i, v in enumerate(proto.value):
            stripped = v.name[len(prefix):] if v.name.startswith(prefix) else v.name
            name = lower_camel(stripped)
            if v.number in seen_numbers:
                raise GeneratorError(f"enum {full_name}: aliases (two names for {v.number}) are not supported")
            if name in seen_names or name in {"rawValue", "description", "knownValues"}:
                raise GeneratorError(f"enum {full_name}: value name {name!r} collides")
            if name in {"none", "some"}:
                # `field: .none` on an optional enum field would silently mean nil.
                raise GeneratorError(f"enum {full_name}: value name {name!r} reads as Optional.{name}")
            seen_numbers.add(v.number)
            seen_names.add(name)
            self.cases.append((name, v.number, v.name, i))

    def case_for_proto_value(self, value_name):
        for name, number, proto_name, _ in self.cases:
            if proto_name == value_name:
                return name, number
        raise GeneratorError(f"enum {self.full_name} has no value {value_name}")


class FieldModel:
    def __init__(self, proto, message, path):
        self.proto, self.message, self.path = proto, message, path
        self.c_name = proto.name + "_" if proto.name in C_KEYWORDS else proto.name
        self.swift_name = lower_camel(proto.name)
        self.number = proto.number
        self.type = proto.type
        self.type_name = proto.type_name  # ".pkg.Msg" for messages and enums
        self.repeated = proto.label == F.LABEL_REPEATED
        self.required = proto.label == F.LABEL_REQUIRED
        self.oneof_index = proto.oneof_index if proto.HasField("oneof_index") else None
        self.packed = proto.options.packed if proto.options.HasField("packed") else False
        self.has_default = proto.HasField("default_value")
        self.default_value = proto.default_value
        if self.has_default and self.type in (F.TYPE_STRING, F.TYPE_BYTES):
            raise GeneratorError(f"{message.full_name}.{proto.name}: string/bytes defaults are not supported")
        if self.type == F.TYPE_GROUP:
            raise GeneratorError(f"{message.full_name}.{proto.name}: groups are not supported")
        if self.required and self.oneof_index is not None:
            raise GeneratorError(f"{message.full_name}.{proto.name}: required oneof member")

    @property
    def is_message(self):
        return self.type == F.TYPE_MESSAGE

    @property
    def is_enum(self):
        return self.type == F.TYPE_ENUM


class OneofModel:
    def __init__(self, proto, message, index):
        self.proto, self.message, self.index = proto, message, index
        self.swift_name = lower_camel(proto.name)
        self.swift_type = upper_camel(proto.name)
        self.c_case = proto.name + "_case"
        self.fields = []


class MessageModel:
    def __init__(self, proto, full_name, swift_name, c_type, c_prefix, path, file):
        self.proto, self.full_name, self.swift_name = proto, full_name, swift_name
        self.c_type, self.c_prefix, self.path, self.file = c_type, c_prefix, path, file
        self.short_name = proto.name
        if self.short_name in RESERVED_TYPE_NAMES:
            raise GeneratorError(f"message {full_name}: {self.short_name!r} cannot be a Swift type name")
        if proto.options.map_entry:
            raise GeneratorError(f"{full_name}: map fields are not supported; use a repeated message")
        self.fields = [FieldModel(f, self, path + [2, i]) for i, f in enumerate(proto.field)]
        self.oneofs = [OneofModel(o, self, i) for i, o in enumerate(proto.oneof_decl)]
        for f in self.fields:
            if f.oneof_index is not None:
                self.oneofs[f.oneof_index].fields.append(f)
        self.nested_messages = []
        self.nested_enums = []
        names = [f.swift_name for f in self.fields] + [o.swift_name for o in self.oneofs]
        if len(set(names)) != len(names):
            raise GeneratorError(f"{full_name}: two fields map to one Swift name")

    @property
    def plain_fields(self):
        return [f for f in self.fields if f.oneof_index is None]


class Registry:
    """Every message and enum of every file protoc passed, by full proto name (".pkg.Name")."""

    def __init__(self, request, namespaces):
        self.messages, self.enums, self.files = {}, {}, {}
        for fp in request.proto_file:
            if fp.syntax not in ("", "proto2"):
                raise GeneratorError(f"{fp.name}: only proto2 is supported")
            if fp.package not in namespaces:
                raise GeneratorError(f"{fp.name}: package {fp.package!r} has no namespace (plugin parameter)")
            ns = namespaces[fp.package]
            c_pkg = "__".join(c_camel(p) for p in fp.package.split("."))
            c_low = "__".join(c_lower(p) for p in fp.package.split("."))
            entry = {"proto": fp, "namespace": ns, "messages": [], "enums": [], "comments": Comments(fp)}
            self.files[fp.name] = entry
            for i, e in enumerate(fp.enum_type):
                em = EnumModel(e, f".{fp.package}.{e.name}", f"{ns}.{e.name}", f"{c_pkg}__{c_camel(e.name)}", [5, i])
                self.enums[em.full_name] = em
                entry["enums"].append(em)
            for i, m in enumerate(fp.message_type):
                entry["messages"].append(
                    self._add_message(m, f".{fp.package}", f"{ns}", c_pkg, c_low, [4, i], fp.name))

    def _add_message(self, proto, parent_full, parent_swift, parent_c, parent_low, path, file):
        full = f"{parent_full}.{proto.name}"
        mm = MessageModel(proto, full, f"{parent_swift}.{proto.name}", f"{parent_c}__{c_camel(proto.name)}",
                          f"{parent_low}__{c_lower(proto.name)}", path, file)
        self.messages[full] = mm
        for i, e in enumerate(proto.enum_type):
            em = EnumModel(e, f"{full}.{e.name}", f"{mm.swift_name}.{e.name}", f"{mm.c_type}__{c_camel(e.name)}",
                           path + [4, i])
            self.enums[em.full_name] = em
            mm.nested_enums.append(em)
        for i, n in enumerate(proto.nested_type):
            mm.nested_messages.append(
                self._add_message(n, full, mm.swift_name, mm.c_type, mm.c_prefix, path + [3, i], file))
        nested = [n.short_name for n in mm.nested_messages] + [e.short_name for e in mm.nested_enums]
        clash = set(nested) & {o.swift_type for o in mm.oneofs}
        if clash:
            raise GeneratorError(f"{full}: oneof type name {clash} collides with a nested type")
        return mm

    def all_messages_of(self, file_name):
        out = []

        def walk(m):
            out.append(m)
            for n in m.nested_messages:
                walk(n)
        for m in self.files[file_name]["messages"]:
            walk(m)
        return out

    def swift_type(self, field):
        """The Swift type of one value of `field` (without Optional or Array)."""
        if field.is_message:
            return self.messages[field.type_name].swift_name
        if field.is_enum:
            return self.enums[field.type_name].swift_name
        return SCALARS[field.type][0]

    def zero_value(self, field):
        """The value of a required field that is absent: what a proto3-era sender omits (zero), or
        the field's explicit `[default = …]`."""
        if field.has_default:
            return self.default_literal(field)
        if field.is_message:
            return f"{self.swift_type(field)}()"
        if field.is_enum:
            return f"{self.swift_type(field)}(rawValue: 0)"
        return SCALARS[field.type][1]

    def default_literal(self, field):
        v = field.default_value
        if field.is_enum:
            name, _ = self.enums[field.type_name].case_for_proto_value(v)
            return f"{self.swift_type(field)}.{swift_identifier(name)}"
        if field.type in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
            return {"inf": ".infinity", "-inf": "-.infinity", "nan": ".nan"}.get(v, v)
        return v
