// Sources/DashportMPD/MPDCommand.swift - what a client sends MPD: command lines, quoting, command lists.

/// One MPD command: a name and its arguments, encoded as one line.
///
/// Every argument is sent double-quoted with `\` and `"` escaped, which MPD accepts for any
/// argument (numbers and ranges included), so no argument can split into two or run into the next
/// command. A newline cannot be carried by MPD's protocol at all: such an argument (or a name that
/// is not a plain word) is refused by ``encoded()`` instead of sent.
public struct MPDCommand: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var arguments: [String]

    public init(_ name: String, _ arguments: String...) {
        self.name = name
        self.arguments = arguments
    }

    public init(_ name: String, arguments: [String]) {
        self.name = name
        self.arguments = arguments
    }

    /// The longest line a command may encode to (MPD's own input buffer is 4 KiB per line by
    /// default in 0.23; longer lines are refused by MPD with "line too long").
    public static let maxLineBytes = 4096

    /// `name "arg1" "arg2"\n`, or why it cannot be sent.
    public func encoded() throws(MPDProtocolError) -> [UInt8] {
        guard !name.isEmpty, name.utf8.allSatisfy({ Self.isNameByte($0) }) else { throw .badCommand(name) }
        var line = Array(name.utf8)
        for argument in arguments {
            line.append(0x20)
            line.append(contentsOf: try Self.quoted(argument))
        }
        line.append(0x0A)
        guard line.count <= Self.maxLineBytes else { throw .commandTooLong(name, line.count) }
        return line
    }

    /// `"…"` with `\` and `"` escaped; an argument holding a newline or a NUL is refused.
    public static func quoted(_ argument: String) throws(MPDProtocolError) -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        for byte in argument.utf8 {
            switch byte {
            case 0x0A, 0x0D, 0x00: throw .argumentNotSendable(argument)
            case 0x22, 0x5C: bytes.append(0x5C)
            default: break
            }
            bytes.append(byte)
        }
        bytes.append(0x22)
        return bytes
    }

    /// Lowercase letters, digits and `_` (every MPD command name is one of these).
    static func isNameByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5F
    }

    /// The command in words, as it would be sent but without the newline (for logs and errors).
    public var description: String {
        ([name] + arguments.map { "\"\($0)\"" }).joined(separator: " ")
    }

    /// A command list: `command_list_ok_begin`, the commands, `command_list_end`. MPD runs them in
    /// order, answers one `list_OK` after each, and a single `OK` at the end, or stops at the first
    /// that fails with an `ACK` naming its index.
    public static func list(_ commands: [MPDCommand]) throws(MPDProtocolError) -> [UInt8] {
        var bytes = Array("command_list_ok_begin\n".utf8)
        for command in commands { bytes.append(contentsOf: try command.encoded()) }
        bytes.append(contentsOf: "command_list_end\n".utf8)
        return bytes
    }

    /// What a client sends while an `idle` is pending to end it (MPD then answers the idle at once).
    public static let noidle: [UInt8] = Array("noidle\n".utf8)
}
