// Empty on purpose, as in tools/fuzz/FuzzLink/main.swift: a plain `swift build` makes this a program
// that does nothing; the fuzz build links libFuzzer's main, which calls FuzzLinkStream.swift.
