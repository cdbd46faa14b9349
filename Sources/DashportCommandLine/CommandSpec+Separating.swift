extension CommandSpec {
    /// Splits `arguments` into this command's own options (each with its value) and the rest, for
    /// a command whose rest is words for someone else (`dashport ctl`'s request), so the options
    /// may stand before or after them: `ctl status --state-dir X` honours `--state-dir`.
    ///
    /// An option is `--name`, `--name=value` or `--name value` for a name in ``options``, or
    /// `--help` / `-h`; anything else (`--all`, a word) is the rest's, in order, and everything
    /// after a lone `--` is the rest's whatever it looks like. A value-taking option at the very end
    /// keeps no value, so the parser reports it as missing.
    public func separatingOptions(_ arguments: [String]) -> (options: [String], rest: [String]) {
        var options: [String] = []
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            if argument == "--help" || argument == "-h" {
                options.append(argument)
                continue
            }
            let name = argument.hasPrefix("--") ? String(argument.dropFirst(2).prefix { $0 != "=" }) : ""
            guard !name.isEmpty, let option = option(name) else {
                rest.append(argument)
                continue
            }
            options.append(argument)
            if option.kind != .flag, !argument.contains("="), index < arguments.count {
                options.append(arguments[index])
                index += 1
            }
        }
        return (options, rest)
    }
}
